import { ObjectiveStatus } from '@vigil/plugin-healthcheck-common';
import {
  describeAlert,
  describeAttainment,
  describeBudget,
  describeIndicator,
  describeWindow,
  formatAttainment,
  formatBudgetLeft,
  formatBurnRate,
  formatTarget,
} from './sloText';

const status = (
  errorBudget: ObjectiveStatus['status']['errorBudget'],
  unit: ObjectiveStatus['status']['unit'] = 'seconds',
) => ({ errorBudget, unit } as ObjectiveStatus['status']);

describe('SLO text', () => {
  it('never rounds attainment up to the target', () => {
    expect(formatAttainment(0.99899)).toBe('99.89%');
    expect(formatAttainment(0.99937)).toBe('99.93%');
    expect(formatAttainment(null)).toBe('no data');
  });

  it('writes targets as declared', () => {
    expect(formatTarget(0.999)).toBe('99.9%');
    expect(formatTarget(0.99995)).toBe('99.995%');
  });

  it('writes the budget left rounded down, overspent below zero', () => {
    expect(formatBudgetLeft(0.379)).toBe('37%');
    expect(formatBudgetLeft(0.004)).toBe('0%');
    expect(formatBudgetLeft(-0.001)).toBe('-1%');
    expect(formatBudgetLeft(null)).toBe('no budget yet');
  });

  it('writes burn rates with a sign of how many times the budget pace', () => {
    expect(formatBurnRate(0)).toBe('0×');
    expect(formatBurnRate(0.456)).toBe('0.46×');
    expect(formatBurnRate(33.333)).toBe('33.3×');
    expect(formatBurnRate(null)).toBe('–');
  });

  it('says what counts as good and over which window', () => {
    expect(describeIndicator({ type: 'availability' })).toBe('availability');
    expect(
      describeIndicator({ type: 'latency', percentile: 95, thresholdMs: 300 }),
    ).toBe('p95 latency under 300 ms');
    expect(
      describeWindow({ type: 'rolling', durationMs: 30 * 86_400_000 }),
    ).toBe('rolling 30 days');
    expect(describeWindow({ type: 'calendarMonth' })).toBe(
      'this calendar month',
    );
  });

  it('puts the budget in the objective’s unit', () => {
    expect(
      describeBudget(
        status({
          total: 2592,
          spent: 1620,
          remaining: 972,
          remainingRatio: 0.375,
        }),
      ),
    ).toBe('37% of the error budget left: 27 min of 43 min spent');
    expect(
      describeBudget(
        status({
          total: 18,
          spent: 600,
          remaining: -582,
          remainingRatio: -32.3,
        }),
      ),
    ).toBe('Error budget overspent: 10 min of 18 s spent');
    expect(
      describeBudget(
        status(
          { total: 4.3, spent: 1, remaining: 3.3, remainingRatio: 0.767 },
          'runs',
        ),
      ),
    ).toBe('76% of the error budget left: 1 run of 4.3 runs spent');
    expect(
      describeBudget(
        status({ total: 0, spent: 0, remaining: 0, remainingRatio: null }),
      ),
    ).toBe('No error budget yet: nothing counted in the window');
  });

  it('says whether the objective is met', () => {
    const objective = (attainment: number | null) =>
      ({ target: 0.999, status: { attainment } } as ObjectiveStatus);
    expect(describeAttainment(objective(0.9995))).toBe('Meeting the objective');
    expect(describeAttainment(objective(0.998))).toBe('Missing the objective');
    expect(describeAttainment(objective(null))).toBe('No data yet');
  });

  it('describes an alert that holds', () => {
    expect(
      describeAlert({
        severity: 'page',
        burnRate: 14.4,
        longWindow: '1h',
        shortWindow: '5m',
      }),
    ).toBe('Page: burning at 14.4× or faster over 1h and 5m');
  });
});
