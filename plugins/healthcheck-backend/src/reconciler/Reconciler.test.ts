import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { decodeSliceId, encodeSliceId } from '@vigil/plugin-healthcheck-common';
import knexFactory, { Knex } from 'knex';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseSliceStore } from '../database/DatabaseSliceStore';
import { FakeClock } from '../scheduler/__testUtils__/FakeClock';
import { SliceScheduler } from '../scheduler';
import { healthTestbed } from '../rollup/__testUtils__/healthTestbed';
import { matrixOf } from '../rollup/systemMatrix';
import type { DueTick } from '../scheduler';
import { CatalogChangePoller } from './CatalogChangePoller';
import { createStoredSliceSource } from './createStoredSliceSource';
import type { DesiredSlice } from '../model';
import { readDemoCatalog } from './__testUtils__/demoCatalog';
import { mutableCatalog } from './__testUtils__/mutableCatalog';
import {
  AdvisoryReconcileLock,
  createReconcileLock,
  InProcessReconcileLock,
} from './ReconcileLock';
import {
  joinWaitingPass,
  lockRetryDelayMs,
  ReconcileOutcome,
  Reconciler,
} from './Reconciler';

jest.setTimeout(60_000);

const PAYMENTS_CHECK = 'healthcheck:default/payments-health';
const CHECKOUT_CHECK = 'healthcheck:default/checkout-health';
const SSO_CHECK = 'healthcheck:default/legacy-sso-login';

function checkOf(row: { id: string }): string {
  return decodeSliceId(row.id).checkId;
}

type SliceRow = {
  id: string;
  system_ref: string;
  paused: boolean | number;
  removed: boolean | number;
  interval_ms: number;
  revision: number | string;
};

describe('joinWaitingPass', () => {
  it('adds the systems asked for to those already waiting, each once', () => {
    expect(
      joinWaitingPass(
        new Set(['system:default/a']),
        ['system:default/a', 'system:default/b'],
        3,
      ),
    ).toEqual(new Set(['system:default/a', 'system:default/b']));
  });

  it('waits for a full pass instead past the most systems a scoped pass may name', () => {
    const three = new Set(['a', 'b', 'c'].map(n => `system:default/${n}`));
    expect(joinWaitingPass(three, ['system:default/c'], 3)).toEqual(three);
    expect(joinWaitingPass(three, ['system:default/d'], 3)).toBe('full');
    expect(joinWaitingPass('full', ['system:default/e'], 3)).toBe('full');
  });
});

describe('lockRetryDelayMs', () => {
  it('doubles from 100 ms up to 2 s', () => {
    expect([0, 1, 2, 3, 4, 5, 20].map(lockRetryDelayMs)).toEqual([
      100, 200, 400, 800, 1_600, 2_000, 2_000,
    ]);
  });
});

