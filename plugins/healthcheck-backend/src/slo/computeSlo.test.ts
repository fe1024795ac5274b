import type { ResolvedServiceLevelObjective } from '@vigil/plugin-healthcheck-common';
import { HOUR_MS } from '../history/aggregateRuns';
import { computeSlo, sloWindow } from './computeSlo';
import { SloHour, SloSliceHistory } from './measureIndicator';

const T0 = Date.UTC(2026, 10, 2);
const MINUTE = 60_000;
const DAY_MS = 86_400_000;

const objective: ResolvedServiceLevelObjective = {
  systemRef: 'system:default/checkout',
  environment: 'production',
  indicator: { type: 'availability' },
  window: { type: 'rolling', durationMs: DAY_MS },
  budgetingMethod: 'Timeslices',
  target: 0.99,
};

const upHour = (hourStart: number): SloHour => ({
  hourStart,
  upSeconds: 3600,
  downSeconds: 0,
  runCount: 60,
  failureCount: 0,
  endStatus: 'healthy',
});

/**
 * A day: 23 aggregated hours up, then a last raw hour down for 10 minutes,
 * from 30 to 40 minutes into it.
 */
function dayWithTenMinutesDown(): SloSliceHistory {
  const lastHour = T0 + 23 * HOUR_MS;
  return {
    hours: Array.from({ length: 23 }, (_, index) =>
      upHour(T0 + index * HOUR_MS),
    ),
    rawRanges: [{ from: lastHour, to: lastHour + HOUR_MS }],
    runs: [
      { startedAt: lastHour, status: 'healthy', outcome: 'pass' },
      {
        startedAt: lastHour + 30 * MINUTE,
        status: 'unhealthy',
        outcome: 'fail',
      },
      {
        startedAt: lastHour + 40 * MINUTE,
        status: 'healthy',
        outcome: 'pass',
      },
    ],
  };
}

describe('computeSlo', () => {
  const now = T0 + DAY_MS;

  it('gives attainment, error budget and burn rates over each window, worked by hand', () => {
    const status = computeSlo(objective, [dayWithTenMinutesDown()], now);
    expect(status.window).toEqual({ from: T0, to: now });
    expect(status.unit).toBe('seconds');
    expect(status.good).toBe(86_400 - 600);
    expect(status.bad).toBe(600);
    expect(status.attainment).toBeCloseTo(85_800 / 86_400, 12);
    // The budget is 1% of the day, 864 s; 600 s of it are spent.
    expect(status.errorBudget.total).toBeCloseTo(864, 9);
    expect(status.errorBudget.spent).toBe(600);
    expect(status.errorBudget.remaining).toBeCloseTo(264, 9);
    expect(status.errorBudget.remainingRatio).toBeCloseTo(264 / 864, 12);
    // Burn rate: the bad share of the window over the allowed 1%.
    expect(status.burnRates['5m']).toBe(0);
    expect(status.burnRates['30m']).toBeCloseTo(10 / 30 / 0.01, 9);
    expect(status.burnRates['1h']).toBeCloseTo(10 / 60 / 0.01, 9);
    expect(status.burnRates['6h']).toBeCloseTo(10 / 360 / 0.01, 9);
    // Three days back the history holds one day; unknown time is not counted.
    expect(status.burnRates['3d']).toBeCloseTo(600 / 86_400 / 0.01, 9);
  });

  it('adds up the slices of a system-level objective', () => {
    const status = computeSlo(
      objective,
      [dayWithTenMinutesDown(), dayWithTenMinutesDown()],
      now,
    );
    expect(status.good).toBe(2 * 85_800);
    expect(status.bad).toBe(1_200);
    expect(status.attainment).toBeCloseTo(85_800 / 86_400, 12);
    expect(status.burnRates['1h']).toBeCloseTo(10 / 60 / 0.01, 9);
  });

  it('leaves burn rates and attainment undefined where nothing counted, and the budget at zero', () => {
    const maintained = {
      ...dayWithTenMinutesDown(),
      excluded: [{ from: T0, to: now }],
    };
    const status = computeSlo(objective, [maintained], now);
    expect(status.attainment).toBeUndefined();
    expect(status.errorBudget).toEqual({
      total: 0,
      spent: 0,
      remaining: 0,
      remainingRatio: undefined,
    });
    expect(Object.values(status.burnRates)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('shows an overspent budget as a negative remainder', () => {
    const status = computeSlo(
      { ...objective, target: 0.999 },
      [dayWithTenMinutesDown()],
      now,
    );
    // 0.1% of 86,400 s is 86.4 s; 600 s were spent.
    expect(status.errorBudget.remaining).toBeCloseTo(86.4 - 600, 9);
    expect(status.errorBudget.remainingRatio).toBeCloseTo(
      (86.4 - 600) / 86.4,
      12,
    );
  });
});

describe('sloWindow', () => {
  it('is the last days of a rolling window', () => {
    expect(sloWindow({ type: 'rolling', durationMs: 28 * DAY_MS }, T0)).toEqual(
      { from: T0 - 28 * DAY_MS, to: T0 },
    );
  });

  it('is the calendar month so far, from its first day in UTC', () => {
    const midMonth = Date.UTC(2026, 1, 15, 12, 30);
    expect(
      sloWindow({ type: 'calendarMonth', timeZone: 'UTC' }, midMonth),
    ).toEqual({ from: Date.UTC(2026, 1, 1), to: midMonth });
  });
});
