import {
  describeCurrentWindow,
  describeNextWindow,
  formatMoment,
  isInMaintenance,
  maintenanceUntil,
} from './maintenanceText';

const format = { locale: 'en-GB', timeZone: 'UTC' };
const NOW = Date.parse('2026-11-04T10:00:00Z');

describe('formatMoment', () => {
  it('gives the time alone today, and the day before it on another day', () => {
    expect(formatMoment('2026-11-04T14:30:00Z', NOW, format)).toBe('14:30');
    expect(formatMoment('2026-11-08T02:00:00Z', NOW, format)).toBe(
      'Sun 8 Nov, 02:00',
    );
  });
});

describe('describeCurrentWindow', () => {
  it('says until when, and why when the window says', () => {
    expect(
      describeCurrentWindow(
        {
          windowId: 'w',
          start: '2026-11-04T09:45:00Z',
          end: '2026-11-04T14:30:00Z',
          reason: 'Deploying 4.2',
        },
        NOW,
        format,
      ),
    ).toBe('In maintenance until 14:30 — Deploying 4.2');
    expect(
      describeCurrentWindow(
        {
          windowId: 'w',
          start: '2026-11-04T09:45:00Z',
          end: '2026-11-05T01:00:00Z',
        },
        NOW,
        format,
      ),
    ).toBe('In maintenance until Thu 5 Nov, 01:00');
  });
});

describe('describeNextWindow', () => {
  it('gives start and end, the end’s day only when it is not the start’s', () => {
    expect(
      describeNextWindow(
        {
          windowId: 'w',
          start: '2026-11-08T02:00:00Z',
          end: '2026-11-08T03:00:00Z',
          reason: 'Weekly patching',
        },
        NOW,
        format,
      ),
    ).toBe('Next maintenance Sun 8 Nov, 02:00 – 03:00 — Weekly patching');
    expect(
      describeNextWindow(
        {
          windowId: 'w',
          start: '2026-11-04T22:00:00Z',
          end: '2026-11-05T02:00:00Z',
        },
        NOW,
        format,
      ),
    ).toBe('Next maintenance 22:00 – Thu 5 Nov, 02:00');
  });
});

describe('maintenanceUntil', () => {
  it('is the window in force that ends last, or none', () => {
    const early = { windowId: 'a', start: '', end: '2026-11-04T11:00:00Z' };
    const late = { windowId: 'b', start: '', end: '2026-11-04T12:00:00Z' };
    expect(maintenanceUntil({ current: [early, late] })).toBe(late);
    expect(maintenanceUntil({ current: [] })).toBeUndefined();
    expect(maintenanceUntil(undefined)).toBeUndefined();
  });
});

describe('isInMaintenance', () => {
  it('matches the check and the environment', () => {
    const maintenance = {
      current: [],
      inMaintenance: [{ checkId: 'api', environment: 'production' }],
    };
    expect(isInMaintenance(maintenance, 'api', 'production')).toBe(true);
    expect(isInMaintenance(maintenance, 'api', 'staging')).toBe(false);
    expect(isInMaintenance({ current: [] }, 'api', 'production')).toBe(false);
  });
});
