import {
  resolveServiceLevelObjective,
  validateServiceLevelObjectiveSpec,
} from './validateServiceLevelObjectiveSpec';
import { formatSpecProblems } from './validateHealthCheckSpec';

const availability = {
  system: 'checkout',
  environment: 'Production',
  indicator: { type: 'availability' },
  timeWindow: [{ duration: '28d', isRolling: true }],
  budgetingMethod: 'Timeslices',
  objectives: [{ displayName: 'Checkout is up', target: 0.999 }],
};

function problemsOf(spec: unknown, rootPath?: string): string[] {
  return formatSpecProblems(
    validateServiceLevelObjectiveSpec(spec, { rootPath }),
  );
}

describe('validateServiceLevelObjectiveSpec', () => {
  it('accepts an availability objective over a system in OpenSLO terms, and reads it into numbers', () => {
    expect(problemsOf(availability)).toEqual([]);
    expect(resolveServiceLevelObjective(availability)).toEqual({
      systemRef: 'system:default/checkout',
      environment: 'production',
      indicator: { type: 'availability' },
      window: { type: 'rolling', durationMs: 28 * 86_400_000 },
      budgetingMethod: 'Timeslices',
      target: 0.999,
      displayName: 'Checkout is up',
    });
  });

  it('accepts a latency objective for one check over the calendar month, with targetPercent', () => {
    const spec = {
      system: 'system:payments/ledger',
      environment: 'staging',
      check: 'ledger-http',
      indicator: { type: 'latency', percentile: 95, threshold: '300ms' },
      timeWindow: [
        { duration: '1M', isRolling: false, calendar: { timeZone: 'UTC' } },
      ],
      objectives: [{ targetPercent: 99 }],
    };
    expect(problemsOf(spec)).toEqual([]);
    expect(
      resolveServiceLevelObjective(spec, { defaultNamespace: 'payments' }),
    ).toEqual({
      systemRef: 'system:payments/ledger',
      environment: 'staging',
      checkRef: 'healthcheck:payments/ledger-http',
      indicator: { type: 'latency', percentile: 95, thresholdMs: 300 },
      window: { type: 'calendarMonth', timeZone: 'UTC' },
      budgetingMethod: 'Timeslices',
      target: 0.99,
    });
  });

  it.each([
    ['7d', 7],
    ['30d', 30],
    ['4w', 28],
  ])('reads the rolling window %s as %i days', (duration, days) => {
    expect(
      resolveServiceLevelObjective({
        ...availability,
        timeWindow: [{ duration, isRolling: true }],
      }).window,
    ).toEqual({ type: 'rolling', durationMs: days * 86_400_000 });
  });

  it('names every problem at its field', () => {
    expect(
      problemsOf({
        system: 'component:default/checkout',
        environment: 'prod uction',
        check: 'group:default/team',
        indicator: { type: 'latency', percentile: 90, threshold: '300' },
        timeWindow: [{ duration: '1d2h', isRolling: true, calendar: {} }],
        budgetingMethod: 'Occurrences',
        objectives: [{ target: 99.9 }],
        alerting: true,
      }),
    ).toEqual([
      'spec.alerting: is not a field of a ServiceLevelObjective (the fields are description, system, environment, check, indicator, timeWindow, budgetingMethod, objectives, owner)',
      'spec.system: "component:default/checkout" refers to a component; it must be a system',
      'spec.check: "group:default/team" refers to a group; it must be a healthcheck',
      'spec.environment: "prod uction" is not an environment name: " " is not allowed; an environment name is 1 to 63 letters, digits and "-", starting and ending with a letter or digit, compared in lower case',
      'spec.indicator.percentile: 90 is not a percentile Vigil keeps: 50, 95 or 99',
      'spec.indicator.threshold: Invalid duration "300": "300" at position 0 has no unit (use ms, s, m or h, as in 500ms, 10s, 1m or 1h30m)',
      'spec.timeWindow[0].calendar: is only for a calendar window (isRolling: false)',
      'spec.timeWindow[0].duration: "1d2h" is not a rolling window: whole days or weeks up to 90d, such as 7d, 28d, 30d or 4w',
      'spec.objectives[0].target: 99.9 must be a number above 0 and below 1, such as 0.999',
    ]);
  });

  it('takes an owner ref, a Group by default, and reports one that does not parse', () => {
    expect(problemsOf({ ...availability, owner: 'checkout-team' })).toEqual([]);
    expect(problemsOf({ ...availability, owner: 'group:' })).toEqual([
      'spec.owner: Entity reference "group:" was not on the form [<kind>:][<namespace>/]<name>',
    ]);
    expect(problemsOf({ ...availability, owner: '' })).toEqual([
      'spec.owner: must be an entity ref such as group:default/name',
    ]);
  });

  it('says what is missing, with an example', () => {
    expect(problemsOf({})).toEqual([
      'spec.system: is required: the ref of the system the objective is for',
      'spec.environment: is required: the environment of the system the objective is for, such as production',
      'spec.indicator: is required: what counts as good, { type: availability } or { type: latency, percentile: 95, threshold: 300ms }',
      'spec.timeWindow: is required: [{ duration: 28d, isRolling: true }] or [{ duration: 1M, isRolling: false }]',
      'spec.objectives: is required: [{ target: 0.999 }] or [{ targetPercent: 99.9 }]',
    ]);
    expect(problemsOf('yes')).toEqual(['spec: must be an object']);
  });

  it('refuses a latency objective counted in runs, since only hourly percentiles are kept', () => {
    expect(
      problemsOf({
        ...availability,
        indicator: { type: 'latency', percentile: 99, threshold: '1s' },
        budgetingMethod: 'Occurrences',
      }),
    ).toEqual([
      'spec.budgetingMethod: a latency objective is judged per hour: use Timeslices (Vigil keeps the percentiles of each hour, not every run)',
    ]);
  });

  it.each([
    [
      { objectives: [] },
      'spec.objectives: must be a list of exactly one objective, such as [{ target: 0.999 }]; declare another ServiceLevelObjective for another target',
    ],
    [
      { objectives: [{ target: 0.99, targetPercent: 99 }] },
      'spec.objectives[0]: has both target and targetPercent; write one',
    ],
    [
      { objectives: [{ targetPercent: 100 }] },
      'spec.objectives[0].targetPercent: 100 must be a number above 0 and below 100, such as 99.9',
    ],
    [
      { timeWindow: [{ duration: '28d', isRolling: false }] },
      'spec.timeWindow[0].duration: "28d": a calendar window is the month, 1M',
    ],
    [
      {
        timeWindow: [
          {
            duration: '1M',
            isRolling: false,
            calendar: { timeZone: 'Europe/Paris' },
          },
        ],
      },
      'spec.timeWindow[0].calendar.timeZone: "Europe/Paris": months start in UTC for now; leave timeZone out or write UTC',
    ],
    [
      { timeWindow: [{ duration: '91d', isRolling: true }] },
      'spec.timeWindow[0].duration: "91d" is not a rolling window: whole days or weeks up to 90d, such as 7d, 28d, 30d or 4w',
    ],
    [
      { timeWindow: [{ duration: '7d' }] },
      'spec.timeWindow[0].isRolling: is required: true for a rolling window, false for a calendar month',
    ],
    [
      { budgetingMethod: 'RatioTimeslices' },
      'spec.budgetingMethod: "RatioTimeslices" is not a budgeting method: Timeslices (time-weighted, like up-time) or Occurrences (runs)',
    ],
    [
      { indicator: { type: 'availability', threshold: '1s' } },
      'spec.indicator.threshold: is not a field here (the fields are type)',
    ],
  ])('rejects %j', (change, problem) => {
    expect(problemsOf({ ...availability, ...change })).toEqual([problem]);
  });

  it('writes paths from the root it is given, for an API body', () => {
    expect(
      problemsOf({ ...availability, objectives: [{ target: 1 }] }, ''),
    ).toEqual([
      'objectives[0].target: 1 must be a number above 0 and below 1, such as 0.999',
    ]);
  });

  it('refuses to resolve an invalid spec, naming its problems', () => {
    expect(() =>
      resolveServiceLevelObjective({ ...availability, objectives: [] }),
    ).toThrow(
      'Invalid ServiceLevelObjective spec: spec.objectives: must be a list of exactly one objective',
    );
  });
});
