import type { Entity } from '@backstage/catalog-model';
import type { CatalogProcessorResult } from '@backstage/plugin-catalog-node';
import { ServiceLevelObjectiveEntityProcessor } from './ServiceLevelObjectiveEntityProcessor';

const objective = (spec: Record<string, unknown>) => ({
  apiVersion: 'vigil.dev/v1alpha1',
  kind: 'ServiceLevelObjective',
  metadata: { name: 'checkout-availability', namespace: 'shop' },
  spec: {
    system: 'checkout',
    environment: 'production',
    indicator: { type: 'availability' },
    timeWindow: [{ duration: '28d', isRolling: true }],
    objectives: [{ target: 0.999 }],
    ...spec,
  },
});

describe('ServiceLevelObjectiveEntityProcessor', () => {
  const processor = new ServiceLevelObjectiveEntityProcessor();

  it('accepts a valid objective and leaves other kinds to other processors', async () => {
    await expect(processor.validateEntityKind(objective({}))).resolves.toBe(
      true,
    );
    await expect(
      processor.validateEntityKind({
        ...objective({}),
        kind: 'HealthCheck',
      }),
    ).resolves.toBe(false);
  });

  it('fails the entity with every problem at its field', async () => {
    await expect(
      processor.validateEntityKind(
        objective({ objectives: [{ target: 2 }], budgetingMethod: 'Events' }),
      ),
    ).rejects.toThrow(
      `Invalid ServiceLevelObjective 'checkout-availability', 2 problems:
- spec.budgetingMethod: "Events" is not a budgeting method: Timeslices (time-weighted, like up-time) or Occurrences (runs)
- spec.objectives[0].target: 2 must be a number above 0 and below 1, such as 0.999`,
    );
  });

  it('refuses, at its field, a system another team owns: its alerts would page that team', async () => {
    const judging = new ServiceLevelObjectiveEntityProcessor({
      ownership: {
        rule: 'owner',
        readOwners: async () =>
          new Map([
            ['system:shop/checkout', { owner: 'group:shop/checkout-team' }],
          ]),
        logger: { warn: jest.fn() },
      },
    });
    await expect(
      judging.validateEntityKind(
        objective({
          owner: 'group:attackers/attackers',
          objectives: [{ targetPercent: 99.9999 }],
        }),
      ),
    ).rejects.toThrow(
      "Invalid ServiceLevelObjective 'checkout-availability': spec.system: servicelevelobjective:shop/checkout-availability is owned by group:attackers/attackers and system:shop/checkout by group:shop/checkout-team; a ServiceLevelObjective names only a system and a check its owner owns (healthcheck.checks.fromCatalog: owner). Give it spec.owner group:shop/checkout-team, or let the owner of system:shop/checkout declare it",
    );
    await expect(
      judging.validateEntityKind(objective({ owner: 'checkout-team' })),
    ).resolves.toBe(true);
  });

  it('relates the objective to its owner', async () => {
    const emitted: CatalogProcessorResult[] = [];
    await processor.postProcessEntity(
      objective({ owner: 'checkout-team' }) as Entity,
      { type: 'file', target: '/slo.yaml' },
      r => emitted.push(r),
    );
    expect(
      emitted.map(r =>
        r.type === 'relation'
          ? `${r.relation.source.name} ${r.relation.type} ${r.relation.target.kind}:${r.relation.target.namespace}/${r.relation.target.name}`
          : r.type,
      ),
    ).toEqual([
      'checkout-availability ownedBy Group:shop/checkout-team',
      'checkout-team ownerOf ServiceLevelObjective:shop/checkout-availability',
    ]);
  });
});