describe('Reconciler', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const testbed = healthTestbed(databases);
  const extraClients: Knex[] = [];

  afterAll(async () => {
    await Promise.all(extraClients.map(client => client.destroy()));
  });

  async function setup(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const slices = await DatabaseSliceStore.create({
      database: mockServices.database({ knex, migrations: { skip: false } }),
    });
    const catalog = mutableCatalog(readDemoCatalog());
    const apiChecks: Array<{ id: string; spec: object }> = [];
    const logger = mockServices.logger.mock();
    /** A reconciler on this database and catalog, with some options changed. */
    const reconcilerWith = (
      options: Partial<ConstructorParameters<typeof Reconciler>[0]> = {},
    ) =>
      new Reconciler({
        catalog: catalog.catalog,
        auth: mockServices.auth(),
        logger,
        listStoredChecks: async () => apiChecks,
        slices,
        lock: createReconcileLock(knex),
        ...options,
      });
    const reconciler = reconcilerWith();
    const poller = new CatalogChangePoller({
      catalog: catalog.catalog,
      auth: mockServices.auth(),
      logger: mockServices.logger.mock(),
      slices,
      reconciler,
    });
    const rows = async () =>
      (await knex<SliceRow>('healthcheck_slices').orderBy('id')).map(row => ({
        id: row.id,
        systemRef: row.system_ref,
        paused: Boolean(row.paused),
        removed: Boolean(row.removed),
        intervalMs: Number(row.interval_ms),
        revision: Number(row.revision),
      }));
    const live = async () => (await rows()).filter(row => !row.removed);
    return {
      knex,
      slices,
      catalog,
      apiChecks,
      reconciler,
      poller,
      rows,
      live,
      logger,
      reconcilerWith,
    };
  }

  it.each(databases.eachSupportedId())(
    'writes every slice of the demo catalog in a full pass, and nothing in a second one, on %p',
    async databaseId => {
      const { reconciler, live } = await setup(databaseId);

      const first = await reconciler.reconcileAll();
      expect(first).toMatchObject({
        ran: true,
        scheduled: 18,
        rescheduled: 0,
        cancelled: 0,
      });
      const stored = await live();
      expect(stored.filter(row => !row.paused)).toHaveLength(17);
      expect(stored.filter(row => row.paused).map(row => row.id)).toEqual([
        expect.stringContaining('legacy-sso-login'),
      ]);

      const second = await reconciler.reconcileAll();
      expect(second).toMatchObject({
        scheduled: 0,
        rescheduled: 0,
        cancelled: 0,
        revision: first.revision,
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'derives nothing again and reads no stored slice in a full pass over an unchanged catalog, and derives an edited check alone, on %p',
    async databaseId => {
      const { reconcilerWith, slices, catalog } = await setup(databaseId);
      const validateSlice = jest.fn((_slice: DesiredSlice) => []);
      const reconciler = reconcilerWith({ validateSlice });
      const first = await reconciler.reconcileAll();
      expect(validateSlice).toHaveBeenCalledTimes(17);

      validateSlice.mockClear();
      const listed = jest.spyOn(slices, 'listSliceHeaders');
      const again = await reconciler.reconcileAll();
      expect(again).toMatchObject({
        ran: true,
        scheduled: 0,
        rescheduled: 0,
        cancelled: 0,
        revision: first.revision,
      });
      expect(validateSlice).not.toHaveBeenCalled();
      expect(listed).not.toHaveBeenCalled();

      catalog.edit(PAYMENTS_CHECK, e => {
        e.spec!.timeout = '3s';
      });
      const edited = await reconciler.reconcileAll();
      expect(edited).toMatchObject({
        scheduled: 0,
        rescheduled: 2,
        cancelled: 0,
        changedSystems: ['system:default/payments'],
      });
      expect(validateSlice.mock.calls.map(([slice]) => slice.checkId)).toEqual([
        PAYMENTS_CHECK,
        PAYMENTS_CHECK,
      ]);
      expect(listed).toHaveBeenCalledTimes(1);
    },
  );

  it.each(databases.eachSupportedId())(
    'converges slices written under it since its last pass, however unchanged the catalog, on %p',
    async databaseId => {
      const { reconciler, slices, live } = await setup(databaseId);
      await reconciler.reconcileAll();
      const [gone] = await live();
      // Another instance's pass, or one of an older release, removed it.
      await slices.applyChanges({ write: [], remove: [gone.id] });

      const outcome = await reconciler.reconcileAll();
      expect(outcome).toMatchObject({ scheduled: 1, cancelled: 0 });
      expect((await live()).map(row => row.id)).toContain(gone.id);
    },
  );

  it.each(databases.eachSupportedId())(
    'compares with the stored slices again after a full pass whose write failed, on %p',
    async databaseId => {
      const { reconciler, slices, catalog } = await setup(databaseId);
      await reconciler.reconcileAll();
      catalog.edit(PAYMENTS_CHECK, e => {
        e.spec!.timeout = '3s';
      });
      jest
        .spyOn(slices, 'applyChanges')
        .mockRejectedValueOnce(new Error('connection lost'));
      await expect(reconciler.reconcileAll()).rejects.toThrow(
        'connection lost',
      );

      // The same catalog as the failed pass derived: the write is still due.
      const retried = await reconciler.reconcileAll();
      expect(retried).toMatchObject({ rescheduled: 2 });
    },
  );

  it.each(databases.eachSupportedId())(
    'touches only the named system in a scoped pass, on %p',
    async databaseId => {
      const { reconciler, catalog, rows } = await setup(databaseId);
      await reconciler.reconcileAll();
      const before = await rows();
      // Both payments and checkout change in the catalog; only payments is reconciled.
      catalog.edit(PAYMENTS_CHECK, e => {
        e.spec!.timeout = '3s';
      });
      catalog.edit(CHECKOUT_CHECK, e => {
        e.spec!.timeout = '3s';
      });

      const outcome = await reconciler.reconcileSystems([
        'system:default/Payments',
      ]);

      expect(outcome).toMatchObject({
        scope: ['system:default/payments'],
        scheduled: 0,
        rescheduled: 2,
        cancelled: 0,
      });
      const after = await rows();
      const changed = after.filter(
        row => before.find(b => b.id === row.id)?.revision !== row.revision,
      );
      expect(changed.map(row => row.systemRef)).toEqual([
        'system:default/payments',
        'system:default/payments',
      ]);
      expect(
        after.filter(row => row.systemRef === 'system:default/checkout'),
      ).toEqual(
        before.filter(row => row.systemRef === 'system:default/checkout'),
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'removes the slice of an environment a member of another team would add, and warns once, naming the member, on %p',
    async databaseId => {
      const { reconciler, catalog, live, logger } = await setup(databaseId);
      await reconciler.reconcileAll();
      const canary = (ids: string[]) =>
        ids.filter(id => id.endsWith(':canary'));
      expect(canary((await live()).map(row => row.id))).toHaveLength(1);

      catalog.edit('component:default/checkout-service-canary', e => {
        e.spec!.owner = 'group:default/storefront-team';
      });
      const outcome = await reconciler.reconcileSystems([
        'system:default/checkout',
      ]);

      expect(outcome).toMatchObject({ scheduled: 0, cancelled: 1 });
      expect(canary((await live()).map(row => row.id))).toEqual([]);
      const warnings = () =>
        logger.warn.mock.calls
          .map(([message]) => String(message))
          .filter(message => message.includes('would add environment'));
      expect(warnings()).toEqual([
        expect.stringMatching(
          /^Reconcile found problems with system:default\/checkout:\n- vigil\.dev\/environment on component:default\/checkout-service-canary would add environment "canary" to system:default\/checkout, but component:default\/checkout-service-canary is owned by group:default\/storefront-team and system:default\/checkout is owned by group:default\/payments-team; /,
        ),
      ]);
      await reconciler.reconcileAll();
      await reconciler.reconcileSystems(['system:default/checkout']);
      expect(warnings()).toHaveLength(1);
    },
  );

  it.each(databases.eachSupportedId())(
    'updates the health of a system whose environment a full pass removes, on %p',
    async databaseId => {
      const { knex, catalog, live, reconcilerWith } = await setup(databaseId);
      const states = testbed.storeOn(knex);
      const health = testbed.instance(states, catalog.catalog, 'a');
      // As the plugin wires it.
      const reconciler = reconcilerWith({
        onSystemsChanged: async systemRefs => {
          await health.transitions.checkSystems(systemRefs);
          await Promise.all(
            systemRefs.map(ref => health.rollups.recompute(ref)),
          );
        },
      });
      await reconciler.reconcileAll();
      const checkout = (await live()).filter(
        row => row.systemRef === 'system:default/checkout',
      );
      for (const row of checkout) {
        const key = decodeSliceId(row.id);
        await testbed.setStatus(
          states,
          { id: row.id, ...key },
          key.environment === 'canary' ? 'unhealthy' : 'healthy',
          'canary down',
        );
      }
      await health.transitions.checkSystems(['system:default/checkout']);
      await health.rollups.recompute('system:default/checkout');

      // The canary's member moves to another team, so canary is no
      // environment of checkout any more.
      catalog.edit('component:default/checkout-service-canary', e => {
        e.spec!.owner = 'group:default/storefront-team';
      });
      expect(await reconciler.reconcileAll()).toMatchObject({ cancelled: 1 });

      expect(await states.readRollup('system:default/checkout')).toMatchObject({
        status: 'healthy',
        environments: [
          expect.objectContaining({ name: 'production' }),
          expect.objectContaining({ name: 'staging' }),
        ],
        reasons: [],
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'removes orphans in a full pass but leaves them to it in a scoped pass of another system, on %p',
    async databaseId => {
      const { reconciler, slices, live } = await setup(databaseId);
      await reconciler.reconcileAll();
      const key = {
        checkId: 'gone',
        systemRef: 'system:default/vanished',
        environment: 'production',
      };
      const orphan = { id: encodeSliceId(key), ...key };
      await slices.applyChanges({
        write: [{ paused: true, slice: orphan }],
        remove: [],
      });

      await reconciler.reconcileSystems(['system:default/payments']);
      expect((await live()).map(row => row.id)).toContain(orphan.id);

      const outcome = await reconciler.reconcileAll();
      expect(outcome).toMatchObject({ cancelled: 1, scheduled: 0 });
      expect((await live()).map(row => row.id)).not.toContain(orphan.id);
    },
  );

  it.each(databases.eachSupportedId())(
    'moves a slice to its new interval without a double fire when the check changes its interval, on %p',
    async databaseId => {
      const { reconciler, slices, catalog } = await setup(databaseId);
      await reconciler.reconcileAll();
      const loader = createStoredSliceSource({ slices });
      const clock = new FakeClock(Date.UTC(2026, 11, 1, 12, 0, 0));
      const fired: Array<DueTick<DesiredSlice>> = [];
      const scheduler = SliceScheduler.create<DesiredSlice>({
        logger: mockServices.logger.mock(),
        clock,
        executor: batch => {
          fired.push(...batch);
        },
      });
      scheduler.start();
      const load = async () => {
        for (const change of await loader.loadChanges()) {
          await scheduler.submit(change);
        }
        await clock.advance(0);
      };
      await load();
      await clock.advance(60_000);

      catalog.edit(PAYMENTS_CHECK, e => {
        e.spec!.interval = '30s';
      });
      const outcome = await reconciler.reconcileSystems([
        'system:default/payments',
      ]);
      expect(outcome).toMatchObject({
        rescheduled: 2,
        scheduled: 0,
        cancelled: 0,
      });
      const editedAt = clock.now();
      await load();
      await clock.advance(120_000);
      await scheduler.stop();

      const production = fired.filter(
        tick =>
          tick.slice.checkId === PAYMENTS_CHECK &&
          tick.slice.environment === 'production',
      );
      const times = production.map(tick => tick.scheduledAt);
      expect(new Set(times).size).toBe(times.length);
      const afterEdit = times.filter(t => t > editedAt);
      // The first tick on the new grid keeps at least half an interval
      // from the last one on the old grid; then every 30 s.
      const lastBefore = Math.max(...times.filter(t => t <= editedAt));
      expect(afterEdit[0] - lastBefore).toBeGreaterThanOrEqual(15_000);
      for (let i = 1; i < afterEdit.length; i++) {
        expect(afterEdit[i] - afterEdit[i - 1]).toBe(30_000);
      }
      expect(afterEdit.length).toBeGreaterThanOrEqual(3);
    },
  );

  it.each(databases.eachSupportedId())(
    'stops the slices of a paused check and starts them again on resume, on %p',
    async databaseId => {
      const { knex, reconciler, slices, catalog, live } = await setup(
        databaseId,
      );
      await reconciler.reconcileAll();
      const loader = createStoredSliceSource({ slices });
      await loader.loadChanges();

      catalog.edit(PAYMENTS_CHECK, e => {
        e.spec!.paused = true;
      });
      await reconciler.reconcileSystems(['system:default/payments']);
      const paused = await loader.loadChanges();
      expect(paused).toEqual([
        {
          type: 'cancel',
          sliceIds: expect.arrayContaining([
            expect.stringContaining('payments-health'),
          ]),
        },
      ]);
      expect(
        (await live()).filter(row => row.id.includes('payments-health')),
      ).toEqual([
        expect.objectContaining({ paused: true }),
        expect.objectContaining({ paused: true }),
      ]);
      // Their history marks the pause, so up-time leaves it out.
      const markers = await knex('healthcheck_runs').where('status', 'paused');
      expect(markers.map(row => row.slice_id).sort()).toEqual(
        (await live())
          .filter(row => row.id.includes('payments-health'))
          .map(row => row.id)
          .sort(),
      );

      catalog.edit(PAYMENTS_CHECK, e => {
        e.spec!.paused = false;
      });
      await reconciler.reconcileSystems(['system:default/payments']);
      const resumed = await loader.loadChanges();
      expect(resumed).toEqual([
        {
          type: 'upsert',
          slices: [
            expect.objectContaining({ checkId: PAYMENTS_CHECK }),
            expect.objectContaining({ checkId: PAYMENTS_CHECK }),
          ],
        },
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'follows a system that gains and loses an environment through a member, found by polling, on %p',
    async databaseId => {
      const { poller, catalog, live } = await setup(databaseId);
      expect(await poller.poll()).toMatchObject({ pass: 'full' });
      expect(await poller.poll()).toMatchObject({
        pass: 'none',
        changedSystems: [],
      });
      const environmentsOf = async (system: string) =>
        (await live())
          .filter(row => row.systemRef === system)
          .map(row => row.id.split(':').pop())
          .sort();
      expect(await environmentsOf('system:default/payments')).toEqual([
        'production',
        'staging',
        'staging',
      ]);

      catalog.edit('component:default/payments-service', e => {
        e.metadata.annotations = {
          ...e.metadata.annotations,
          'vigil.dev/environment': 'canary',
        };
      });
      expect(await poller.poll()).toMatchObject({
        pass: 'scoped',
        changedSystems: ['system:default/payments'],
      });
      // card-network-sandbox runs in staging only.
      expect(await environmentsOf('system:default/payments')).toEqual([
        'canary',
        'production',
        'staging',
        'staging',
      ]);

      catalog.edit('component:default/payments-service', e => {
        delete e.metadata.annotations!['vigil.dev/environment'];
      });
      await poller.poll();
      expect(await environmentsOf('system:default/payments')).toEqual([
        'production',
        'staging',
        'staging',
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'polls for who each entity is, its etag and its links to systems, never its content, on %p',
    async databaseId => {
      const { catalog, slices, reconciler } = await setup(databaseId);
      const fieldsAsked = new Set<string>();
      const recording = {
        ...catalog.catalog,
        getEntities: (request, options) => {
          (request?.fields ?? ['(everything)']).forEach(field =>
            fieldsAsked.add(field),
          );
          return catalog.catalog.getEntities(request, options);
        },
      } as CatalogService;
      const poller = new CatalogChangePoller({
        catalog: recording,
        auth: mockServices.auth(),
        logger: mockServices.logger.mock(),
        slices,
        reconciler,
      });
      await poller.poll();

      catalog.edit('component:default/payments-service', e => {
        e.metadata.annotations = {
          ...e.metadata.annotations,
          'vigil.dev/environment': 'canary',
        };
      });
      expect(await poller.poll()).toMatchObject({
        pass: 'scoped',
        changedSystems: ['system:default/payments'],
      });
      expect([...fieldsAsked].sort()).toEqual([
        'kind',
        'metadata.etag',
        'metadata.name',
        'metadata.namespace',
        'spec.system',
        'spec.systems',
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'has the loader say a slice stopped running once it read that its environment left the system, on %p',
    async databaseId => {
      const { poller, catalog, live, slices } = await setup(databaseId);
      await poller.poll();
      const loader = createStoredSliceSource({ slices });
      await loader.loadChanges();
      const setCanary = (on: boolean) =>
        catalog.edit('component:default/payments-service', e => {
          e.metadata.annotations = { ...e.metadata.annotations };
          if (on) {
            e.metadata.annotations['vigil.dev/environment'] = 'canary';
          } else {
            delete e.metadata.annotations['vigil.dev/environment'];
          }
        });

      setCanary(true);
      await poller.poll();
      const [canary] = (await live())
        .filter(
          row =>
            row.systemRef === 'system:default/payments' &&
            row.id.endsWith(':canary'),
        )
        .map(row => row.id);
      expect(loader.isRunning(canary)).toBe(false); // not read yet
      await loader.loadChanges();
      expect(loader.isRunning(canary)).toBe(true);

      setCanary(false);
      await poller.poll();
      expect(loader.isRunning(canary)).toBe(true); // not read yet
      await loader.loadChanges();
      expect(loader.isRunning(canary)).toBe(false);
      const [production] = (await live())
        .filter(row => row.systemRef === 'system:default/payments')
        .map(row => row.id);
      expect(loader.isRunning(production)).toBe(true);
    },
  );

  it.each(databases.eachSupportedId())(
    'removes the slices of a HealthCheck whose file was deleted from its location, on %p',
    async databaseId => {
      const { poller, catalog, live } = await setup(databaseId);
      await poller.poll();
      const platform = 'healthcheck:default/platform-health';
      expect(
        (await live()).filter(row => checkOf(row) === platform),
      ).toHaveLength(4);

      catalog.remove(platform);
      expect(await poller.poll()).toMatchObject({
        pass: 'scoped',
        changedSystems: ['system:default/identity', 'system:default/messaging'],
      });

      const remaining = await live();
      expect(remaining.filter(row => checkOf(row) === platform)).toEqual([]);
      expect(remaining.filter(row => checkOf(row) === SSO_CHECK)).toHaveLength(
        1,
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'keeps the components each check targets on its slices, for the matrix, and rewrites only them when only they change, on %p',
    async databaseId => {
      const { knex, reconciler, slices, catalog } = await setup(databaseId);
      await reconciler.reconcileAll();
      const states = testbed.storeOn(knex);
      const rowsOf = async (system: string) =>
        matrixOf(await states.readSystemSlices(`system:default/${system}`))
          .checks;
      const before = await slices.readRunning();

      expect(
        (await rowsOf('checkout')).map(row => [
          row.checkId,
          row.components,
          Object.keys(row.cells).sort(),
        ]),
      ).toEqual([
        [
          CHECKOUT_CHECK,
          [
            'component:default/checkout-service',
            'component:default/payments-service',
          ],
          ['canary', 'production', 'staging'],
        ],
      ]);

      catalog.edit(CHECKOUT_CHECK, e => {
        e.spec!.components = ['Checkout-Service'];
      });
      // A paused check's slices keep their components too.
      catalog.edit(SSO_CHECK, e => {
        e.spec!.components = ['auth-service'];
      });
      expect(
        await reconciler.reconcileSystems([
          'system:default/checkout',
          'system:default/identity',
        ]),
      ).toMatchObject({ scheduled: 0, rescheduled: 4, cancelled: 0 });
      expect((await rowsOf('checkout'))[0].components).toEqual([
        'component:default/checkout-service',
      ]);
      expect(
        (await rowsOf('identity')).find(row => row.checkId === SSO_CHECK),
      ).toMatchObject({
        components: ['component:default/auth-service'],
        cells: { production: expect.objectContaining({ paused: true }) },
      });
      // The probes see the same run definitions, so nothing restarts.
      const changed = await slices.readChangesSince(before.revision);
      const definitions = (list: DesiredSlice[]) =>
        list
          .filter(slice => slice.checkId === CHECKOUT_CHECK)
          .map(slice => `${slice.id} ${slice.configHash} ${slice.intervalMs}`)
          .sort();
      expect(definitions(changed.upserted)).toHaveLength(3);
      expect(definitions(changed.upserted)).toEqual(definitions(before.slices));

      catalog.edit(CHECKOUT_CHECK, e => {
        delete e.spec!.components;
      });
      await reconciler.reconcileSystems(['system:default/checkout']);
      expect((await rowsOf('checkout'))[0]).not.toHaveProperty('components');
    },
  );

  it.each(databases.eachSupportedId())(
    'converges a check created through the API in a scoped pass of its systems, on %p',
    async databaseId => {
      const { reconciler, apiChecks, live } = await setup(databaseId);
      await reconciler.reconcileAll();
      apiChecks.push({
        id: 'orders-latency',
        spec: {
          type: 'http',
          target:
            'http://127.0.0.1:7010/{{ environment.name }}/checkout/health',
          interval: '20s',
          systems: ['system:default/checkout'],
        },
      });
      const outcome = await reconciler.reconcileSystems([
        'system:default/checkout',
      ]);
      expect(outcome).toMatchObject({ scheduled: 3, cancelled: 0 });
      expect(
        (await live())
          .filter(row => checkOf(row) === 'orders-latency')
          .map(row => row.intervalMs),
      ).toEqual([20_000, 20_000, 20_000]);
    },
  );

  /**
   * A reconciler whose full passes, having read the catalog, wait until
   * `release()`; and what finished when.
   */
  async function reconcilerWithSlowFullPasses(databaseId: TestDatabaseId) {
    const { catalog, live, reconcilerWith } = await setup(databaseId);
    let release: (() => void) | undefined;
    let held: Promise<void> = Promise.resolve();
    const reconciler = reconcilerWith({
      catalog: {
        ...catalog.catalog,
        getEntities: async (request, options) => {
          const response = await catalog.catalog.getEntities(request, options);
          await held;
          return response;
        },
      },
    });
    const finished: string[] = [];
    return {
      reconciler,
      catalog,
      live,
      finished,
      /** Starts a full pass that holds the lock until `release()`. */
      startFullPass() {
        held = new Promise(resolve => {
          release = resolve;
        });
        return reconciler.reconcileAll().then(outcome => {
          finished.push('full');
          return outcome;
        });
      },
      release: () => release?.(),
      /** A scoped pass; where it ends up, settled or not. */
      scoped(systemRefs: string[]) {
        const result: { outcome?: ReconcileOutcome; error?: Error } = {};
        const done = reconciler.reconcileSystems(systemRefs).then(
          outcome => {
            finished.push(`scoped ${systemRefs.join(' ')}`);
            result.outcome = outcome;
          },
          error => {
            result.error = error;
          },
        );
        return { result, done };
      },
    };
  }

  it.each(databases.eachSupportedId())(
    'runs a scoped pass asked for during a long full pass right after it, however long the full pass takes, on %p',
    async databaseId => {
      const { startFullPass, release, scoped, finished, catalog, live } =
        await reconcilerWithSlowFullPasses(databaseId);
      const fullPass = startFullPass();
      // The full pass has read the catalog and holds the lock.
      await new Promise(resolve => setTimeout(resolve, 100));
      catalog.edit(PAYMENTS_CHECK, e => {
        e.spec!.interval = '30s';
      });

      // Ten minutes pass for the scoped pass, on the clock a wait for the
      // lock reads (timers in-process, Date for the advisory lock), while
      // real time runs on for the database's own timers.
      const realTimeout = setTimeout;
      jest.useFakeTimers({
        doNotFake:
          databaseId === 'POSTGRES_15'
            ? [
                'nextTick',
                'setImmediate',
                'clearImmediate',
                'setTimeout',
                'clearTimeout',
                'setInterval',
                'clearInterval',
              ]
            : ['nextTick', 'setImmediate', 'clearImmediate'],
      });
      let edit: ReturnType<typeof scoped>;
      try {
        edit = scoped(['system:default/payments']);
        await jest.advanceTimersByTimeAsync(10 * 60_000);
        await new Promise(resolve => realTimeout(resolve, 300));
        expect(edit.result).toEqual({});
      } finally {
        jest.useRealTimers();
      }

      release();
      expect(await fullPass).toMatchObject({ ran: true });
      await edit.done;
      expect(edit.result.error).toBeUndefined();
      expect(edit.result.outcome).toMatchObject({
        ran: true,
        scope: ['system:default/payments'],
        rescheduled: 2,
      });
      expect(finished).toEqual(['full', 'scoped system:default/payments']);
      expect(
        (await live())
          .filter(row => checkOf(row) === PAYMENTS_CHECK)
          .map(row => row.intervalMs),
      ).toEqual([30_000, 30_000]);
    },
  );

  it.each(databases.eachSupportedId())(
    'converges the systems of scoped passes asked for during a full pass in one pass after it, on %p',
    async databaseId => {
      const { startFullPass, release, scoped, finished } =
        await reconcilerWithSlowFullPasses(databaseId);
      const fullPass = startFullPass();
      await new Promise(resolve => setTimeout(resolve, 100));
      const edits = [
        scoped(['system:default/payments']),
        scoped(['system:default/checkout', 'system:default/Payments']),
        scoped(['system:default/identity']),
      ];

      release();
      await fullPass;
      await Promise.all(edits.map(edit => edit.done));

      const scopes = edits.map(edit => edit.result.outcome?.scope);
      expect(scopes).toEqual([
        [
          'system:default/checkout',
          'system:default/identity',
          'system:default/payments',
        ],
        scopes[0],
        scopes[0],
      ]);
      expect(finished[0]).toBe('full');
    },
  );

  it.each(databases.eachSupportedId())(
    'lets one pass at a time through: a full pass stands down, a scoped one waits, on %p',
    async databaseId => {
      const { knex, slices, catalog } = await setup(databaseId);
      // The holder is another process on PostgreSQL (its own pool), and
      // the same lock object in-process on SQLite.
      const config = knex.client.config as Knex.Config;
      let holderLock;
      let ownLock;
      if (config.client === 'pg') {
        const other = knexFactory({
          client: 'pg',
          connection: config.connection,
          pool: { min: 0, max: 2 },
        });
        extraClients.push(other);
        holderLock = new AdvisoryReconcileLock(other);
        ownLock = new AdvisoryReconcileLock(knex);
      } else {
        holderLock = ownLock = new InProcessReconcileLock();
      }
      const reconciler = new Reconciler({
        catalog: catalog.catalog,
        auth: mockServices.auth(),
        logger: mockServices.logger.mock(),
        listStoredChecks: async () => [],
        slices,
        lock: ownLock,
      });
      let release!: () => void;
      const held = new Promise<void>(resolve => {
        release = resolve;
      });
      let holding!: () => void;
      const isHolding = new Promise<void>(resolve => {
        holding = resolve;
      });
      const holder = holderLock.with(async () => {
        holding();
        await held;
      });
      await isHolding;

      expect(await reconciler.reconcileAll()).toMatchObject({ ran: false });
      let scopedDone = false;
      const scoped = reconciler
        .reconcileSystems(['system:default/payments'])
        .then(outcome => {
          scopedDone = true;
          return outcome;
        });
      await new Promise(resolve => setTimeout(resolve, 300));
      expect(scopedDone).toBe(false);

      release();
      await holder;
      expect(await scoped).toMatchObject({ ran: true, scheduled: 3 });
    },
  );
});
