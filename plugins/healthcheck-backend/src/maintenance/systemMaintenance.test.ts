import { maintenanceWindowFromSpec } from './maintenanceWindows';
import { systemMaintenance, withMaintenance } from './systemMaintenance';

const slice = (checkId: string, environment: string) => ({
  checkId,
  systemRef: 'system:default/payments',
  environment,
});

describe('systemMaintenance', () => {
  const deploy = maintenanceWindowFromSpec('deploy', 'api', {
    systems: ['payments'],
    environments: ['production'],
    start: '2026-12-05T10:00:00Z',
    end: '2026-12-05T10:30:00Z',
    reason: 'Deploying 4.2',
  });
  const nightly = maintenanceWindowFromSpec('nightly', 'catalog', {
    systems: ['payments'],
    cron: '0 2 * * *',
    duration: '1h',
  });
  const elsewhere = maintenanceWindowFromSpec('elsewhere', 'catalog', {
    systems: ['shop'],
    start: '2026-12-05T09:00:00Z',
    end: '2026-12-05T11:00:00Z',
  });
  const slices = [
    slice('payments-health', 'production'),
    slice('payments-health', 'staging'),
  ];

  it('marks the slices in maintenance now, and gives the current and next window', () => {
    expect(
      systemMaintenance(
        [deploy, nightly, elsewhere],
        slices,
        Date.parse('2026-12-05T10:10:00Z'),
      ),
    ).toEqual({
      current: [
        {
          windowId: 'deploy',
          start: '2026-12-05T10:00:00.000Z',
          end: '2026-12-05T10:30:00.000Z',
          reason: 'Deploying 4.2',
        },
      ],
      next: {
        windowId: 'nightly',
        start: '2026-12-06T02:00:00.000Z',
        end: '2026-12-06T03:00:00.000Z',
      },
      inMaintenance: [
        { checkId: 'payments-health', environment: 'production' },
      ],
    });
  });

  it('is undefined for a system no window covers', () => {
    expect(
      systemMaintenance(
        [elsewhere],
        slices,
        Date.parse('2026-12-05T10:10:00Z'),
      ),
    ).toBeUndefined();
  });
});

describe('withMaintenance', () => {
  it('keeps the failing status and marks the reason in maintenance, for checks the caller sees', () => {
    const details = {
      status: 'unhealthy',
      reasons: [
        {
          checkId: 'payments-health',
          environment: 'production',
          status: 'unhealthy',
          display: '[STATUS] (500) == 200',
        },
        {
          checkId: 'payments-health',
          environment: 'staging',
          status: 'unhealthy',
          display: '[STATUS] (500) == 200',
        },
      ],
      checks: [{ checkId: 'payments-health' }],
    };
    const shown = withMaintenance(details, {
      current: [],
      inMaintenance: [
        { checkId: 'payments-health', environment: 'production' },
        { checkId: 'hidden-check', environment: 'production' },
      ],
    });
    expect(shown.status).toBe('unhealthy');
    expect(
      shown.reasons.map(r => [
        r.environment,
        r.status,
        (r as any).inMaintenance,
      ]),
    ).toEqual([
      ['production', 'unhealthy', true],
      ['staging', 'unhealthy', undefined],
    ]);
    expect(shown.maintenance.inMaintenance).toEqual([
      { checkId: 'payments-health', environment: 'production' },
    ]);
  });
});
