import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import { DEMO_SLICES, healthTestbed } from './__testUtils__/healthTestbed';
import {
  RESCUE_LEASE_MS,
  rollupBucketId,
  RollupConsumer,
  systemOfRollupBucket,
} from './RollupConsumer';
import type { RollupService } from './RollupService';

jest.setTimeout(60_000);

const PAYMENTS = 'system:default/payments';

describe('systemOfRollupBucket', () => {
  it('reads the system back from a window id, colons and all', () => {
    const { id } = rollupBucketId('System:team-a/Payments', 1_000_000, 2_000);
    expect(id).toBe('healthrollup:system:team-a/payments:500');
    expect(systemOfRollupBucket(id)).toBe('system:team-a/payments');
  });

  it('reads no system from an id of another shape', () => {
    expect(
      systemOfRollupBucket('healthrollup:system:default/a'),
    ).toBeUndefined();
    expect(systemOfRollupBucket('other:system:default/a:1')).toBeUndefined();
  });
});

describe('RollupConsumer', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const testbed = healthTestbed(databases);

  afterAll(async () => {
    await testbed.close();
  });

  it.each(databases.eachSupportedId())(
    'computes the windows still waiting when it stops, on %p',
    async databaseId => {
      const { store, catalog } = await testbed.setup(databaseId);
      // A window of a minute: nothing would run before the test ends.
      const a = testbed.instance(store, catalog, 'a', { windowMs: 60_000 });
      await testbed.setStatus(store, DEMO_SLICES[0], 'unhealthy', 'down');

      await a.consumer.requestRecompute(PAYMENTS);
      expect(await store.readRollup(PAYMENTS)).toBeUndefined();
      await a.consumer.stop();

      expect(a.rollups.recomputes).toBe(1);
      expect(await store.readRollup(PAYMENTS)).toMatchObject({
        status: 'unhealthy',
        reasons: [expect.objectContaining({ display: 'down' })],
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'lets another instance claim the rest of a window it ran early at stop, on %p',
    async databaseId => {
      const { knex, store, catalog } = await testbed.setup(databaseId);
      const now = () => Date.UTC(2026, 11, 1, 12, 0, 10);
      const a = testbed.instance(store, catalog, 'a', {
        windowMs: 60_000,
        now,
      });
      const b = testbed.instance(testbed.otherStore(knex), catalog, 'b', {
        windowMs: 60_000,
        now,
      });
      await a.consumer.requestRecompute(PAYMENTS);
      await a.consumer.stop();

      // A change on b later in the same window claims it again.
      await b.consumer.requestRecompute(PAYMENTS);
      await b.consumer.stop();
      expect(b.rollups.recomputes).toBe(1);
    },
  );

  it.each(databases.eachSupportedId())(
    'stops waiting for a recompute that hangs after its stop timeout, and leaves the claim for the sweep, on %p',
    async databaseId => {
      const { store } = await testbed.setup(databaseId);
      const now = () => Date.UTC(2026, 11, 1, 12, 0, 10);
      let started = 0;
      const consumer = new RollupConsumer({
        store,
        rollups: {
          recompute: () => {
            started += 1;
            return new Promise(() => {});
          },
        } as unknown as RollupService,
        logger: mockServices.logger.mock(),
        instanceId: 'a',
        windowMs: 60_000,
        now,
      });
      await consumer.requestRecompute(PAYMENTS);

      const stopping = Date.now();
      await consumer.stop({ timeoutMs: 200 });

      expect(started).toBe(1);
      expect(Date.now() - stopping).toBeLessThan(2_000);
      const { id } = rollupBucketId(PAYMENTS, now(), 60_000);
      expect(await store.claimRollup(id, 'b', now())).toBe(false);
    },
  );

  it.each(databases.eachSupportedId())(
    'computes a window whose instance died before its end, once across instances, a lease after it, on %p',
    async databaseId => {
      const { knex, store, catalog } = await testbed.setup(databaseId);
      let now = Date.UTC(2026, 11, 1, 12, 0, 10);
      const clock = () => now;
      await testbed.setStatus(store, DEMO_SLICES[0], 'unhealthy', 'down');
      const { id } = rollupBucketId(PAYMENTS, now, 2_000);
      expect(await store.claimRollup(id, 'dead', now)).toBe(true);
      const b = testbed.instance(testbed.otherStore(knex), catalog, 'b', {
        windowMs: 2_000,
        now: clock,
      });
      const c = testbed.instance(store, catalog, 'c', {
        windowMs: 2_000,
        now: clock,
      });

      now += 2_000 + RESCUE_LEASE_MS;
      expect(await b.consumer.rescueOverdueWindows()).toBe(0);
      now += 1;
      expect(await b.consumer.rescueOverdueWindows()).toBe(1);
      expect(await c.consumer.rescueOverdueWindows()).toBe(0);
      await b.consumer.stop();
      await c.consumer.stop();

      expect(await store.readRollup(PAYMENTS)).toMatchObject({
        status: 'unhealthy',
        reasons: [expect.objectContaining({ display: 'down' })],
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'leaves alone a window that was computed, on %p',
    async databaseId => {
      const { store, catalog } = await testbed.setup(databaseId);
      let now = Date.UTC(2026, 11, 1, 12, 0, 10);
      const a = testbed.instance(store, catalog, 'a', {
        windowMs: 2_000,
        now: () => now,
      });
      const { id } = rollupBucketId(PAYMENTS, now, 2_000);
      await store.claimRollup(id, 'alive', now);
      now += 2_000;
      await a.rollups.recompute(PAYMENTS);

      now += RESCUE_LEASE_MS + 1_000;
      expect(await a.consumer.rescueOverdueWindows()).toBe(0);
      await a.consumer.stop();
    },
  );

  it('recomputes at most 8 systems at once, the rest as they finish', async () => {
    let running = 0;
    let most = 0;
    let done = 0;
    const consumer = new RollupConsumer({
      store: {
        claimRollup: async () => true,
        releaseRollupClaim: async () => {},
      } as unknown as DatabaseStateStore,
      rollups: {
        recompute: async () => {
          running += 1;
          most = Math.max(most, running);
          await new Promise(resolve => setTimeout(resolve, 20));
          running -= 1;
          done += 1;
        },
      } as unknown as RollupService,
      logger: mockServices.logger.mock(),
      instanceId: 'a',
      windowMs: 1,
    });

    for (let i = 0; i < 30; i++) {
      await consumer.requestRecompute(`system:default/s-${i}`);
    }
    await consumer.stop();

    expect(done).toBe(30);
    expect(most).toBe(8);
  });
});
