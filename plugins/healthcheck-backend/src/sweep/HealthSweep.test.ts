import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import {
  ENVIRONMENT_CHANGED_TOPIC,
  SYSTEM_STATUS_CHANGED_TOPIC,
} from '@vigil/plugin-healthcheck-common';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import {
  DEMO_SLICES,
  HealthInstance,
  healthTestbed,
} from '../rollup/__testUtils__/healthTestbed';
import { rollupBucketId } from '../rollup/RollupConsumer';
import { HealthSweep, joinSweepScopes } from './HealthSweep';

jest.setTimeout(60_000);

const PAYMENTS = 'system:default/payments';
const [PRODUCTION, STAGING] = DEMO_SLICES;
const WINDOW_MS = 2_000;

function sweepOf(
  store: DatabaseStateStore,
  instance: HealthInstance,
  options: { pageSize?: number } = {},
) {
  return new HealthSweep({
    store,
    transitions: instance.transitions,
    rollups: instance.rollups,
    logger: mockServices.logger.mock(),
    rollupWindowMs: WINDOW_MS,
    pageSize: options.pageSize ?? 2,
  });
}

describe('HealthSweep', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const testbed = healthTestbed(databases);

  afterAll(async () => {
    await testbed.close();
  });

  /** Every demo slice healthy, and every status and rollup stored so ten minutes ago. */
  async function healthyDemo(databaseId: Parameters<typeof testbed.setup>[0]) {
    const setup = await testbed.setup(databaseId);
    const { store, catalog } = setup;
    const live = testbed.instance(store, catalog, 'live', {
      now: () => Date.now() - 10 * 60_000,
    });
    for (const slice of DEMO_SLICES) {
      await testbed.setStatus(store, slice, 'healthy');
    }
    const systems = [...new Set(DEMO_SLICES.map(slice => slice.systemRef))];
    await live.transitions.checkSystems(systems);
    for (const systemRef of systems) {
      await live.rollups.recompute(systemRef);
    }
    return { ...setup, live };
  }

  it.each(databases.eachSupportedId())(
    'repairs an environment whose transition was missed, notifying its owner once, and not again on its next run, on %p',
    async databaseId => {
      const { store, catalog } = await healthyDemo(databaseId);
      // A run turned production unhealthy; the instance died before its
      // follow-up checked the environment.
      await testbed.setStatus(store, PRODUCTION, 'unhealthy', 'down');
      const a = testbed.instance(store, catalog, 'a');
      const sweep = sweepOf(store, a);

      const first = await sweep.rederiveNow();
      const second = await sweep.rederiveNow();

      expect(first).toMatchObject({
        systems: 3,
        slices: 4,
        environments: 1,
        rollups: { drift: 1, 'missed-window': 0, upstream: 0 },
      });
      expect(second).toMatchObject({
        systems: 3,
        environments: 0,
        rollups: { drift: 0, 'missed-window': 0, upstream: 0 },
      });
      expect(
        a.notifications.sent.map(notification => notification.payload.title),
      ).toEqual(['payments in production is unhealthy']);
      expect(
        a.events
          .of(ENVIRONMENT_CHANGED_TOPIC)
          .map(
            (e: any) => `${e.systemRef} ${e.environment} ${e.from}->${e.to}`,
          ),
      ).toEqual([`${PAYMENTS} production healthy->unhealthy`]);
      expect(a.events.of(SYSTEM_STATUS_CHANGED_TOPIC)).toEqual([
        expect.objectContaining({ from: 'healthy', to: 'unhealthy' }),
      ]);
      expect(
        (await store.readEnvironmentStates(PAYMENTS)).get('production'),
      ).toMatchObject({ status: 'unhealthy' });
      expect(await store.readRollup(PAYMENTS)).toMatchObject({
        status: 'unhealthy',
        reasons: [expect.objectContaining({ display: 'down' })],
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'tells a missed transition once when two instances sweep at once, on %p',
    async databaseId => {
      const { knex, store, catalog } = await healthyDemo(databaseId);
      await testbed.setStatus(store, STAGING, 'unhealthy', 'down');
      const other = testbed.otherStore(knex);
      const a = testbed.instance(store, catalog, 'a');
      const b = testbed.instance(other, catalog, 'b');

      const outcomes = await Promise.all([
        sweepOf(store, a).rederiveNow(),
        sweepOf(other, b).rederiveNow(),
      ]);

      expect(outcomes[0].environments + outcomes[1].environments).toBe(1);
      expect([...a.notifications.sent, ...b.notifications.sent]).toHaveLength(
        1,
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'recomputes a rollup window an instance claimed and died before computing, on %p',
    async databaseId => {
      const { store, catalog } = await healthyDemo(databaseId);
      // Production turned unhealthy, its environment moved, and the
      // instance that claimed the rollup's window died before its end.
      await testbed.setStatus(store, PRODUCTION, 'unhealthy', 'down');
      const claimedAt = Date.now() - 5 * 60_000;
      await store.transitionEnvironment({
        systemRef: PAYMENTS,
        environment: 'production',
        from: 'healthy',
        to: 'unhealthy',
        at: claimedAt,
      });
      await store.claimRollup(
        rollupBucketId(PAYMENTS, claimedAt, WINDOW_MS).id,
        'dead',
        claimedAt,
      );
      const a = testbed.instance(store, catalog, 'a');

      const outcome = await sweepOf(store, a).rederiveNow();

      expect(outcome).toMatchObject({
        environments: 0,
        rollups: { 'missed-window': 1, drift: 0, upstream: 0 },
      });
      expect(await store.readRollup(PAYMENTS)).toMatchObject({
        status: 'unhealthy',
        reasons: [expect.objectContaining({ display: 'down' })],
      });
      // A window computed after its claim is no longer missed.
      expect((await sweepOf(store, a).rederiveNow()).rollups).toEqual({
        'missed-window': 0,
        drift: 0,
        upstream: 0,
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'drops an environment that lost its slices from the rollup and forgets its status, on %p',
    async databaseId => {
      const { store, catalog, slices } = await healthyDemo(databaseId);
      await slices.applyChanges({ write: [], remove: [STAGING.id] });
      const a = testbed.instance(store, catalog, 'a');

      const outcome = await sweepOf(store, a).rederiveNow();

      expect(outcome).toMatchObject({
        goneEnvironments: 1,
        rollups: { drift: 1 },
      });
      expect(
        (await store.readRollup(PAYMENTS))?.environments.map(e => e.name),
      ).toEqual(['production']);
      expect([...(await store.readEnvironmentStates(PAYMENTS)).keys()]).toEqual(
        ['production'],
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'sweeps only the systems it is asked to, and prunes claims only in full sweeps, on %p',
    async databaseId => {
      const { store, catalog } = await healthyDemo(databaseId);
      await testbed.setStatus(store, PRODUCTION, 'unhealthy', 'down');
      await testbed.setStatus(store, DEMO_SLICES[3], 'unhealthy', 'down');
      const old = Date.now() - 60 * 60_000;
      await store.claimRollup('healthrollup:system:default/x:1', 'a', old);
      const a = testbed.instance(store, catalog, 'a');
      const sweep = sweepOf(store, a);

      const scoped = await sweep.rederiveNow({
        systemRefs: ['System:default/Messaging'],
      });
      expect(scoped).toMatchObject({
        scope: ['system:default/messaging'],
        systems: 1,
        environments: 1,
        prunedClaims: 0,
      });
      expect(await sweep.rederiveNow()).toMatchObject({
        scope: 'all',
        environments: 1,
        prunedClaims: 1,
      });
    },
  );
});

describe('HealthSweep.rederiveNow', () => {
  /** A sweep over an empty store whose first page waits for `release()`. */
  function blockedSweep() {
    let release!: () => void;
    const released = new Promise<void>(resolve => {
      release = resolve;
    });
    const pagesRead: string[] = [];
    const store = {
      readRollupClaims: async () => [],
      listSystemsPage: async () => {
        pagesRead.push('all');
        await released;
        return [];
      },
      readEnvironmentSlices: async (systems: Array<{ systemRef: string }>) => {
        pagesRead.push(systems.map(s => s.systemRef).join(' '));
        return [];
      },
      readEnvironmentStatesOf: async () => new Map(),
      readStoredRollups: async () => new Map(),
      pruneRollupClaims: async () => 0,
    } as unknown as DatabaseStateStore;
    const sweep = new HealthSweep({
      store,
      transitions: { check: async () => [] },
      rollups: { recompute: async () => ({} as any) },
      logger: mockServices.logger.mock(),
      rollupWindowMs: WINDOW_MS,
    });
    return { sweep, release, pagesRead };
  }

  it('runs one more sweep after the running one for every ask made meanwhile, together', async () => {
    const { sweep, release, pagesRead } = blockedSweep();
    const running = sweep.rederiveNow();
    await new Promise(resolve => setImmediate(resolve));
    const asks = [
      sweep.rederiveNow({ systemRefs: ['system:default/b'] }),
      sweep.rederiveNow({ systemRefs: ['system:default/a'] }),
    ];
    expect(asks[0]).toBe(asks[1]);

    release();
    await running;
    const [next] = await Promise.all(asks);

    expect(next.scope).toEqual(['system:default/a', 'system:default/b']);
    expect(pagesRead).toEqual(['all', 'system:default/a system:default/b']);
  });

  it('makes the next sweep a full one when any ask meanwhile is for every system', async () => {
    const { sweep, release } = blockedSweep();
    const running = sweep.rederiveNow();
    const asks = [
      sweep.rederiveNow({ systemRefs: ['system:default/a'] }),
      sweep.rederiveNow(),
    ];
    release();
    await running;
    expect((await Promise.all(asks)).map(outcome => outcome.scope)).toEqual([
      'all',
      'all',
    ]);
  });
});

describe('joinSweepScopes', () => {
  const a = new Set(['system:default/a']);
  const b = new Set(['system:default/b']);

  it('sweeps the systems of both asks, or every system if either asks for all', () => {
    expect(joinSweepScopes(a, b, 10)).toEqual(
      new Set(['system:default/a', 'system:default/b']),
    );
    expect(joinSweepScopes(a, 'all', 10)).toBe('all');
  });

  it('sweeps every system when the asks together name more than the most', () => {
    expect(joinSweepScopes(a, b, 1)).toBe('all');
  });
});
