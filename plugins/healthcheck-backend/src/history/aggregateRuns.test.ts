import {
  HOUR_MS,
  hourStartOf,
  nearestRankPercentile,
  runStatistics,
  summarizeHours,
  summarizeWindow,
} from './aggregateRuns';
import type { HistoryRun } from './timeWeightedUptime';

/** 10:00 UTC on 1 December 2026. */
const TEN = Date.UTC(2026, 11, 1, 10);
const minute = 60_000;
const at = (minutes: number) => TEN + minutes * minute;

function run(
  minutes: number,
  outcome: 'pass' | 'degraded' | 'fail',
  durationMs: number,
  status = outcome === 'fail' ? 'unhealthy' : 'healthy',
): HistoryRun {
  return { startedAt: at(minutes), outcome, durationMs, status };
}

describe('nearestRankPercentile', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => i + 1);

  it('is the value at rank ceil(p/100 * n) of the sorted values', () => {
    expect(nearestRankPercentile(hundred, 50)).toBe(50);
    expect(nearestRankPercentile(hundred, 95)).toBe(95);
    expect(nearestRankPercentile(hundred, 99)).toBe(99);
    expect(nearestRankPercentile([10, 20, 30, 40], 50)).toBe(20);
    expect(nearestRankPercentile([10, 20, 30, 40], 95)).toBe(40);
  });

  it('is always one of the values, never interpolated', () => {
    expect(nearestRankPercentile([100, 300], 50)).toBe(100);
    expect(nearestRankPercentile([100, 300], 51)).toBe(300);
    expect(nearestRankPercentile([7], 99)).toBe(7);
    expect(nearestRankPercentile([7, 9], 0)).toBe(7);
  });

  it('is undefined for no values', () => {
    expect(nearestRankPercentile([], 50)).toBeUndefined();
  });
});

describe('runStatistics', () => {
  it('counts the runs and failures that started in the window, with latency percentiles of their durations', () => {
    const runs = [
      run(-1, 'fail', 9_999),
      ...Array.from({ length: 20 }, (_, i) =>
        run(i, i < 3 ? 'fail' : 'pass', (i + 1) * 10),
      ),
      run(60, 'fail', 9_999),
    ];
    expect(runStatistics(runs, at(0), at(60))).toEqual({
      runCount: 20,
      failureCount: 3,
      latencyP50Ms: 100,
      latencyP95Ms: 190,
      latencyP99Ms: 200,
    });
  });

  it('leaves pause markers out: they are not runs', () => {
    const runs: HistoryRun[] = [
      run(0, 'pass', 50),
      { startedAt: at(10), status: 'paused', outcome: null, durationMs: 0 },
    ];
    expect(runStatistics(runs, at(0), at(60))).toMatchObject({
      runCount: 1,
      latencyP50Ms: 50,
    });
  });

  it('has no latency without runs', () => {
    expect(runStatistics([], at(0), at(60))).toEqual({
      runCount: 0,
      failureCount: 0,
      latencyP50Ms: undefined,
      latencyP95Ms: undefined,
      latencyP99Ms: undefined,
    });
  });

  it('counts a run without a duration but leaves it out of latency', () => {
    const runs: HistoryRun[] = [
      run(0, 'pass', 40),
      {
        startedAt: at(1),
        status: 'healthy',
        outcome: 'pass',
        durationMs: null,
      },
    ];
    expect(runStatistics(runs, at(0), at(60))).toMatchObject({
      runCount: 2,
      latencyP99Ms: 40,
    });
  });
});

describe('summarizeWindow', () => {
  it('puts time and runs of one window together', () => {
    const runs = [
      run(0, 'pass', 100),
      run(10, 'fail', 5_000, 'healthy'),
      run(20, 'fail', 5_000),
      run(40, 'pass', 120),
    ];
    expect(summarizeWindow({ from: at(0), to: at(60), runs })).toEqual({
      from: at(0),
      to: at(60),
      upSeconds: 40 * 60,
      downSeconds: 20 * 60,
      unknownSeconds: 0,
      pausedSeconds: 0,
      uptime: 2 / 3,
      statusAtStart: undefined,
      statusAtEnd: 'healthy',
      runCount: 4,
      failureCount: 2,
      latencyP50Ms: 120,
      latencyP95Ms: 5_000,
      latencyP99Ms: 5_000,
    });
  });
});

describe('hourStartOf', () => {
  it('rounds down to a multiple of an hour', () => {
    expect(hourStartOf(at(59))).toBe(TEN);
    expect(hourStartOf(at(60))).toBe(TEN + HOUR_MS);
    expect(hourStartOf(TEN)).toBe(TEN);
  });
});

describe('summarizeHours', () => {
  it('gives one summary per hour, carrying the status across hours without runs', () => {
    // Unhealthy from 10:30; nothing runs until 12:15.
    const runs = [
      run(0, 'pass', 100),
      run(30, 'fail', 200),
      run(135, 'pass', 300),
    ];
    const hours = summarizeHours({ from: at(0), to: at(180), runs });
    expect(
      hours.map(h => [
        h.hourStart,
        h.upSeconds,
        h.downSeconds,
        h.runCount,
        h.statusAtStart,
      ]),
    ).toEqual([
      [at(0), 1800, 1800, 2, undefined],
      [at(60), 0, 3600, 0, 'unhealthy'],
      [at(120), 45 * 60, 15 * 60, 1, 'unhealthy'],
    ]);
    expect(hours[2]).toMatchObject({ latencyP50Ms: 300, uptime: 0.75 });
  });

  it('gives a partial first and last hour when the window starts or ends inside one', () => {
    const hours = summarizeHours({
      from: at(30),
      to: at(90),
      statusAtStart: 'healthy',
      runs: [run(70, 'fail', 10)],
    });
    expect(hours).toMatchObject([
      { hourStart: at(0), from: at(30), to: at(60), upSeconds: 1800 },
      {
        hourStart: at(60),
        from: at(60),
        to: at(90),
        upSeconds: 600,
        downSeconds: 1200,
        runCount: 1,
      },
    ]);
  });

  it('adds up to the same as one window over the same runs', () => {
    const runs = [
      run(-10, 'pass', 1),
      run(5, 'fail', 2),
      { startedAt: at(50), status: 'paused', outcome: null },
      run(100, 'pass', 3),
      run(170, 'fail', 4),
    ];
    const whole = summarizeWindow({ from: at(0), to: at(180), runs });
    const hours = summarizeHours({ from: at(0), to: at(180), runs });
    const sum = (key: 'upSeconds' | 'downSeconds' | 'pausedSeconds') =>
      hours.reduce((total, h) => total + h[key], 0);
    expect(sum('upSeconds')).toBe(whole.upSeconds);
    expect(sum('downSeconds')).toBe(whole.downSeconds);
    expect(sum('pausedSeconds')).toBe(whole.pausedSeconds);
    expect(hours.reduce((n, h) => n + h.runCount, 0)).toBe(whole.runCount);
  });

  it('gives nothing for an empty window', () => {
    expect(summarizeHours({ from: at(0), to: at(0), runs: [] })).toEqual([]);
  });
});
