import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import type { Entity } from '@backstage/catalog-model';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseStateStore } from '../database/DatabaseStateStore';
import { healthTestbed } from './__testUtils__/healthTestbed';
import {
  SYSTEM_STATUS_CHANGED_TOPIC,
  SYSTEM_STATUS_SIGNAL_CHANNEL,
} from '@vigil/plugin-healthcheck-common';
import { liveKeysUnder } from './liveKeys';
import { handleSystemAnnouncements, RollupService } from './RollupService';
import type { OutboxDelivery, OutboxEntry } from '../outbox';

const liveKeyOf = liveKeysUnder(Buffer.alloc(32, 1));

/** checkout depends on payments-service, a component of payments. */
const ENTITIES: Record<string, Entity> = {
  'system:default/checkout': {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: { name: 'checkout', namespace: 'default' },
    relations: [
      { type: 'dependsOn', targetRef: 'component:default/payments-service' },
    ],
  },
  'component:default/payments-service': {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Component',
    metadata: { name: 'payments-service', namespace: 'default' },
    spec: { system: 'payments' },
  },
};

describe('RollupService.upstreamOf', () => {
  function setup() {
    // Not 0: lru-cache takes a start time of 0 for "no expiry".
    let clock = 1_000_000;
    let failing = false;
    const systemReads: string[] = [];
    const catalog = {
      getEntityByRef: async (ref: string) => {
        systemReads.push(ref);
        if (failing) throw new Error('catalog unreachable');
        return ENTITIES[ref];
      },
      getEntities: async () => ({ items: [] }),
      getEntitiesByRefs: async ({ entityRefs }: { entityRefs: string[] }) => ({
        items: entityRefs.map(ref => ENTITIES[ref]),
      }),
    } as unknown as CatalogService;
    const service = new RollupService({
      store: {} as DatabaseStateStore,
      catalog,
      auth: mockServices.auth(),
      logger: mockServices.logger.mock(),
      liveKeyOf,
      now: () => clock,
    });
    return {
      service,
      systemReads,
      advance: (ms: number) => {
        clock += ms;
      },
      fail: (value: boolean) => {
        failing = value;
      },
    };
  }

  it('maps dependsOn targets to their systems', async () => {
    const { service } = setup();
    expect(await service.upstreamOf('system:default/checkout')).toEqual([
      'system:default/payments',
    ]);
  });

  it('asks the catalog once for concurrent and repeated asks within 30 s, and again after', async () => {
    const { service, systemReads, advance } = setup();
    await Promise.all([
      service.upstreamOf('system:default/checkout'),
      service.upstreamOf('System:default/Checkout'),
    ]);
    advance(30_000);
    await service.upstreamOf('system:default/checkout');
    expect(systemReads).toHaveLength(1);

    advance(1);
    await service.upstreamOf('system:default/checkout');
    expect(systemReads).toHaveLength(2);
  });

  it('does not remember a lookup that failed', async () => {
    const { service, systemReads, fail } = setup();
    fail(true);
    await expect(service.upstreamOf('system:default/checkout')).rejects.toThrow(
      'catalog unreachable',
    );
    fail(false);
    expect(await service.upstreamOf('system:default/checkout')).toEqual([
      'system:default/payments',
    ]);
    expect(systemReads).toHaveLength(2);
  });
});

describe('RollupService.get', () => {
  const SYSTEM = 'system:default/checkout';

  function setup() {
    let clock = 1_000_000;
    const reads: string[] = [];
    let status: 'healthy' | 'unhealthy' = 'healthy';
    const rollupOf = (systemRef: string) =>
      systemRef === SYSTEM
        ? {
            systemRef,
            status,
            environments: [],
            reasons: [],
            healthy: 0,
            total: 0,
            upstream: [],
            updatedAt: new Date(clock).toISOString(),
          }
        : undefined;
    const store = {
      readRollup: async (systemRef: string) => {
        reads.push(systemRef);
        return rollupOf(systemRef);
      },
      readEnvironmentSlices: async () => [],
      readEnvironmentStates: async () => new Map(),
      readRollups: async () => new Map(),
      writeRollup: async () => ({ stored: true, previous: rollupOf(SYSTEM) }),
    } as unknown as DatabaseStateStore;
    const service = new RollupService({
      store,
      catalog: {
        getEntityByRef: async () => undefined,
        getEntitiesByRefs: async () => ({ items: [] }),
      } as unknown as CatalogService,
      auth: mockServices.auth(),
      logger: mockServices.logger.mock(),
      liveKeyOf,
      now: () => clock,
    });
    return {
      service,
      reads,
      advance: (ms: number) => {
        clock += ms;
      },
      setStatus: (value: typeof status) => {
        status = value;
      },
    };
  }

  it('serves a rollup read in the last 2 s from memory, and reads it again after', async () => {
    const { service, reads, advance } = setup();
    await service.get(SYSTEM);
    advance(2_000);
    await service.get('System:default/Checkout');
    expect(reads).toHaveLength(1);

    advance(1);
    await service.get(SYSTEM);
    expect(reads).toHaveLength(2);
  });

  it('remembers that a system has no rollup, too', async () => {
    const { service, reads } = setup();
    expect(await service.get('system:default/nothing')).toBeUndefined();
    expect(await service.get('system:default/nothing')).toBeUndefined();
    expect(reads).toHaveLength(1);
  });

  it('keeps at most 20,000 systems, dropping the least recently read', async () => {
    const { service, reads } = setup();
    for (let i = 0; i <= 20_000; i++) {
      await service.get(`system:default/s-${i}`);
    }
    await service.get('system:default/s-20000');
    expect(reads).toHaveLength(20_001);
    await service.get('system:default/s-0');
    expect(reads).toHaveLength(20_002);
  });

  it('reads a system afresh after this instance recomputed it', async () => {
    const { service, reads, setStatus } = setup();
    expect((await service.get(SYSTEM))?.status).toBe('healthy');
    setStatus('unhealthy');
    await service.recompute(SYSTEM);

    const before = reads.length;
    expect((await service.get(SYSTEM))?.status).toBe('unhealthy');
    expect(reads).toHaveLength(before + 1);
  });
});

