import { mockCredentials, mockServices } from '@backstage/backend-test-utils';
import type { Entity } from '@backstage/catalog-model';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { HOUR_MS } from '../history/aggregateRuns';
import { ObjectiveAdmission } from './ObjectiveAdmission';
import type { SloHistoryQuery } from './SloHistoryReader';
import type { SloSliceHistory } from './measureIndicator';
import {
  ObjectiveSummary,
  systemSloSummaries,
  worstObjective,
} from './objectiveSummaries';

const NOW = Date.UTC(2026, 10, 2);

const summary = (
  ref: string,
  remainingRatio: number | null,
): ObjectiveSummary => ({
  ref,
  title: ref,
  environment: 'production',
  target: 0.99,
  attainment: remainingRatio === null ? null : 0.995,
  remainingRatio,
});

describe('worstObjective', () => {
  it('picks the least budget left, overspent below all', () => {
    expect(
      worstObjective([summary('a', 0.8), summary('b', -0.2), summary('c', 0)])
        ?.ref,
    ).toBe('b');
  });

  it('takes one with nothing counted only when no other has a figure', () => {
    expect(worstObjective([summary('a', null), summary('b', 0.9)])?.ref).toBe(
      'b',
    );
    expect(worstObjective([summary('a', null), summary('b', null)])?.ref).toBe(
      'a',
    );
    expect(worstObjective([])).toBeUndefined();
  });
});

const systemEntity = (name: string): Entity => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'System',
  metadata: { name, namespace: 'default' },
  spec: { owner: 'group:default/team' },
});

const objective = (
  name: string,
  system: string,
  environment: string,
): Entity => ({
  apiVersion: 'vigil.dev/v1alpha1',
  kind: 'ServiceLevelObjective',
  metadata: { name, namespace: 'default' },
  spec: {
    owner: 'team',
    system,
    environment,
    indicator: { type: 'availability' },
    timeWindow: [{ duration: '1d', isRolling: true }],
    objectives: [{ target: 0.99 }],
  },
});

/** A day of hours, down `downSeconds` in production, never in staging. */
function readerWith(downSeconds: number) {
  const queries: SloHistoryQuery[] = [];
  return {
    queries,
    async read(query: SloHistoryQuery): Promise<Map<string, SloSliceHistory>> {
      queries.push(query);
      const down = query.environment === 'production' ? downSeconds : 0;
      const hours = Array.from({ length: 24 }, (_, index) => ({
        hourStart: NOW - (24 - index) * HOUR_MS,
        upSeconds: index === 0 ? 3600 - down : 3600,
        downSeconds: index === 0 ? down : 0,
        runCount: 60,
        failureCount: 0,
      }));
      return new Map([['slice', { hours, rawRanges: [], runs: [] }]]);
    },
  };
}

describe('systemSloSummaries', () => {
  const catalog = catalogServiceMock({
    entities: [
      systemEntity('payments'),
      systemEntity('checkout'),
      objective('payments-prod', 'payments', 'production'),
      objective('payments-staging', 'default/payments', 'staging'),
      objective('checkout-prod', 'system:default/checkout', 'production'),
    ],
  });
  const admission = new ObjectiveAdmission({
    catalog,
    auth: mockServices.auth(),
    logger: mockServices.logger.mock(),
  });

  it('gives each asked system with objectives its count and worst, in one catalog read', async () => {
    const reader = readerWith(432);
    const answers = await systemSloSummaries({
      catalog,
      admission,
      reader,
      credentials: mockCredentials.user(),
      systemRefs: ['system:default/payments', 'system:default/identity'],
      now: NOW,
    });
    // 1% of a day is 864 s of budget; 432 s down in production spends half.
    expect([...answers.keys()]).toEqual(['system:default/payments']);
    expect(answers.get('system:default/payments')).toEqual({
      objectives: 2,
      worst: {
        ref: 'servicelevelobjective:default/payments-prod',
        title: 'payments-prod',
        environment: 'production',
        target: 0.99,
        attainment: expect.closeTo(1 - 432 / 86_400, 12),
        remainingRatio: expect.closeTo(0.5, 12),
      },
    });
    // Checkout's objective is not asked for, so not computed.
    expect(reader.queries.map(q => q.systemRef)).toEqual([
      'system:default/payments',
      'system:default/payments',
    ]);
  });

  it('reads nothing for no systems', async () => {
    const reader = readerWith(0);
    expect(
      await systemSloSummaries({
        catalog,
        admission,
        reader,
        credentials: mockCredentials.user(),
        systemRefs: [],
        now: NOW,
      }),
    ).toEqual(new Map());
    expect(reader.queries).toEqual([]);
  });
});
