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
});
