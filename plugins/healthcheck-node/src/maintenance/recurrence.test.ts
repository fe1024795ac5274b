import {
  maintenanceRecurrenceOf,
  maintenanceRecurrenceRules,
} from './recurrence';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('maintenanceRecurrenceOf', () => {
  it('is undefined for a one-off window', () => {
    expect(
      maintenanceRecurrenceOf({ start: '2026-12-05T02:00' }),
    ).toBeUndefined();
  });

  it('counts an RRULE INTERVAL from the window start, in its zone', () => {
    const everyOtherDay = maintenanceRecurrenceOf({
      rrule: 'FREQ=DAILY;INTERVAL=2',
      start: '2026-12-01T22:30',
      timezone: 'Asia/Tokyo',
    })!;
    expect(
      everyOtherDay
        .startsBetween(
          at('2026-12-01T00:00:00Z'),
          at('2026-12-07T00:00:00Z'),
          10,
        )
        .map(iso),
    ).toEqual([
      '2026-12-01T13:30:00.000Z',
      '2026-12-03T13:30:00.000Z',
      '2026-12-05T13:30:00.000Z',
    ]);
  });

  it('stops at the limit', () => {
    const everyMinute = maintenanceRecurrenceOf({ cron: '* * * * *' })!;
    expect(
      everyMinute.startsBetween(
        at('2026-12-01T00:00:00Z'),
        at('2026-12-02T00:00:00Z'),
        3,
      ),
    ).toHaveLength(3);
  });

  it('includes a start exactly at either end of the range', () => {
    const hourly = maintenanceRecurrenceOf({ cron: '0 * * * *' })!;
    expect(
      hourly
        .startsBetween(
          at('2026-12-01T10:00:00Z'),
          at('2026-12-01T11:00:00Z'),
          10,
        )
        .map(iso),
    ).toEqual(['2026-12-01T10:00:00.000Z', '2026-12-01T11:00:00.000Z']);
    const rrule = maintenanceRecurrenceOf({
      rrule: 'FREQ=HOURLY;BYMINUTE=0;BYSECOND=0',
    })!;
    expect(
      rrule
        .startsBetween(
          at('2026-12-01T10:00:00Z'),
          at('2026-12-01T11:00:00Z'),
          10,
        )
        .map(iso),
    ).toEqual(['2026-12-01T10:00:00.000Z', '2026-12-01T11:00:00.000Z']);
  });
});

describe('maintenanceRecurrenceRules', () => {
  it('reads good rules and says what is wrong with bad ones', () => {
    expect(
      maintenanceRecurrenceRules.rruleProblem(
        'FREQ=WEEKLY;BYDAY=MO,TH;BYHOUR=2',
      ),
    ).toBeUndefined();
    expect(
      maintenanceRecurrenceRules.rruleProblem(
        'RRULE:FREQ=MONTHLY;BYMONTHDAY=-1',
      ),
    ).toBeUndefined();
    expect(maintenanceRecurrenceRules.rruleProblem('FREQ=SECONDLY')).toBe(
      'FREQ=SECONDLY is not allowed; a window recurs every minute at most',
    );
    expect(
      maintenanceRecurrenceRules.rruleProblem('FREQ=DAILY;BYMINUTE=60'),
    ).toBe('BYMINUTE=60 is out of range (0 to 59)');
    expect(
      maintenanceRecurrenceRules.rruleProblem('FREQ=DAILY;BYDAYS=MO'),
    ).toMatch(/^"FREQ=DAILY;BYDAYS=MO" is not an RFC 5545 rule: /);
    expect(
      maintenanceRecurrenceRules.cronProblem('0 2 * * MON-FRI'),
    ).toBeUndefined();
    expect(maintenanceRecurrenceRules.cronProblem('0 2 * * 8')).toMatch(
      /^"0 2 \* \* 8" is not a cron expression: /,
    );
  });
});

describe('maintenanceRecurrenceOf, far from its anchor', () => {
  it('computes a minutely rule anchored in 2000 at once, keeping its phase', () => {
    const everySeventhMinute = maintenanceRecurrenceOf({
      rrule: 'FREQ=MINUTELY;INTERVAL=7',
      start: '2000-01-01T00:00:00Z',
    })!;
    const started = Date.now();
    const starts = everySeventhMinute.startsBetween(
      at('2026-12-01T00:00:00Z'),
      at('2026-12-01T00:30:00Z'),
      10,
    );
    expect(Date.now() - started).toBeLessThan(1_000);
    // 2026-12-01T00:00Z is minute 14,156,640 since the anchor: 1 past a multiple of 7.
    expect(starts.map(iso)).toEqual([
      '2026-12-01T00:06:00.000Z',
      '2026-12-01T00:13:00.000Z',
      '2026-12-01T00:20:00.000Z',
      '2026-12-01T00:27:00.000Z',
    ]);
  });

  it('refuses COUNT: the window end bounds a recurrence', () => {
    expect(maintenanceRecurrenceRules.rruleProblem('FREQ=DAILY;COUNT=3')).toBe(
      'COUNT is not supported; bound the recurrence with the window\u2019s end',
    );
  });
});
