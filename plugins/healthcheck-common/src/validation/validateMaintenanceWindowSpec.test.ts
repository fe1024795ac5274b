import { formatProblemPath } from './problemPath';
import {
  MaintenanceRecurrenceRules,
  validateMaintenanceWindowSpec,
} from './validateMaintenanceWindowSpec';

/** What a problem list reads like in the catalog: `path: reason`. */
function problemsOf(spec: unknown, options = {}) {
  return validateMaintenanceWindowSpec(spec, options).map(
    p => `${formatProblemPath(p.path)}: ${p.reason}`,
  );
}

describe('validateMaintenanceWindowSpec', () => {
  const oneOff = {
    systems: ['payments'],
    timezone: 'Europe/Berlin',
    start: '2026-12-05T02:00',
    end: '2026-12-05T03:00',
  };
  const weekly = {
    systems: ['payments'],
    checks: ['payments-api'],
    environments: ['production'],
    timezone: 'America/New_York',
    rrule: 'FREQ=WEEKLY;BYDAY=SU;BYHOUR=2;BYMINUTE=0',
    duration: '1h',
  };

  it('finds nothing wrong with a one-off or a recurring window', () => {
    expect(problemsOf(oneOff)).toEqual([]);
    expect(problemsOf(weekly)).toEqual([]);
    expect(
      problemsOf({
        checks: ['healthcheck:team-a/db'],
        cron: '0 2 * * 0',
        duration: '30m',
      }),
    ).toEqual([]);
  });

  it('reads times with an offset as absolute and without one in the zone', () => {
    expect(
      problemsOf({
        ...oneOff,
        start: '2026-12-05T02:00:00+01:00',
        end: '2026-12-05T01:30:00Z',
      }),
    ).toEqual([]);
  });

  it('reports a zone that is not an IANA zone', () => {
    expect(problemsOf({ ...oneOff, timezone: 'Europe/Atlantis' })).toEqual([
      'spec.timezone: "Europe/Atlantis" is not an IANA time zone, such as Europe/Berlin or America/New_York',
    ]);
  });

  it('reports an end before or at the start', () => {
    expect(problemsOf({ ...oneOff, end: '2026-12-05T01:00' })).toEqual([
      'spec.end: the window ends (2026-12-05T01:00:00.000+01:00) before it starts (2026-12-05T02:00:00.000+01:00)',
    ]);
    expect(problemsOf({ ...oneOff, end: oneOff.start })).toEqual([
      'spec.end: the window ends (2026-12-05T02:00:00.000+01:00) when it starts (2026-12-05T02:00:00.000+01:00)',
    ]);
  });

  it('reports a time that is not ISO 8601, and a one-off window without its ends', () => {
    expect(problemsOf({ ...oneOff, start: 'tomorrow at 2' })).toEqual([
      'spec.start: "tomorrow at 2" is not an ISO 8601 date-time, such as 2026-12-05T02:00 or 2026-12-05T02:00:00Z (the input "tomorrow at 2" can\'t be parsed as ISO 8601)',
    ]);
    expect(problemsOf({ systems: ['payments'] })).toEqual([
      'spec.start: is required: when the window starts (or give rrule or cron and a duration for a recurring window)',
      'spec.end: is required: when the window ends',
    ]);
  });

  it('bounds a one-off window to 31 days', () => {
    expect(problemsOf({ ...oneOff, end: '2027-01-06T03:00' })).toEqual([
      'spec.end: the window lasts 769h; a one-off window lasts at most 744h',
    ]);
  });

  it('requires a duration longer than zero for a recurring window, and none for a one-off one', () => {
    const { duration, ...noDuration } = weekly;
    expect(duration).toBe('1h');
    expect(problemsOf(noDuration)).toEqual([
      'spec.duration: is required for a recurring window: how long each occurrence lasts, such as 1h',
    ]);
    expect(problemsOf({ ...weekly, duration: '0s' })).toEqual([
      'spec.duration: must be longer than 0s',
    ]);
    expect(problemsOf({ ...weekly, duration: '1 hour' })).toEqual([
      'spec.duration: "1 hour" is not a duration: "1" at position 0 has no unit (use ms, s, m or h, as in 500ms, 10s, 1m or 1h30m)',
    ]);
    expect(problemsOf({ ...weekly, duration: '169h' })).toEqual([
      'spec.duration: 169h is longer than the longest occurrence, 168h',
    ]);
    expect(problemsOf({ ...oneOff, duration: '1h' })).toEqual([
      'spec.duration: belongs to a recurring window (with rrule or cron); a one-off window has start and end',
    ]);
  });

  it('reports an RRULE or cron expression that does not read, with the reader given', () => {
    const recurrence: MaintenanceRecurrenceRules = {
      rruleProblem: rule =>
        rule.includes('FREQ=SOMETIMES') ? 'unknown FREQ' : undefined,
      cronProblem: expression =>
        expression.startsWith('61') ? 'minute 61 is out of range' : undefined,
    };
    expect(
      problemsOf({ ...weekly, rrule: 'FREQ=SOMETIMES' }, { recurrence }),
    ).toEqual(['spec.rrule: unknown FREQ']);
    expect(
      problemsOf(
        { ...weekly, rrule: undefined, cron: '61 2 * * *' },
        { recurrence },
      ),
    ).toEqual(['spec.cron: minute 61 is out of range']);
  });

  it('judges the shape of rules without a reader', () => {
    expect(problemsOf({ ...weekly, rrule: 'BYDAY=SU' })).toEqual([
      'spec.rrule: "BYDAY=SU" has no FREQ; an RFC 5545 rule reads like FREQ=WEEKLY;BYDAY=SU;BYHOUR=2',
    ]);
    expect(
      problemsOf({ ...weekly, rrule: 'FREQ=DAILY;UNTIL=20270101T000000Z' }),
    ).toEqual([
      'spec.rrule: must not hold DTSTART or UNTIL: write them as the window\u2019s start and end, in its time zone',
    ]);
    expect(
      problemsOf({ ...weekly, rrule: undefined, cron: '0 2 * *' }),
    ).toEqual([
      'spec.cron: "0 2 * *" has 4 fields; a cron expression has 5 (minute hour day month weekday), or 6 with seconds first',
    ]);
    expect(problemsOf({ ...weekly, cron: '0 2 * * 0' })).toEqual([
      'spec.cron: give either rrule or cron, not both',
    ]);
  });

  it('reports refs that do not parse or name another kind, at their index', () => {
    expect(
      problemsOf({
        ...oneOff,
        systems: ['payments', 'component:web', 'system:x/'],
        checks: ['', 'healthcheck:db'],
      }),
    ).toEqual([
      'spec.systems[1]: "component:web" refers to a component; a window covers systems',
      'spec.systems[2]: Entity reference "system:x/" was not on the form [<kind>:][<namespace>/]<name>',
      'spec.checks[0]: must not be empty',
    ]);
  });

  it('requires systems or checks, and reports unknown fields and wrong types', () => {
    expect(
      problemsOf({
        start: oneOff.start,
        end: oneOff.end,
        environments: 'production',
        reson: 'typo',
      }),
    ).toEqual([
      'spec.reson: unknown field; the fields here are systems, checks, environments, timezone, start, end, rrule, cron, duration, reason, owner',
      'spec.systems: is required: the refs of the systems the window covers (or name the covered checks in checks)',
      'spec.environments: must be a list, not string "production"',
    ]);
    expect(problemsOf('weekly')).toEqual([
      'spec: must be an object, not string "weekly"',
    ]);
  });

  it('takes an owner ref, a Group by default, and reports one that does not parse', () => {
    expect(problemsOf({ ...oneOff, owner: 'payments-team' })).toEqual([]);
    expect(problemsOf({ ...oneOff, owner: 'user:default/alice' })).toEqual([]);
    expect(problemsOf({ ...oneOff, owner: 'group:' })).toEqual([
      'spec.owner: Entity reference "group:" was not on the form [<kind>:][<namespace>/]<name>',
    ]);
    expect(problemsOf({ ...oneOff, owner: 7 })).toEqual([
      'spec.owner: must be a string, not number 7',
    ]);
  });

  it('reports environment names that are not names', () => {
    expect(
      problemsOf({ ...oneOff, environments: ['prod', 'eu west'] }),
    ).toEqual([
      expect.stringMatching(
        /^spec\.environments\[1\]: "eu west" is not an environment name/,
      ),
    ]);
  });

  it('writes paths from the body itself for an API request', () => {
    expect(
      validateMaintenanceWindowSpec(
        { ...oneOff, timezone: 'Mars/Olympus' },
        { rootPath: '' },
      ),
    ).toEqual([
      {
        path: ['timezone'],
        reason:
          '"Mars/Olympus" is not an IANA time zone, such as Europe/Berlin or America/New_York',
      },
    ]);
  });
});
