import fc from 'fast-check';
import { HOUR_MS, summarizeHours } from '../history/aggregateRuns';
import type { HistoryRun } from '../history/timeWeightedUptime';
import { Interval } from './intervals';
import {
  measureSlice,
  SloHour,
  SloIndicator,
  SloSliceHistory,
} from './measureIndicator';

const T0 = Date.UTC(2026, 10, 2);
const MINUTE = 60_000;
const at = (minutes: number) => T0 + minutes * MINUTE;

const availability: SloIndicator = {
  indicator: { type: 'availability' },
  budgetingMethod: 'Timeslices',
};
const occurrences: SloIndicator = {
  indicator: { type: 'availability' },
  budgetingMethod: 'Occurrences',
};
const latencyP95Below300ms: SloIndicator = {
  indicator: { type: 'latency', percentile: 95, thresholdMs: 300 },
  budgetingMethod: 'Timeslices',
};

const pass = (minutes: number, durationMs = 100): HistoryRun => ({
  startedAt: at(minutes),
  status: 'healthy',
  outcome: 'pass',
  durationMs,
});
const fail = (minutes: number, durationMs = 100): HistoryRun => ({
  startedAt: at(minutes),
  status: 'unhealthy',
  outcome: 'fail',
  durationMs,
});
const pauseMarker = (minutes: number): HistoryRun => ({
  startedAt: at(minutes),
  status: 'paused',
  outcome: null,
});

/**
 * Four hours: up 0-30, down 30-60, paused 60-90, up 90-150, down 150-210,
 * up 210-240; a maintenance window 140-200 straddles the hour at 180.
 */
const runs = [
  pass(0),
  fail(30),
  pauseMarker(60),
  pass(90),
  fail(150),
  pass(210),
];
const maintenance: Interval = { from: at(140), to: at(200) };
const fourHours: Interval = { from: T0, to: at(240) };

/** What aggregation would have stored for these runs. */
function hoursOf(history: readonly HistoryRun[], range: Interval): SloHour[] {
  return summarizeHours({ ...range, runs: history }).map(hour => ({
    ...hour,
    endStatus: hour.statusAtEnd,
  }));
}

function rawOnly(history: readonly HistoryRun[], range: Interval) {
  return { hours: [], rawRanges: [range], runs: history };
}

