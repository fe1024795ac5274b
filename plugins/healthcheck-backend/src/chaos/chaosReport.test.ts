import type { TickFigures } from './chaosFigures';
import { chaosReport, type ScenarioResult } from './chaosReport';

function ticks(overrides: Partial<TickFigures> = {}): TickFigures {
  return {
    up: { due: 200, probed: 200, missed: [] },
    fault: { due: 700, probed: 700, missed: [] },
    takeover: { due: 0, probed: 0, missed: [] },
    runTwice: [],
    lost: [],
    cutOffByKill: 0,
    ...overrides,
  };
}

const clean: ScenarioResult = {
  name: 'db-drop',
  ticks: ticks(),
  transitions: { real: 3, once: 3, lost: [], repeats: 0, spurious: 0 },
  rollupsCorrectAfterMs: 4_200,
  rollupWatchMs: 20_000,
  notes: [],
};

describe('chaosReport', () => {
  it('passes a scenario that meets every target', () => {
    const report = chaosReport([clean]);
    expect(report.passed).toBe(true);
    expect(report.misses).toEqual([]);
    expect(report.table.split('\n')).toHaveLength(3);
    expect(report.table).toContain('100.0% (200/200)');
    expect(report.table).toContain('4.2 s');
    expect(report.table).toMatch(/db-drop .* ok$/m);
  });

  it('marks each missed figure and lists it with examples', () => {
    const report = chaosReport([
      {
        ...clean,
        ticks: ticks({
          fault: { due: 700, probed: 0, missed: ['s@1', 's@2', 's@3', 's@4'] },
          lost: ['s@1 (outage): no run in the database'],
        }),
        transitions: {
          real: 3,
          once: 1,
          lost: ['alpha/staging failing at 12:00:01: never announced'],
          repeats: 0,
          spurious: 0,
        },
        rollupsCorrectAfterMs: null,
      },
    ]);
    expect(report.passed).toBe(false);
    expect(report.table).toContain('0.0% (0/700) ✗');
    expect(report.table).toContain('never (> 20 s) ✗');
    expect(report.table).toContain('FAILED (5)');
    expect(report.misses).toEqual([
      'db-drop: due ticks probed (database away or slow) 0.0% (0/700), target >= 99%; not probed: s@1; s@2; s@3, +1 more',
      'db-drop: runs lost 1, target 0: s@1 (outage): no run in the database',
      'db-drop: transitions lost 1, target 0: alpha/staging failing at 12:00:01: never announced',
      'db-drop: notified once per real transition 1/3, target each real transition once, nothing else',
      'db-drop: rollups correct after never (> 20 s), target <= 10 s',
    ]);
  });

  it('judges the rows of what people receive by what the owner has: each transition once, a repeat or a loss is a miss', () => {
    const noFault = { due: 0, probed: 0, missed: [] };
    const report = chaosReport([
      {
        name: 'notify-5xx',
        ticks: ticks({ fault: noFault }),
        transitions: { real: 4, once: 4, lost: [], repeats: 0, spurious: 0 },
        rollupsCorrectAfterMs: 0,
        rollupWatchMs: 20_000,
        notes: [],
      },
      {
        name: 'rolling-deploy',
        ticks: ticks({
          fault: noFault,
          takeover: { due: 90, probed: 61, missed: [] },
        }),
        transitions: { real: 6, once: 5, lost: [], repeats: 1, spurious: 0 },
        rollupsCorrectAfterMs: 1_500,
        rollupWatchMs: 20_000,
        notes: [],
      },
      {
        name: 'kill-mid-transition',
        ticks: ticks({ fault: noFault }),
        transitions: {
          real: 2,
          once: 1,
          lost: ['charlie/production healed at +31 s, never announced'],
          repeats: 0,
          spurious: 0,
        },
        rollupsCorrectAfterMs: 2_000,
        rollupWatchMs: 20_000,
        notes: [],
      },
    ]);
    // No database fault: its column is empty, and takeovers have no target.
    expect(report.table).toMatch(
      /^notify-5xx +100\.0% \(200\/200\) +- +0 +0 +0 +4\/4 +0\.0 s +- +ok$/m,
    );
    expect(report.table).toContain('5/6 +1 repeated ✗');
    expect(report.misses).toEqual([
      'rolling-deploy: notified once per real transition 5/6 +1 repeated, target each real transition once, nothing else',
      'kill-mid-transition: transitions lost 1, target 0: charlie/production healed at +31 s, never announced',
      'kill-mid-transition: notified once per real transition 1/2, target each real transition once, nothing else',
    ]);
  });

  it('judges memory by the instance that grew most; shrinking is no leak', () => {
    const memory = (instance: string, beforeKiB: number, afterKiB: number) => ({
      instance,
      beforeKiB,
      afterKiB,
      heapBeforeKiB: 92_160,
      heapAfterKiB: 93_184,
    });
    const report = chaosReport([
      {
        name: 'churn',
        ticks: ticks(),
        memory: [
          memory('chaos-a', 200_000, 150_000),
          memory('chaos-b', 200_000, 240_000),
        ],
        notes: [],
      },
      {
        name: 'churn again',
        ticks: ticks(),
        memory: [memory('chaos-a', 240_000, 200_000)],
        notes: [],
      },
    ]);
    expect(report.table).toContain('+20.0% (chaos-b) ✗');
    expect(report.table).toContain('-16.7% (chaos-a)  ');
    expect(report.misses).toEqual([
      'churn: resident memory chaos-a 195 -> 146 MiB (heap 90 -> 91), chaos-b 195 -> 234 MiB (heap 90 -> 91), target at most +10%',
    ]);
  });

  it('fails a scenario that did not finish', () => {
    const report = chaosReport([
      { name: 'pg-restart', error: 'pg_ctlcluster exited 1', notes: [] },
    ]);
    expect(report.passed).toBe(false);
    expect(report.misses).toEqual([
      'pg-restart: did not finish: pg_ctlcluster exited 1',
    ]);
  });
});
