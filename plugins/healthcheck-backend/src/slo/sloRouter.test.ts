import {
  coreServices,
  createBackendPlugin,
  createServiceFactory,
} from '@backstage/backend-plugin-api';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import type { Entity } from '@backstage/catalog-model';
import {
  CatalogService,
  catalogServiceRef,
} from '@backstage/plugin-catalog-node';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import request from 'supertest';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseHistoryStore } from '../history';
import { createApiRouter } from '../service/createApiRouter';
import { ObjectiveAdmission } from './ObjectiveAdmission';
import { SloHistoryReader } from './SloHistoryReader';
import { createSloRouter, parseObjectiveQuery } from './sloRouter';

jest.setTimeout(60_000);

const NOW = Date.UTC(2026, 10, 1, 0, 30);
const MINUTE = 60_000;
const OUTSIDER = 'user:default/outsider';
const SLICE = 'healthcheck:default/api|payments|production';

const entities: Entity[] = [
  {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: { name: 'payments', namespace: 'default' },
    spec: { owner: 'group:default/team' },
  },
  {
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'HealthCheck',
    metadata: { name: 'api', namespace: 'default' },
    spec: { owner: 'group:default/team' },
  },
  {
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'ServiceLevelObjective',
    metadata: { name: 'payments-up', namespace: 'default' },
    spec: {
      owner: 'group:default/team',
      system: 'payments',
      environment: 'production',
      indicator: { type: 'availability' },
      timeWindow: [{ duration: '7d', isRolling: true }],
      objectives: [{ displayName: 'Payments are up', target: 0.99 }],
    },
  },
  {
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'ServiceLevelObjective',
    metadata: { name: 'api-fast', namespace: 'default' },
    spec: {
      owner: 'team',
      system: 'payments',
      environment: 'production',
      check: 'api',
      indicator: { type: 'latency', percentile: 95, threshold: '300ms' },
      timeWindow: [{ duration: '1M', isRolling: false }],
      objectives: [{ targetPercent: 95 }],
    },
  },
  // Another team's objective on payments, which would page its owner.
  {
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'ServiceLevelObjective',
    metadata: { name: 'page-payments', namespace: 'attackers', title: 'Pay!' },
    spec: {
      owner: 'group:attackers/attackers',
      system: 'system:default/payments',
      environment: 'production',
      indicator: { type: 'availability' },
      timeWindow: [{ duration: '7d', isRolling: true }],
      objectives: [{ targetPercent: 99.9999 }],
    },
  },
];

/** The catalog, hiding payments from the outsider as a policy would. */
function catalogFor(): CatalogService {
  const inner = catalogServiceMock({ entities });
  const hides = (credentials: any) =>
    credentials?.principal?.userEntityRef === OUTSIDER;
  return {
    getEntities: (req, opts) => inner.getEntities(req, opts),
    getEntityByRef: async (ref, opts) =>
      hides(opts.credentials) ? undefined : inner.getEntityByRef(ref, opts),
  } as CatalogService;
}