describe('measureSlice', () => {
  describe('availability, time-weighted', () => {
    it('counts up and down time from raw runs, leaving out the pause and the maintenance window', () => {
      // good: 0-30, 90-140, 210-240 = 110 min; bad: 30-60, 200-210 = 40 min.
      expect(
        measureSlice(
          { ...rawOnly(runs, fourHours), excluded: [maintenance] },
          fourHours,
          availability,
        ),
      ).toEqual({ good: 110 * 60, bad: 40 * 60 });
    });

    it('counts an hour the maintenance covers in part by the rest of it, in proportion, when only its aggregate is left', () => {
      // Hour 2 (120-180): up 30, down 30, 20 of 60 min counted -> 10 and 10.
      // Hour 3 (180-240): down 30, up 30, 40 of 60 min counted -> 20 and 20.
      // Hours 0 and 1 are whole: up 30 + 30 (the pause is neither), down 30.
      expect(
        measureSlice(
          {
            hours: hoursOf(runs, fourHours),
            rawRanges: [],
            runs: [],
            excluded: [maintenance],
          },
          fourHours,
          availability,
        ),
      ).toEqual({ good: 90 * 60, bad: 60 * 60 });
    });

    it('is exact again when the raw runs of the straddled hours are given, starting from the status the hour before ended in', () => {
      const hours = hoursOf(runs, fourHours);
      const straddled = { from: at(120), to: at(240) };
      expect(
        measureSlice(
          {
            hours,
            rawRanges: [straddled],
            runs: runs.filter(run => run.startedAt >= straddled.from),
            excluded: [maintenance],
          },
          fourHours,
          availability,
        ),
      ).toEqual({ good: 110 * 60, bad: 40 * 60 });
    });

    it('counts only the part of the history inside the range', () => {
      // 20-100: up 20-30, down 30-60, paused 60-90, up 90-100.
      expect(
        measureSlice(
          rawOnly(runs, fourHours),
          { from: at(20), to: at(100) },
          availability,
        ),
      ).toEqual({ good: 20 * 60, bad: 30 * 60 });
    });

    it('counts nothing where every moment is excluded', () => {
      expect(
        measureSlice(
          { ...rawOnly(runs, fourHours), excluded: [fourHours] },
          fourHours,
          availability,
        ),
      ).toEqual({ good: 0, bad: 0 });
    });
  });

  it('counts runs by outcome with Occurrences, not the pause marker nor the failure inside maintenance', () => {
    expect(
      measureSlice(
        { ...rawOnly(runs, fourHours), excluded: [maintenance] },
        fourHours,
        occurrences,
      ),
    ).toEqual({ good: 3, bad: 1 });
  });

  it('judges latency per hour by its percentile, an hour counting for its counted part', () => {
    const timed = [
      // Hour 0: p95 of 100, 200, 400 is 400: bad.
      pass(0, 100),
      pass(20, 200),
      pass(40, 400),
      // Hour 1: p95 of 100, 250 is 250: good.
      pass(60, 100),
      pass(90, 250),
      // Hour 2, half in maintenance: the slow run is in it; 100 is good.
      pass(120, 100),
      pass(170, 900),
      // Hour 3 has no runs: nothing to judge.
      pauseMarker(180),
    ];
    const halfOfHour2 = { from: at(150), to: at(180) };
    const expected = { good: 1.5, bad: 1 };
    expect(
      measureSlice(
        { ...rawOnly(timed, fourHours), excluded: [halfOfHour2] },
        fourHours,
        latencyP95Below300ms,
      ),
    ).toEqual(expected);
    // From aggregates hour 2 is judged as a whole (p95 900: bad) for its half.
    expect(
      measureSlice(
        {
          hours: hoursOf(timed, fourHours),
          rawRanges: [],
          runs: [],
          excluded: [halfOfHour2],
        },
        fourHours,
        latencyP95Below300ms,
      ),
    ).toEqual({ good: 1, bad: 1.5 });
  });

  it('refuses raw ranges that are not whole hours', () => {
    expect(() =>
      measureSlice(
        { hours: [], rawRanges: [{ from: at(5), to: at(60) }], runs: [] },
        fourHours,
        availability,
      ),
    ).toThrow(
      'A raw range must be whole hours, got [2026-11-02T00:05:00.000Z, 2026-11-02T01:00:00.000Z)',
    );
  });
});

const RUN_SPACING_MS = 5 * MINUTE;

/** One probe's outcome: mostly healthy; mostly fast, now and then slow. */
const runOutcomeArb = fc.record({
  status: fc.oneof(
    { weight: 5, arbitrary: fc.constant('paused' as const) },
    { weight: 25, arbitrary: fc.constant('unhealthy' as const) },
    { weight: 10, arbitrary: fc.constant('degraded' as const) },
    { weight: 60, arbitrary: fc.constant('healthy' as const) },
  ),
  // About a third of the hours miss a p95 of 300 ms, so the latency
  // indicator sees both.
  durationMs: fc.oneof(
    { weight: 97, arbitrary: fc.integer({ min: 50, max: 249 }) },
    { weight: 3, arbitrary: fc.integer({ min: 400, max: 899 }) },
  ),
});

type RunOutcome = typeof runOutcomeArb extends fc.Arbitrary<infer T>
  ? T
  : never;

/** Outcomes of a run every 5 minutes, for `hours` hours. */
const runOutcomesArb = (hours: number) =>
  fc.array(runOutcomeArb, {
    minLength: (hours * HOUR_MS) / RUN_SPACING_MS,
    maxLength: (hours * HOUR_MS) / RUN_SPACING_MS,
  });

