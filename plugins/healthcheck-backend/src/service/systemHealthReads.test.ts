import { mockCredentials } from '@backstage/backend-test-utils';
import type { Entity } from '@backstage/catalog-model';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import type { SystemRollup } from '@vigil/plugin-healthcheck-common';
import { computeRollup } from '../rollup/computeRollup';
import { liveKeysUnder } from '../rollup/liveKeys';
import type { EnvironmentSlice } from '../model';
import { createSystemHealthReads } from './systemHealthReads';

/*
 * A system's details are read far more often than they change: while the
 * read model hands out the same rollup and slices, a read builds nothing
 * and answers the object it answered before (which `sendJson` then sends
 * as the bytes it was serialized to). Anything the answer shows that
 * changed makes a new one.
 */

const SYSTEM = 'system:default/payments';
const credentials = mockCredentials.user();

function systemEntity(title: string): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: { name: 'payments', namespace: 'default', title },
    spec: { owner: 'payments-team' },
  };
}

const slices: EnvironmentSlice[] = [
  {
    sliceId: 'healthcheck:payments-health:payments:production',
    checkId: 'healthcheck:default/payments-health',
    systemRef: SYSTEM,
    environment: 'production',
    paused: false,
  },
];

function rollupAt(now: number): SystemRollup {
  return computeRollup({
    systemRef: SYSTEM,
    slices,
    environmentSince: new Map(),
    upstream: [],
    now,
  });
}

function readsOf(source: {
  entity: () => Entity;
  rollup: () => SystemRollup | undefined;
  slices: () => EnvironmentSlice[] | Promise<EnvironmentSlice[]>;
}) {
  return createSystemHealthReads({
    catalog: {
      // As the catalog client does: a freshly parsed entity per read.
      getEntityByRef: async () => structuredClone(source.entity()),
    } as unknown as CatalogService,
    states: {} as never,
    history: {} as never,
    loadRollup: async () => source.rollup(),
    loadRollups: async () => ({ rollups: new Map(), stale: false }),
    loadSystemSlices: () => source.slices(),
    liveKeyOf: liveKeysUnder(Buffer.alloc(32, 1)),
  });
}

describe('a system details read', () => {
  it('answers the same object while the rollup, the slices and what the System shows stand', async () => {
    const rollup = rollupAt(1_000);
    const reads = readsOf({
      entity: () => systemEntity('Payments'),
      rollup: () => rollup,
      slices: () => slices,
    });
    const first = await reads.systemDetails(SYSTEM, credentials);
    expect(await reads.systemDetails(SYSTEM, credentials)).toBe(first);
    expect(first).toMatchObject({
      systemRef: SYSTEM,
      title: 'Payments',
      owner: 'group:default/payments-team',
      environmentNames: ['production'],
    });
  });

  it('makes a new answer when the rollup, the slices or the System title change', async () => {
    let rollup = rollupAt(1_000);
    let current = slices;
    let title = 'Payments';
    const reads = readsOf({
      entity: () => systemEntity(title),
      rollup: () => rollup,
      slices: () => current,
    });
    const first = await reads.systemDetails(SYSTEM, credentials);

    rollup = rollupAt(2_000);
    const afterRollup = await reads.systemDetails(SYSTEM, credentials);
    expect(afterRollup).not.toBe(first);
    expect(afterRollup.updatedAt).toBe(rollup.updatedAt);

    current = [...slices, { ...slices[0], environment: 'staging' }];
    const afterSlices = await reads.systemDetails(SYSTEM, credentials);
    expect(afterSlices).not.toBe(afterRollup);
    expect(afterSlices.environmentNames).toEqual(['production', 'staging']);

    title = 'Payments and refunds';
    const afterTitle = await reads.systemDetails(SYSTEM, credentials);
    expect(afterTitle).not.toBe(afterSlices);
    expect(afterTitle.title).toBe('Payments and refunds');
  });

  it('builds a stale answer, and one without a stored rollup, at every read', async () => {
    let failing = false;
    const reads = readsOf({
      entity: () => systemEntity('Payments'),
      rollup: () => rollupAt(1_000),
      slices: () => (failing ? Promise.reject(new Error('gone')) : slices),
    });
    await reads.systemDetails(SYSTEM, credentials);
    failing = true;
    const stale = await reads.systemDetails(SYSTEM, credentials);
    expect(stale.stale).toBe(true);
    expect(await reads.systemDetails(SYSTEM, credentials)).not.toBe(stale);

    const empty = readsOf({
      entity: () => systemEntity('Payments'),
      rollup: () => undefined,
      slices: () => slices,
    });
    const once = await empty.systemDetails(SYSTEM, credentials);
    expect(await empty.systemDetails(SYSTEM, credentials)).not.toBe(once);
  });
});
