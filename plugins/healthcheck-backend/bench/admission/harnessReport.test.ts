import { type ModeMeasurements, SCENARIOS } from './bulkheadHarness';
import {
  backlogEvery,
  outageTarget,
  percentile,
  seedReport,
  seedTargets,
} from './harnessReport';

function measured(overrides: Partial<ModeMeasurements> = {}): ModeMeasurements {
  return {
    scenario: 'seed',
    mode: 'on',
    finalBacklog: 0,
    maxBacklog: 40,
    backlogTimeline: [
      [50, 40],
      [100, 20],
      [150, 0],
      [35_000, 0],
    ],
    skippedInFlight: 2,
    completions: 900,
    fullTimeouts: 13,
    shrunkTimeouts: 0,
    deferrals: { in_flight: 200, lane_full: 0, no_slot: 9 },
    healthyLatencyMs: [4, 5, 6],
    healthyQueueWaitMs: [0, 1, 2],
    healthyProbeMs: [4, 4, 4],
    healthyDue: 880,
    healthyRun: 880,
    allDue: 1100,
    windowHealthyQueueWaitMs: [0, 1, 2],
    windowHealthyDue: 880,
    windowHealthyRun: 880,
    failingSlotMsInWindow: 30_000,
    allSlotMsInWindow: 40_000,
    slotCapacityMsInWindow: 600_000,
    failingEndpointSuspectAtEnd: true,
    schedulerLatenessMs: [0, 1, 2],
    eventLoopDelayP99Ms: 12,
    eventLoopDelayMaxMs: 30,
    ...overrides,
  };
}

describe('percentile', () => {
  it.each<[number[], number, number]>([
    [[], 50, NaN],
    [[7], 99, 7],
    [[5, 1, 4, 2, 3], 50, 3],
    [[5, 1, 4, 2, 3], 100, 5],
    // Nearest rank: p99 of 200 values is the 198th smallest.
    [Array.from({ length: 200 }, (_, i) => i + 1), 99, 198],
  ])('of %j at p%i is %d', (values, p, expected) => {
    expect(percentile(values, p)).toBe(expected);
  });
});

describe('seedTargets', () => {
  const scenario = SCENARIOS.seed;
  const off = measured({ mode: 'off', completions: 300 });

  it('meets every target with the figures the issue asks for', () => {
    const targets = seedTargets(scenario, off, measured());
    expect(Object.values(targets).map(t => t.met)).toEqual([
      true,
      true,
      true,
      true,
      true,
    ]);
    expect(targets.completions.target).toBe('>= 3x off (900)');
  });

  it.each<
    [string, Partial<ModeMeasurements>, keyof ReturnType<typeof seedTargets>]
  >([
    ['a backlog left at the end', { finalBacklog: 1 }, 'finalBacklog'],
    ['a backlog above one tick per check', { maxBacklog: 241 }, 'maxBacklog'],
    ['fewer than 3x the completions', { completions: 899 }, 'completions'],
    [
      'healthy ticks run below 99% of due',
      { healthyDue: 1000, healthyRun: 989 },
      'healthyRun',
    ],
    [
      'a healthy queue wait p99 above 250 ms',
      { healthyQueueWaitMs: [...Array(98).fill(0), 251, 251] },
      'healthyQueueWait',
    ],
  ])('misses on %s', (_name, overrides, missed) => {
    const targets = seedTargets(scenario, off, measured(overrides));
    expect(
      Object.entries(targets)
        .filter(([, check]) => !check.met)
        .map(([name]) => name),
    ).toEqual([missed]);
  });
});

describe('outageTarget', () => {
  it.each<[number, number, boolean]>([
    [550_000, 137_500, true],
    [550_000, 137_501, false],
    [550_000, 55_000, true],
  ])(
    'failing checks holding %i ms off and %i ms on: met %s',
    (offMs, onMs, met) => {
      expect(
        outageTarget(
          measured({ failingSlotMsInWindow: offMs }),
          measured({ failingSlotMsInWindow: onMs }),
        ),
      ).toEqual({ target: '<= 25% of off', met, ratio: onMs / offMs });
    },
  );
});

describe('backlogEvery', () => {
  it('reads the last sample at or before each mark', () => {
    const timeline = [
      [40, 7],
      [1010, 9],
      [1990, 3],
      [2020, 0],
      [3000, 0],
    ] as const;
    expect(backlogEvery(timeline, 1000, 3000)).toBe('7 3 0');
  });

  it('shows a mark before the first sample as unknown', () => {
    expect(backlogEvery([[1500, 4]], 1000, 2000)).toBe('- 4');
  });
});

describe('seedReport', () => {
  it('puts both modes and the verdicts side by side', () => {
    const report = seedReport(
      SCENARIOS.seed,
      measured({ mode: 'off', completions: 400, finalBacklog: 220 }),
      measured(),
    );
    expect(report).toMatch(/final backlog.*\s220\s+0\s+0\s+met/);
    expect(report).toMatch(/completions\s+400\s+900 \(2\.25x\).*NOT MET/);
    expect(report).toMatch(/healthy ticks run \/ due.*880 \/ 880 \(100\.0%\)/);
  });
});