/** A run every 5 minutes from `from`, one per outcome. */
function runsFrom(from: number, outcomes: readonly RunOutcome[]): HistoryRun[] {
  return outcomes.map(({ status, durationMs }, i): HistoryRun => {
    const startedAt = from + i * RUN_SPACING_MS;
    switch (status) {
      case 'paused':
        return { startedAt, status, outcome: null };
      case 'unhealthy':
        return { startedAt, status, outcome: 'fail', durationMs };
      case 'degraded':
        return { startedAt, status, outcome: 'degraded', durationMs };
      default:
        return { startedAt, status, outcome: 'pass', durationMs };
    }
  });
}

/**
 * A history of 3 to 8 hours, where whole hours of excluded time go, and
 * the runs of that time were it in maintenance.
 */
const excludedTimeArb = fc
  .record({
    hours: fc.integer({ min: 3, max: 8 }),
    addedHours: fc.integer({ min: 1, max: 3 }),
  })
  .chain(({ hours, addedHours }) =>
    fc.record({
      hours: fc.constant(hours),
      addedHours: fc.constant(addedHours),
      // Inserted at an hour inside the range.
      insertAtHour: fc.integer({ min: 1, max: hours - 1 }),
      history: runOutcomesArb(hours),
      inMaintenance: runOutcomesArb(addedHours),
    }),
  );

function attainment(
  history: SloSliceHistory,
  range: Interval,
  indicator: SloIndicator,
) {
  const { good, bad } = measureSlice(history, range, indicator);
  return good + bad > 0 ? good / (good + bad) : undefined;
}

/** The same runs as aggregated hours, with only the last hour raw. */
function aggregated(
  history: readonly HistoryRun[],
  range: Interval,
  excluded: Interval[],
): SloSliceHistory {
  const lastHour = { from: range.to - HOUR_MS, to: range.to };
  return {
    hours: hoursOf(history, { from: range.from, to: lastHour.from }),
    rawRanges: [lastHour],
    runs: history.filter(run => run.startedAt >= lastHour.from),
    excluded,
  };
}

describe('attainment when only excluded time is added (property)', () => {
  const indicators = { availability, occurrences, latencyP95Below300ms };

  it.each(Object.entries(indicators))(
    'never changes, for %s, whether the time is paused or in maintenance, from runs or from hours',
    (_name, indicator) => {
      fc.assert(
        fc.property(excludedTimeArb, scenario => {
          const range = { from: T0, to: T0 + scenario.hours * HOUR_MS };
          const history = runsFrom(range.from, scenario.history);
          const insertAt = T0 + scenario.insertAtHour * HOUR_MS;
          const added = scenario.addedHours * HOUR_MS;
          const shifted = history.map(run =>
            run.startedAt >= insertAt
              ? { ...run, startedAt: run.startedAt + added }
              : run,
          );
          const longer = { from: range.from, to: range.to + added };
          const gap = { from: insertAt, to: insertAt + added };
          const paused = [...shifted, pauseMarkerAt(insertAt)];
          // In maintenance the probes go on, and anything may happen.
          const inMaintenance = [
            ...shifted,
            ...runsFrom(gap.from, scenario.inMaintenance),
          ];

          const before = attainment(rawOnly(history, range), range, indicator);
          expect(before).toEqual(expect.any(Number));
          for (const [variant, value] of [
            [
              'paused, raw',
              attainment(rawOnly(paused, longer), longer, indicator),
            ],
            [
              'maintenance, raw',
              attainment(
                { ...rawOnly(inMaintenance, longer), excluded: [gap] },
                longer,
                indicator,
              ),
            ],
            [
              'paused, hours',
              attainment(aggregated(paused, longer, []), longer, indicator),
            ],
            [
              'maintenance, hours',
              attainment(
                aggregated(inMaintenance, longer, [gap]),
                longer,
                indicator,
              ),
            ],
          ] as const) {
            expect({ variant, value }).toEqual({
              variant,
              value: expect.closeTo(before!, 12),
            });
          }
        }),
        { numRuns: 60 },
      );
    },
  );
});

function pauseMarkerAt(time: number): HistoryRun {
  return { startedAt: time, status: 'paused', outcome: null };
}
