import { mockServices } from '@backstage/backend-test-utils';
import type { Entity } from '@backstage/catalog-model';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { DEFAULT_COVERAGE_SETTINGS } from '../ownership';
import { MaintenanceCalendar } from './MaintenanceCalendar';
import { windowsActiveAt } from './occurrences';

const NOW = Date.parse('2026-12-05T10:00:00Z');
const PAYMENTS = 'system:default/payments';
const payments = {
  checkId: 'healthcheck:default/payments-health',
  systemRef: PAYMENTS,
  environment: 'production',
};
const tools = {
  checkId: 'healthcheck:attackers/scan',
  systemRef: 'system:attackers/attacker-tools',
  environment: 'default',
};

const systems: Entity[] = [
  {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: { name: 'payments', namespace: 'default' },
    spec: { owner: 'group:default/payments-team' },
  },
  {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: { name: 'attacker-tools', namespace: 'attackers' },
    spec: { owner: 'attackers' },
  },
];

/** A window that is always open: every hour, for a week. */
function window(
  name: string,
  spec: Record<string, unknown>,
  namespace = 'default',
): Entity {
  return {
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'MaintenanceWindow',
    metadata: { name, namespace },
    spec: { cron: '0 * * * *', duration: '168h', ...spec },
  };
}

const muteForever = window(
  'mute-payments',
  {
    systems: ['system:default/payments', 'attacker-tools'],
    owner: 'attackers',
    reason: 'pwned',
  },
  'attackers',
);

function calendarOf(entities: Entity[], coverage = DEFAULT_COVERAGE_SETTINGS) {
  const logger = mockServices.logger.mock();
  const calendar = new MaintenanceCalendar({
    catalog: catalogServiceMock({ entities: [...systems, ...entities] }),
    auth: mockServices.auth(),
    store: { list: async () => [] },
    logger,
    coverage,
    now: () => NOW,
    refreshMs: 0,
  });
  return { calendar, logger };
}

describe('MaintenanceCalendar', () => {
  it("never lets another team's window cover a system: it holds nothing, cuts no SLO time and shows no reason there", async () => {
    const { calendar, logger } = calendarOf([muteForever]);
    expect(await calendar.covering(payments)).toEqual([]);
    const spans = await calendar.spansBetween(
      { systemRef: PAYMENTS, environment: 'production' },
      NOW - 86_400_000,
      NOW,
    );
    expect(spans(payments.checkId)).toEqual([]);
    // What it names of its own owner's it still covers.
    const [own] = await calendar.covering(tools);
    expect(own).toMatchObject({
      id: 'maintenancewindow:attackers/mute-payments',
      systems: ['system:attackers/attacker-tools'],
      reason: 'pwned',
    });
    // Open now (a week-long occurrence begins every hour).
    expect(windowsActiveAt([own], NOW).length).toBeGreaterThan(0);
    expect(logger.warn).toHaveBeenCalledWith(
      'Maintenance window maintenancewindow:attackers/mute-payments reaches less than it names: spec.systems[0]: maintenancewindow:attackers/mute-payments is owned by group:attackers/attackers and system:default/payments by group:default/payments-team; a MaintenanceWindow covers only systems and checks its owner owns (healthcheck.checks.fromCatalog: owner). Give it spec.owner group:default/payments-team, or let the owner of system:default/payments declare it',
    );
  });

  it('leaves out a window left covering nothing, and tells of it once until it changes', async () => {
    const { calendar, logger } = calendarOf([
      window(
        'mute-payments',
        { systems: ['system:default/payments'], owner: 'attackers' },
        'attackers',
      ),
      window('unowned', { systems: ['payments'] }),
    ]);
    expect(await calendar.windows()).toEqual([]);
    await calendar.windows();
    expect(logger.warn).toHaveBeenCalledTimes(2);
    expect(logger.warn.mock.calls.map(([message]) => message)).toEqual([
      expect.stringContaining(
        'maintenancewindow:attackers/mute-payments reaches less than it names: spec.systems[0]:',
      ),
      expect.stringContaining(
        'maintenancewindow:default/unowned reaches less than it names: spec.systems[0]: maintenancewindow:default/unowned is owned by no one',
      ),
    ]);
  });

  it("covers its owner's own system, with its reason", async () => {
    const { calendar } = calendarOf([
      window('patching', {
        systems: ['payments'],
        owner: 'payments-team',
        reason: 'OS patching',
      }),
    ]);
    expect(await calendar.covering(payments)).toMatchObject([
      { id: 'maintenancewindow:default/patching', reason: 'OS patching' },
    ]);
  });

  it('keeps at most the cap of windows per system, the first by entity ref', async () => {
    const { calendar, logger } = calendarOf(
      ['w3', 'w1', 'w2'].map(name =>
        window(name, { systems: ['payments'], owner: 'payments-team' }),
      ),
      {
        ...DEFAULT_COVERAGE_SETTINGS,
        windowCap: {
          perTarget: 2,
          key: 'healthcheck.maintenance.maxWindowsPerSystem',
        },
      },
    );
    expect((await calendar.covering(payments)).map(w => w.id).sort()).toEqual([
      'maintenancewindow:default/w1',
      'maintenancewindow:default/w2',
    ]);
    expect(logger.warn).toHaveBeenCalledWith(
      "Maintenance window maintenancewindow:default/w3 reaches less than it names: spec.systems[0]: system:default/payments is already reached by 2 MaintenanceWindow entities, the most one may be (healthcheck.maintenance.maxWindowsPerSystem); its owner's own come first, then entity ref order, and this one is left out for it",
    );
  });

  it('covers every system a window names where the operator set any', async () => {
    const { calendar } = calendarOf([muteForever], {
      ...DEFAULT_COVERAGE_SETTINGS,
      rule: 'any',
    });
    expect(await calendar.covering(payments)).toHaveLength(1);
  });
});
