import { HOUR_MS } from '../history/aggregateRuns';
import { budgetBurnDown, burnDownStepMs } from './budgetBurnDown';
import { SloHour, SloSliceHistory } from './measureIndicator';

const T0 = Date.UTC(2026, 10, 2);
const DAY_MS = 24 * HOUR_MS;

const availability = {
  indicator: { type: 'availability' },
  budgetingMethod: 'Timeslices',
} as const;

const hour = (hourStart: number, downSeconds: number): SloHour => ({
  hourStart,
  upSeconds: 3600 - downSeconds,
  downSeconds,
  runCount: 60,
  failureCount: downSeconds > 0 ? 1 : 0,
  endStatus: 'healthy',
});

/** Three days of hours, down for `downByDay[d]` seconds in hour 12 of day d. */
function threeDays(downByDay: number[]): SloSliceHistory {
  return {
    hours: Array.from({ length: 72 }, (_, index) => {
      const day = Math.floor(index / 24);
      return hour(T0 + index * HOUR_MS, index % 24 === 12 ? downByDay[day] : 0);
    }),
    rawRanges: [],
    runs: [],
  };
}

describe('burnDownStepMs', () => {
  it('takes about thirty whole-hour steps across a window, never less than an hour', () => {
    expect(burnDownStepMs({ from: 0, to: 30 * DAY_MS })).toBe(DAY_MS);
    expect(burnDownStepMs({ from: 0, to: 7 * DAY_MS })).toBe(6 * HOUR_MS);
    expect(burnDownStepMs({ from: 0, to: 90 * 60_000 })).toBe(HOUR_MS);
  });
});

describe('budgetBurnDown', () => {
  const window = { from: T0, to: T0 + 3 * DAY_MS };

  it('starts untouched and takes each step’s bad from the budget, ending at what is left now', () => {
    // 99% over 3 days: 2592 s of budget; 600 s down on day 1, 1200 s on day 3.
    const budget = (0.01 * 3 * DAY_MS) / 1000;
    const points = budgetBurnDown(
      availability,
      [threeDays([600, 0, 1200])],
      window,
      budget,
    );
    // Steps of 3 hours: 24 of them after the starting point.
    expect(points).toHaveLength(25);
    expect(points[0]).toEqual({ at: T0, remainingRatio: 1 });
    const at = (hours: number) =>
      points.find(p => p.at === T0 + hours * HOUR_MS)!.remainingRatio;
    expect(at(12)).toBe(1);
    expect(at(15)).toBeCloseTo((2592 - 600) / 2592, 12);
    expect(at(48)).toBeCloseTo((2592 - 600) / 2592, 12);
    expect(points[points.length - 1]).toEqual({
      at: window.to,
      remainingRatio: expect.closeTo((2592 - 1800) / 2592, 12),
    });
  });

  it('goes below zero once the budget is overspent', () => {
    const points = budgetBurnDown(
      availability,
      [threeDays([3600, 0, 0])],
      window,
      2592,
    );
    expect(points[points.length - 1].remainingRatio).toBeCloseTo(
      (2592 - 3600) / 2592,
      12,
    );
  });

  it('ends the last step at the window’s end when the window is not a whole number of steps', () => {
    const partial = { from: T0, to: T0 + 2 * HOUR_MS + 30 * 60_000 };
    const points = budgetBurnDown(
      availability,
      [threeDays([0, 0, 0])],
      partial,
      10,
    );
    expect(points.map(p => p.at)).toEqual([
      T0,
      T0 + HOUR_MS,
      T0 + 2 * HOUR_MS,
      partial.to,
    ]);
  });

  it('is empty without a budget: nothing counted, nothing to burn', () => {
    expect(budgetBurnDown(availability, [], window, 0)).toEqual([]);
  });
});
