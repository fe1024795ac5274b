import { MaintenanceWindowSpec } from '@vigil/plugin-healthcheck-common';
import { maintenanceWindowFromSpec, windowCovers } from './maintenanceWindows';
import {
  maintenanceSpans,
  nextWindow,
  occurrencesBetween,
  windowsActiveAt,
} from './occurrences';

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

function window(id: string, spec: MaintenanceWindowSpec) {
  return maintenanceWindowFromSpec(id, 'catalog', {
    systems: ['payments'],
    ...spec,
  });
}

/** The occurrences of a window between two instants, as UTC text. */
function spansOf(spec: MaintenanceWindowSpec, from: string, to: string) {
  return occurrencesBetween(window('w', spec), at(from), at(to)).map(
    o => `${iso(o.startMs)} - ${iso(o.endMs)}`,
  );
}

describe('maintenance window occurrences', () => {
  describe('a daily 02:00-03:00 window across DST changes', () => {
    const nightly = (
      timezone: string,
    ): Array<[string, MaintenanceWindowSpec]> => [
      [
        'rrule',
        {
          timezone,
          rrule: 'FREQ=DAILY;BYHOUR=2;BYMINUTE=0;BYSECOND=0',
          duration: '1h',
        },
      ],
      ['cron', { timezone, cron: '0 2 * * *', duration: '1h' }],
    ];

    it.each(nightly('Europe/Berlin'))(
      'Europe/Berlin, spring forward (%s): 02:00 does not exist, the window opens when the clock jumps to 03:00 and lasts an hour',
      (_kind, spec) => {
        expect(
          spansOf(spec, '2026-03-28T00:00:00Z', '2026-03-30T12:00:00Z'),
        ).toEqual([
          '2026-03-28T01:00:00.000Z - 2026-03-28T02:00:00.000Z', // 02:00 CET
          '2026-03-29T01:00:00.000Z - 2026-03-29T02:00:00.000Z', // 03:00 CEST, the jump
          '2026-03-30T00:00:00.000Z - 2026-03-30T01:00:00.000Z', // 02:00 CEST
        ]);
      },
    );

    it.each(nightly('Europe/Berlin'))(
      'Europe/Berlin, fall back (%s): 02:00 comes twice, the window opens once, at the first',
      (_kind, spec) => {
        expect(
          spansOf(spec, '2026-10-24T00:00:00Z', '2026-10-26T12:00:00Z'),
        ).toEqual([
          '2026-10-24T00:00:00.000Z - 2026-10-24T01:00:00.000Z', // 02:00 CEST
          '2026-10-25T00:00:00.000Z - 2026-10-25T01:00:00.000Z', // the first 02:00, CEST
          '2026-10-26T01:00:00.000Z - 2026-10-26T02:00:00.000Z', // 02:00 CET
        ]);
      },
    );

    it.each(nightly('America/New_York'))(
      'America/New_York, spring forward (%s): the window opens at the jump to 03:00',
      (_kind, spec) => {
        expect(
          spansOf(spec, '2026-03-07T00:00:00Z', '2026-03-09T12:00:00Z'),
        ).toEqual([
          '2026-03-07T07:00:00.000Z - 2026-03-07T08:00:00.000Z', // 02:00 EST
          '2026-03-08T07:00:00.000Z - 2026-03-08T08:00:00.000Z', // 03:00 EDT, the jump
          '2026-03-09T06:00:00.000Z - 2026-03-09T07:00:00.000Z', // 02:00 EDT
        ]);
      },
    );

    it.each(nightly('America/New_York'))(
      'America/New_York, fall back (%s): 02:00 comes once, after the repeated hour',
      (_kind, spec) => {
        expect(
          spansOf(spec, '2026-10-31T00:00:00Z', '2026-11-02T12:00:00Z'),
        ).toEqual([
          '2026-10-31T06:00:00.000Z - 2026-10-31T07:00:00.000Z', // 02:00 EDT
          '2026-11-01T07:00:00.000Z - 2026-11-01T08:00:00.000Z', // 02:00 EST
          '2026-11-02T07:00:00.000Z - 2026-11-02T08:00:00.000Z', // 02:00 EST
        ]);
      },
    );
  });

  describe('windowsActiveAt', () => {
    const deploy = window('deploy', {
      start: '2026-12-05T10:00:00Z',
      end: '2026-12-05T10:30:00Z',
    });
    const weekly = window('weekly', {
      timezone: 'Europe/Berlin',
      rrule: 'FREQ=WEEKLY;BYDAY=SA;BYHOUR=11;BYMINUTE=0;BYSECOND=0',
      duration: '2h',
    });

    it('finds a one-off window from its start, inclusive, to its end, exclusive', () => {
      expect(windowsActiveAt([deploy], at('2026-12-05T09:59:59.999Z'))).toEqual(
        [],
      );
      expect(windowsActiveAt([deploy], at('2026-12-05T10:00:00Z'))).toEqual([
        {
          windowId: 'deploy',
          startMs: at('2026-12-05T10:00:00Z'),
          endMs: at('2026-12-05T10:30:00Z'),
        },
      ]);
      expect(
        windowsActiveAt([deploy], at('2026-12-05T10:29:59.999Z')),
      ).toHaveLength(1);
      expect(windowsActiveAt([deploy], at('2026-12-05T10:30:00Z'))).toEqual([]);
    });

    it('finds every overlapping window, earliest first', () => {
      // 2026-12-05 is a Saturday: 11:00 in Berlin is 10:00Z, until 12:00Z.
      expect(
        windowsActiveAt([weekly, deploy], at('2026-12-05T10:15:00Z')).map(
          o => o.windowId,
        ),
      ).toEqual(['deploy', 'weekly']);
      expect(
        windowsActiveAt([weekly, deploy], at('2026-12-05T11:00:00Z')).map(
          o => o.windowId,
        ),
      ).toEqual(['weekly']);
      expect(
        windowsActiveAt([weekly, deploy], at('2026-12-06T10:15:00Z')),
      ).toEqual([]);
    });

    it('keeps a recurrence between its start and end', () => {
      const bounded = window('bounded', {
        timezone: 'UTC',
        cron: '0 * * * *',
        duration: '10m',
        start: '2026-12-05T10:00:00Z',
        end: '2026-12-05T12:00:00Z',
      });
      expect(windowsActiveAt([bounded], at('2026-12-05T09:05:00Z'))).toEqual(
        [],
      );
      expect(
        windowsActiveAt([bounded], at('2026-12-05T12:05:00Z')),
      ).toHaveLength(1);
      expect(windowsActiveAt([bounded], at('2026-12-05T13:05:00Z'))).toEqual(
        [],
      );
    });
  });

  describe('nextWindow', () => {
    it('finds the earliest start after an instant, among all windows', () => {
      const monthly = window('monthly', {
        rrule: 'FREQ=MONTHLY;BYMONTHDAY=1;BYHOUR=3',
        duration: '1h',
      });
      const deploy = window('deploy', {
        start: '2026-12-20T10:00:00Z',
        end: '2026-12-20T10:30:00Z',
      });
      expect(
        nextWindow([monthly, deploy], at('2026-12-05T00:00:00Z')),
      ).toMatchObject({
        windowId: 'deploy',
        startMs: at('2026-12-20T10:00:00Z'),
      });
      expect(
        nextWindow([monthly, deploy], at('2026-12-20T10:00:00Z')),
      ).toMatchObject({
        windowId: 'monthly',
        startMs: at('2027-01-01T03:00:00Z'),
      });
    });

    it('finds a yearly window months away, and nothing past the horizon', () => {
      const yearly = window('yearly', { cron: '0 0 1 6 *', duration: '1h' });
      expect(nextWindow([yearly], at('2026-07-01T00:00:00Z'))?.startMs).toBe(
        at('2027-06-01T00:00:00Z'),
      );
      expect(
        nextWindow([yearly], at('2026-07-01T00:00:00Z'), 30 * 24 * 3_600_000),
      ).toBeUndefined();
    });
  });

  describe('maintenanceSpans', () => {
    it('merges overlapping and touching occurrences and clips them to the range', () => {
      const a = window('a', {
        start: '2026-12-05T10:00:00Z',
        end: '2026-12-05T11:00:00Z',
      });
      const b = window('b', {
        start: '2026-12-05T10:30:00Z',
        end: '2026-12-05T12:00:00Z',
      });
      const c = window('c', {
        start: '2026-12-05T12:00:00Z',
        end: '2026-12-05T12:15:00Z',
      });
      const d = window('d', {
        start: '2026-12-05T14:00:00Z',
        end: '2026-12-05T16:00:00Z',
      });
      expect(
        maintenanceSpans(
          [d, c, b, a],
          at('2026-12-05T09:00:00Z'),
          at('2026-12-05T15:00:00Z'),
        ).map(s => `${iso(s.startMs)} - ${iso(s.endMs)}`),
      ).toEqual([
        '2026-12-05T10:00:00.000Z - 2026-12-05T12:15:00.000Z',
        '2026-12-05T14:00:00.000Z - 2026-12-05T15:00:00.000Z',
      ]);
    });
  });

  describe('windowCovers', () => {
    const slice = {
      checkId: 'healthcheck:default/payments-api',
      systemRef: 'system:default/payments',
      environment: 'production',
    };

    it('covers the slices of its systems, narrowed by checks and environments', () => {
      const base = {
        start: '2026-12-05T10:00:00Z',
        end: '2026-12-05T11:00:00Z',
      };
      expect(windowCovers(window('w', base), slice)).toBe(true);
      expect(
        windowCovers(window('w', { ...base, systems: ['shop'] }), slice),
      ).toBe(false);
      expect(
        windowCovers(
          window('w', {
            ...base,
            checks: ['payments-api'],
            environments: ['Production'],
          }),
          slice,
        ),
      ).toBe(true);
      expect(
        windowCovers(window('w', { ...base, checks: ['payments-db'] }), slice),
      ).toBe(false);
      expect(
        windowCovers(
          window('w', { ...base, environments: ['staging'] }),
          slice,
        ),
      ).toBe(false);
      expect(
        windowCovers(
          maintenanceWindowFromSpec('w', 'catalog', {
            ...base,
            checks: ['payments-api'],
          }),
          { ...slice, systemRef: 'system:default/shop' },
        ),
      ).toBe(true);
    });
  });
});