describe('GET /v1/systems/:namespace/:name/slos', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  async function startServer(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const catalog = catalogFor();
    const plugin = createBackendPlugin({
      pluginId: 'healthcheck',
      register(env) {
        env.registerInit({
          deps: {
            database: coreServices.database,
            httpRouter: coreServices.httpRouter,
            httpAuth: coreServices.httpAuth,
          },
          async init(deps) {
            // Migrates the tables.
            await DatabaseHistoryStore.create({ database: deps.database });
            const client = await deps.database.getClient();
            await client('healthcheck_slices').insert({
              id: SLICE,
              check_id: 'healthcheck:default/api',
              system_ref: 'system:default/payments',
              environment: 'production',
              paused: false,
              removed: false,
              interval_ms: 10 * MINUTE,
              timeout_ms: 5_000,
              config_hash: 'h',
              definition: null,
              revision: 1,
              updated_at: NOW - 60 * MINUTE,
            });
            // Up at 0:00, down at 0:10 (and slow), up again at 0:20.
            await client('healthcheck_runs').insert(
              (['healthy', 'unhealthy', 'healthy'] as const).map(
                (status, i) => ({
                  slice_id: SLICE,
                  scheduled_at: NOW - (30 - 10 * i) * MINUTE,
                  claimed_by: 'test',
                  claimed_at: NOW - (30 - 10 * i) * MINUTE,
                  started_at: NOW - (30 - 10 * i) * MINUTE,
                  duration_ms: status === 'healthy' ? 100 : 900,
                  outcome: status === 'healthy' ? 'pass' : 'fail',
                  status,
                }),
              ),
            );
            deps.httpRouter.use(
              createApiRouter([
                createSloRouter({
                  httpAuth: deps.httpAuth,
                  catalog,
                  admission: new ObjectiveAdmission({
                    catalog: catalogServiceMock({ entities }),
                    auth: mockServices.auth(),
                    logger: mockServices.logger.mock(),
                  }),
                  reader: new SloHistoryReader(client, {
                    rawRetentionMs: 14 * 24 * 60 * MINUTE,
                  }),
                  now: () => NOW,
                }),
              ]),
            );
          },
        });
      },
    });
    const { server } = await startTestBackend({
      features: [
        plugin,
        mockServices.database.factory({ knex }),
        createServiceFactory({
          service: catalogServiceRef,
          deps: {},
          factory: () => catalog,
        }),
      ],
    });
    return server;
  }

  it.each(databases.eachSupportedId())(
    'gives each objective of the system its owner declared, with attainment, error budget and burn rates, on %p',
    async databaseId => {
      const server = await startServer(databaseId);
      const res = await request(server)
        .get('/api/healthcheck/v1/systems/default/payments/slos')
        .set('Authorization', mockCredentials.user.header());
      expect(res.status).toBe(200);
      expect(res.body.items.map((item: any) => item.ref)).toEqual([
        'servicelevelobjective:default/api-fast',
        'servicelevelobjective:default/payments-up',
      ]);
      const [latency, availability] = res.body.items;
      // Down 10 of the 30 known minutes.
      expect(availability).toEqual({
        ref: 'servicelevelobjective:default/payments-up',
        title: 'Payments are up',
        systemRef: 'system:default/payments',
        environment: 'production',
        indicator: { type: 'availability' },
        window: { type: 'rolling', durationMs: 7 * 24 * 60 * MINUTE },
        budgetingMethod: 'Timeslices',
        target: 0.99,
        status: {
          from: '2026-10-25T00:30:00.000Z',
          to: '2026-11-01T00:30:00.000Z',
          unit: 'seconds',
          good: 1200,
          bad: 600,
          attainment: expect.closeTo(2 / 3, 12),
          errorBudget: {
            total: expect.closeTo(18, 9),
            spent: 600,
            remaining: expect.closeTo(18 - 600, 9),
            remainingRatio: expect.closeTo((18 - 600) / 18, 9),
          },
          burnRates: {
            '5m': 0,
            '30m': expect.closeTo(10 / 30 / 0.01, 9),
            '1h': expect.closeTo(10 / 30 / 0.01, 9),
            '6h': expect.closeTo(10 / 30 / 0.01, 9),
            '3d': expect.closeTo(10 / 30 / 0.01, 9),
          },
          // 33x over 6 h and 30 m: a ticket; the last 5 minutes were up,
          // so no page.
          alerts: [
            {
              severity: 'ticket',
              burnRate: 6,
              longWindow: '6h',
              shortWindow: '30m',
            },
          ],
          burnDown: expect.any(Array),
        },
      });
      // Untouched until the last 6-hour step, which spent it all and more.
      const burnDown = availability.status.burnDown;
      expect(burnDown).toHaveLength(7 * 4 + 1);
      expect(burnDown[0]).toEqual({
        at: '2026-10-25T00:30:00.000Z',
        remainingRatio: 1,
      });
      expect(burnDown[burnDown.length - 2].remainingRatio).toBe(1);
      expect(burnDown[burnDown.length - 1]).toEqual({
        at: '2026-11-01T00:30:00.000Z',
        remainingRatio: expect.closeTo((18 - 600) / 18, 9),
      });
      // The half hour so far is one slice with a p95 of 900 ms: bad.
      expect(latency).toMatchObject({
        checkRef: 'healthcheck:default/api',
        window: { type: 'calendarMonth' },
        target: 0.95,
        status: {
          from: '2026-11-01T00:00:00.000Z',
          unit: 'hours',
          good: 0,
          bad: 0.5,
          attainment: 0,
        },
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'filters by environment and check, and hides a system the caller may not read, on %p',
    async databaseId => {
      const server = await startServer(databaseId);
      const ofCheck = await request(server)
        .get('/api/healthcheck/v1/systems/default/payments/slos?check=api')
        .set('Authorization', mockCredentials.user.header());
      expect(ofCheck.body.items.map((item: any) => item.ref)).toEqual([
        'servicelevelobjective:default/api-fast',
      ]);
      const ofStaging = await request(server)
        .get(
          '/api/healthcheck/v1/systems/default/payments/slos?environment=Staging',
        )
        .set('Authorization', mockCredentials.user.header());
      expect(ofStaging.body).toEqual({ items: [] });
      const hidden = await request(server)
        .get('/api/healthcheck/v1/systems/default/payments/slos')
        .set('Authorization', mockCredentials.user.header(OUTSIDER));
      expect(hidden.status).toBe(404);
    },
  );
});

describe('parseObjectiveQuery', () => {
  it('reads the filters as canonical names and refs', () => {
    expect(
      parseObjectiveQuery({ environment: ' Production', check: 'API' }),
    ).toEqual({
      environment: 'production',
      checkRef: 'healthcheck:default/api',
    });
  });

  it('names each unknown or malformed parameter', () => {
    expect(() =>
      parseObjectiveQuery({ window: '7d', check: ['a', 'b'] }),
    ).toThrow(
      'Invalid query: window: unknown parameter (known: environment, check); check: give it once, as text',
    );
  });
});