describe('RollupService.recompute', () => {
  const SYSTEM = 'system:default/checkout';

  it('tells browsers only the live key of a system whose status changed, and the backend the whole rollup', async () => {
    const signals = { publish: jest.fn(async () => {}) };
    const events = { publish: jest.fn(async () => {}) };
    const store = {
      readRollup: async () => undefined,
      readEnvironmentSlices: async () => [
        {
          sliceId: 's',
          checkId: 'checkout-http',
          systemRef: SYSTEM,
          environment: 'production',
          paused: false,
          state: { status: 'unhealthy', lastReason: '[STATUS] (500) == 200' },
        },
      ],
      readEnvironmentStates: async () => new Map(),
      readRollups: async () => new Map(),
      writeRollup: async (
        _rollup: unknown,
        _at: number,
        alongside?: (tx: any, previous: undefined) => Promise<void>,
      ) => {
        await alongside?.({}, undefined);
        return { stored: true, previous: undefined };
      },
    } as unknown as DatabaseStateStore;
    // The outbox as the transaction writes it; delivered below.
    const written: OutboxEntry[] = [];
    const outbox = {
      write: async (entries: readonly OutboxEntry[]) => {
        written.push(...entries);
      },
      transaction: async (work: any) => work({}),
      wake() {},
    };
    const service = new RollupService({
      store,
      catalog: {
        getEntityByRef: async () => undefined,
        getEntities: async () => ({ items: [] }),
        getEntitiesByRefs: async () => ({ items: [] }),
      } as unknown as CatalogService,
      auth: mockServices.auth(),
      logger: mockServices.logger.mock(),
      events: events as any,
      signals: signals as any,
      outbox,
      liveKeyOf,
      now: () => 1_000_000,
    });
    const deliveries = new Map<string, OutboxDelivery>();
    handleSystemAnnouncements(
      { handle: (kind, delivery) => deliveries.set(kind, delivery) },
      service,
    );

    await service.recompute(SYSTEM);
    expect(signals.publish).not.toHaveBeenCalled(); // not before delivery
    for (const entry of written) {
      await deliveries.get(entry.kind)!(entry.payload);
    }

    expect(signals.publish).toHaveBeenCalledTimes(1);
    expect(signals.publish).toHaveBeenCalledWith({
      recipients: { type: 'broadcast' },
      channel: SYSTEM_STATUS_SIGNAL_CHANNEL,
      message: { type: 'SYSTEM_STATUS_CHANGED', liveKey: liveKeyOf(SYSTEM) },
    });
    expect(JSON.stringify(signals.publish.mock.calls)).not.toMatch(
      /checkout|STATUS\]|unhealthy/,
    );
    expect(events.publish).toHaveBeenCalledWith({
      topic: SYSTEM_STATUS_CHANGED_TOPIC,
      eventPayload: expect.objectContaining({
        type: 'SYSTEM_STATUS_CHANGED',
        systemRef: SYSTEM,
        from: 'unknown',
        to: 'unhealthy',
        rollup: expect.objectContaining({
          reasons: [
            expect.objectContaining({ display: '[STATUS] (500) == 200' }),
          ],
        }),
      }),
    });
  });
});

describe('RollupService while the database cannot be read', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const testbed = healthTestbed(databases);
  const SYSTEM = 'system:default/payments';

  afterAll(async () => {
    await testbed.close();
  });

  it.each(databases.eachSupportedId())(
    'answers the last rollup it read, marked stale, on %p',
    async databaseId => {
      const { knex } = await testbed.setup(databaseId);
      // This instance's own connection to the database, which it loses.
      const client = testbed.otherClient(knex);
      const store = new DatabaseStateStore(client);
      let clock = 1_000_000;
      const service = new RollupService({
        store,
        catalog: catalogServiceMock({ entities: [] }),
        auth: mockServices.auth(),
        logger: mockServices.logger.mock(),
        liveKeyOf,
        now: () => clock,
      });
      await store.writeRollup(
        {
          systemRef: SYSTEM,
          status: 'unhealthy',
          environments: [],
          reasons: [],
          healthy: 0,
          total: 1,
          upstream: [],
          updatedAt: new Date(clock).toISOString(),
          since: new Date(clock).toISOString(),
        },
        clock,
      );
      expect(await service.get(SYSTEM)).toMatchObject({
        status: 'unhealthy',
      });
      expect((await service.get(SYSTEM))?.stale).toBeUndefined();

      await client.destroy();
      clock += 60_000;

      expect(await service.get(SYSTEM)).toMatchObject({
        systemRef: SYSTEM,
        status: 'unhealthy',
        stale: true,
      });
      expect(await service.getOrEmpty(SYSTEM)).toMatchObject({ stale: true });
    },
  );
});
