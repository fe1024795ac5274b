import { claimKeyAt } from '../scheduler';
import { claimsWindowOf, holderOf, planRunNow } from './planRunNow';
import type { SliceClaim } from '../model';

const sliceId = 'healthcheck:payments-health:system%3Adefault%2Fpayments:prod';
const intervalMs = 60_000;
const underWayMs = 12_000;
/** A grid tick of the slice, and a run now asked for 30 s after it. */
const tick = claimKeyAt(sliceId, 2_000_000_000_000, intervalMs);
const at = tick + 30_000;

function claim(
  scheduledAt: number,
  fields: Partial<SliceClaim> = {},
): SliceClaim {
  return {
    scheduledAt,
    claimedBy: 'instance-b',
    claimedAt: scheduledAt,
    completed: true,
    ...fields,
  };
}

function plan(claims: SliceClaim[], when = at) {
  return planRunNow({ sliceId, intervalMs, at: when, underWayMs, claims });
}

describe('planRunNow', () => {
  it('runs under its own time when nothing of the slice is under way, holding the next tick', () => {
    // The next tick is far off, but two runs now at once both hold it, so
    // the one that loses it finds the other.
    expect(plan([claim(tick)])).toEqual({ run: at, hold: [tick + intervalMs] });
  });

  it('joins the run under way on any instance instead of probing beside it', () => {
    const scheduled = claim(tick, { claimedAt: at - 500, completed: false });
    expect(plan([scheduled])).toEqual({ join: tick });

    const otherRunNow = claim(at - 2_000, {
      completed: false,
      claimedAt: at - 2_000,
    });
    expect(plan([claim(tick), otherRunNow])).toEqual({ join: at - 2_000 });
  });

  it('takes a claim without a result older than the timeout and its grace for abandoned', () => {
    const abandoned = claim(tick, {
      claimedAt: at - underWayMs - 1,
      completed: false,
    });
    expect(plan([abandoned])).toEqual({
      run: at,
      hold: [tick + intervalMs],
    });
  });

  it('holds the free ticks that could fall due while it runs, not the taken ones', () => {
    const nearTheNext = tick + intervalMs - 5_000;
    expect(plan([claim(tick)], nearTheNext)).toEqual({
      run: nearTheNext,
      hold: [tick + intervalMs],
    });

    // The tick just due, that its owner has not claimed yet, is held too,
    // and so is one a first probe due now would be claimed under.
    const justAfter = tick + 1_000;
    expect(plan([claim(tick - intervalMs)], justAfter)).toEqual({
      run: justAfter,
      hold: [tick, tick + intervalMs],
    });
    expect(plan([])).toEqual({ run: at, hold: [tick, tick + intervalMs] });
  });

  it('never joins a hold: the run now that holds is found by its own claim', () => {
    const hold = claim(tick + intervalMs, {
      claimedBy: holderOf('instance-b'),
      claimedAt: at - 1_000,
      completed: false,
    });
    const nearTheNext = tick + intervalMs - 5_000;
    expect(plan([claim(tick), hold], nearTheNext)).toEqual({
      run: nearTheNext,
      hold: [],
    });
  });

  it('reads claims back far enough for a tick claimed late', () => {
    expect(claimsWindowOf({ intervalMs, at, underWayMs })).toEqual({
      from: at - underWayMs - intervalMs,
      to: at + underWayMs,
    });
  });
});
