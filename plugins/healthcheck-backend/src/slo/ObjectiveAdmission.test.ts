import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import type { Entity } from '@backstage/catalog-model';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { DEFAULT_COVERAGE_SETTINGS } from '../ownership';
import { loadCatalogObjectives } from './catalogObjectives';
import { ObjectiveAdmission } from './ObjectiveAdmission';

const payments: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'System',
  metadata: { name: 'payments', namespace: 'default' },
  spec: { owner: 'group:default/payments-team' },
};

function objective(
  name: string,
  spec: Record<string, unknown>,
  metadata: Partial<Entity['metadata']> = {},
): Entity {
  return {
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'ServiceLevelObjective',
    metadata: { name, namespace: 'default', ...metadata },
    spec: {
      system: 'system:default/payments',
      environment: 'production',
      indicator: { type: 'availability' },
      timeWindow: [{ duration: '28d', isRolling: true }],
      objectives: [{ targetPercent: 99.9 }],
      ...spec,
    },
  };
}

/** The attack: another team pages payments' owner with its own title. */
const pagePayments = objective(
  'page-payments',
  {
    owner: 'group:attackers/attackers',
    objectives: [{ targetPercent: 99.9999 }],
  },
  { namespace: 'attackers', title: 'Payments are DOWN, call +1 555 0100' },
);
const own = objective('payments-up', { owner: 'payments-team' });

function setup(entities: Entity[], coverage = DEFAULT_COVERAGE_SETTINGS) {
  const catalog = catalogServiceMock({ entities: [payments, ...entities] });
  const logger = mockServices.logger.mock();
  const admission = new ObjectiveAdmission({
    catalog,
    auth: mockServices.auth(),
    logger,
    coverage,
  });
  const load = async () =>
    (
      await loadCatalogObjectives({
        catalog,
        credentials: mockCredentials.service(),
        admission,
      })
    ).map(o => o.ref);
  return { admission, logger, load };
}

describe('ObjectiveAdmission', () => {
  it("lets in the system owner's objectives and never another team's, which would page the owner", async () => {
    const { load, logger } = setup([own, pagePayments]);
    // What the alerts, the Health tab and the badges all read.
    expect(await load()).toEqual(['servicelevelobjective:default/payments-up']);
    expect(logger.warn).toHaveBeenCalledWith(
      'Service-level objective servicelevelobjective:attackers/page-payments reaches less than it names: spec.system: servicelevelobjective:attackers/page-payments is owned by group:attackers/attackers and system:default/payments by group:default/payments-team; a ServiceLevelObjective names only a system and a check its owner owns (healthcheck.checks.fromCatalog: owner). Give it spec.owner group:default/payments-team, or let the owner of system:default/payments declare it',
    );
  });

  it('leaves out an objective without an owner, or for a check its owner does not own', async () => {
    const { load } = setup([
      objective('unowned', {}),
      objective('foreign-check', {
        owner: 'payments-team',
        check: 'healthcheck:default/someone-elses',
      }),
    ]);
    expect(await load()).toEqual([]);
  });

  it('lets in at most the cap per system, the first by entity ref, and tells of the rest', async () => {
    const { load, logger } = setup(
      ['c', 'a', 'b'].map(name => objective(name, { owner: 'payments-team' })),
      {
        ...DEFAULT_COVERAGE_SETTINGS,
        objectiveCap: {
          ...DEFAULT_COVERAGE_SETTINGS.objectiveCap,
          perTarget: 2,
        },
      },
    );
    expect(await load()).toEqual([
      'servicelevelobjective:default/a',
      'servicelevelobjective:default/b',
    ]);
    expect(logger.warn).toHaveBeenCalledWith(
      expect.stringContaining(
        'servicelevelobjective:default/c reaches less than it names: spec.system: system:default/payments is already reached by 2 ServiceLevelObjective entities',
      ),
    );
  });

  it('lets in every objective where the operator set any', async () => {
    const { load } = setup([own, pagePayments], {
      ...DEFAULT_COVERAGE_SETTINGS,
      rule: 'any',
    });
    expect(await load()).toEqual([
      'servicelevelobjective:attackers/page-payments',
      'servicelevelobjective:default/payments-up',
    ]);
  });
});
