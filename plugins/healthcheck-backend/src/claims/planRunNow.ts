import { claimKeyAt } from '../scheduler/tickGrid';
import type { SliceClaim } from '../model';

/**
 * What a run now of a slice does, on whichever instance is asked: join the
 * slice's run under way anywhere, or run under its own time and hold the
 * slice's unclaimed grid ticks that could fall due while it runs, so that
 * no instance probes the slice beside it.
 *
 * @internal
 */
export type RunNowPlan =
  | { readonly join: number }
  | { readonly run: number; readonly hold: readonly number[] };

const HOLD_MARK = ' (run-now hold)';

/** A hold's claimant: the instance, marked, so a hold is never joined. */
export function holderOf(instanceId: string): string {
  return `${instanceId}${HOLD_MARK}`;
}

function isHold(claim: SliceClaim): boolean {
  return claim.claimedBy.endsWith(HOLD_MARK);
}

/**
 * Plans a run now at `at` from the slice's claims around it (see
 * {@link claimsWindowOf}). A run counts as under way while its claim is
 * younger than `underWayMs` and has no result; the latest such is joined.
 */
export function planRunNow(input: {
  sliceId: string;
  intervalMs: number;
  at: number;
  /** The slice's timeout and some room for a wait in the bulkhead. */
  underWayMs: number;
  claims: readonly SliceClaim[];
}): RunNowPlan {
  const { sliceId, intervalMs, at, underWayMs, claims } = input;
  const underWay = claims.filter(
    claim =>
      !claim.completed && !isHold(claim) && claim.claimedAt >= at - underWayMs,
  );
  if (underWay.length > 0) {
    return { join: Math.max(...underWay.map(claim => claim.scheduledAt)) };
  }
  if (claims.some(claim => claim.scheduledAt === at && !isHold(claim))) {
    return { join: at }; // a run now at this very millisecond, finished
  }
  // From the grid tick a first probe due now would be claimed under (the
  // one at or before the window) to the last that could fall due meanwhile,
  // and at least the next one: two runs now at once both hold it, so one
  // of them finds the other.
  const taken = new Set(claims.map(claim => claim.scheduledAt));
  const hold: number[] = [];
  const last = Math.max(
    at + underWayMs,
    claimKeyAt(sliceId, at, intervalMs) + intervalMs,
  );
  let tick = claimKeyAt(sliceId, at - underWayMs, intervalMs);
  for (; tick <= last; tick += intervalMs) {
    if (tick !== at && !taken.has(tick)) {
      hold.push(tick);
    }
  }
  return { run: at, hold };
}

/** The grid times whose claims {@link planRunNow} needs. */
export function claimsWindowOf(input: {
  intervalMs: number;
  at: number;
  underWayMs: number;
}): { from: number; to: number } {
  const { intervalMs, at, underWayMs } = input;
  // A tick claimed late may be up to an interval older than its claim.
  return { from: at - underWayMs - intervalMs, to: at + underWayMs };
}
