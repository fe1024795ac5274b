import {
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import {
  CatalogService,
  catalogServiceRef,
} from '@backstage/plugin-catalog-node';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { createServiceFactory } from '@backstage/backend-plugin-api';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import request from 'supertest';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { insertPauseMarkers } from '../claims/DatabaseClaimStore';
import { DatabaseHealthcheckStore } from '../database/DatabaseHealthcheckStore';
import { DatabaseSliceStore } from '../database/DatabaseSliceStore';
import { DatabaseStateStore } from '../database/DatabaseStateStore';
import { DatabaseHistoryStore } from '../history';
import { readDemoCatalog } from '../reconciler/__testUtils__/demoCatalog';
import { liveKeysUnder } from '../rollup/liveKeys';
import { RollupService } from '../rollup/RollupService';
import { systemMaintenance } from '../maintenance/systemMaintenance';
import { createSystemsRouter } from './systemsRouter';
import { sliceUptimeResponse } from './systemHealthReads';

jest.setTimeout(60_000);

const liveKeyOf = liveKeysUnder(Buffer.alloc(32, 3));

/** A user the catalog shows nothing of payments, as a permission policy would. */
const OUTSIDER = 'user:default/outsider';

function catalogHidingPaymentsFrom(outsider: string): CatalogService {
  const inner = catalogServiceMock({ entities: readDemoCatalog() });
  const hides = (credentials: any) =>
    credentials?.principal?.userEntityRef === outsider;
  return {
    ...inner,
    getEntities: async (req, opts) => {
      const result = await inner.getEntities(req, opts);
      return hides(opts.credentials)
        ? {
            items: result.items.filter(e => e.metadata.name !== 'payments'),
          }
        : result;
    },
    getEntityByRef: async (ref, opts) =>
      hides(opts.credentials) && String(ref).endsWith('/payments')
        ? undefined
        : inner.getEntityByRef(ref, opts),
    getEntitiesByRefs: async (req, opts) => {
      const result = await inner.getEntitiesByRefs(req, opts);
      return hides(opts.credentials)
        ? {
            items: result.items.map(e =>
              e?.metadata.name === 'payments' ? undefined : e,
            ),
          }
        : result;
    },
  } as CatalogService;
}

/**
 * When the test's runs start: a whole minute ten minutes ago (history reads
 * end at now); the history routes read up to 3 minutes after.
 */
const RUNS_FROM = Math.floor(Date.now() / 60_000) * 60_000 - 10 * 60_000;
/** Deploying payments to production: an hour around the test's start. */
const DEPLOY_FROM = RUNS_FROM - 3_600_000;
const DEPLOY_TO = RUNS_FROM + 3_600_000;
const PAYMENTS_SLO = {
  objectives: 2,
  worst: {
    ref: 'servicelevelobjective:default/payments-up',
    title: 'Payments are up',
    environment: 'production',
    target: 0.999,
    attainment: 0.9985,
    remainingRatio: -0.5,
  },
};

const production = encodeSliceId({
  checkId: 'healthcheck:default/payments-health',
  systemRef: 'system:default/payments',
  environment: 'production',
});
const staging = encodeSliceId({
  checkId: 'healthcheck:default/payments-health',
  systemRef: 'system:default/payments',
  environment: 'staging',
});

describe('the health routes', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  async function startBackend(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const catalog = catalogHidingPaymentsFrom(OUTSIDER);
    const plugin = createBackendPlugin({
      pluginId: 'healthcheck',
      register(env) {
        env.registerInit({
          deps: {
            httpRouter: coreServices.httpRouter,
            httpAuth: coreServices.httpAuth,
            database: coreServices.database,
            logger: coreServices.logger,
            auth: coreServices.auth,
            permissions: coreServices.permissions,
          },
          async init(deps) {
            const slices = await DatabaseSliceStore.create({
              database: deps.database,
            });
            const states = await DatabaseStateStore.create({
              database: deps.database,
            });
            const key = {
              checkId: 'healthcheck:default/payments-health',
              systemRef: 'system:default/payments',
            };
            await slices.applyChanges({
              write: [
                {
                  paused: false,
                  slice: {
                    ...key,
                    id: production,
                    environment: 'production',
                    intervalMs: 10_000,
                    timeoutMs: 2_000,
                    type: 'http',
                    target: 'http://127.0.0.1:7010/production/payments/health',
                    config: {},
                    conditions: ['[STATUS] == 200'],
                    thresholds: {},
                    configHash: 'h',
                  },
                },
                {
                  paused: true,
                  slice: { ...key, id: staging, environment: 'staging' },
                },
              ],
              remove: [],
            });
            await states.writeSliceStates([
              {
                sliceId: production,
                checkId: 'healthcheck:default/payments-health',
                systemRef: 'system:default/payments',
                environment: 'production',
                status: 'unhealthy',
                consecutiveFailures: 2,
                consecutiveSuccesses: 0,
                since: Date.UTC(2026, 11, 1, 11, 0),
                lastOutcome: 'fail',
                lastScheduledAt: Date.UTC(2026, 11, 1, 12, 0),
                lastRunAt: Date.UTC(2026, 11, 1, 12, 0, 0, 4),
                lastDurationMs: 31,
                lastReason: '[STATUS] (500) == 200',
              },
            ]);
            const rollups = new RollupService({
              store: states,
              catalog,
              auth: deps.auth,
              logger: deps.logger,
              liveKeyOf,
            });
            await rollups.recompute('system:default/payments');
            const history = await DatabaseHistoryStore.create({
              database: deps.database,
            });
            // Three runs of production, a minute apart: up, down, up.
            const knexClient = await deps.database.getClient();
            await knexClient('healthcheck_runs').insert(
              (['healthy', 'unhealthy', 'healthy'] as const).map(
                (status, i) => ({
                  slice_id: production,
                  scheduled_at: RUNS_FROM + i * 60_000,
                  claimed_by: 'test',
                  claimed_at: RUNS_FROM + i * 60_000,
                  started_at: RUNS_FROM + i * 60_000,
                  duration_ms: 20 + i,
                  outcome: status === 'healthy' ? 'pass' : 'fail',
                  status,
                  conditions: '[]',
                }),
              ),
            );
            // Staging: up for a minute, then paused.
            await knexClient('healthcheck_runs').insert({
              slice_id: staging,
              scheduled_at: RUNS_FROM,
              claimed_by: 'test',
              claimed_at: RUNS_FROM,
              started_at: RUNS_FROM,
              duration_ms: 20,
              outcome: 'pass',
              status: 'healthy',
              conditions: '[]',
            });
            await insertPauseMarkers(knexClient, [
              { sliceId: staging, at: RUNS_FROM + 60_000 },
            ]);
            deps.httpRouter.use(
              createSystemsRouter({
                httpAuth: deps.httpAuth,
                catalog,
                permissions: deps.permissions,
                checks: await DatabaseHealthcheckStore.create({
                  database: deps.database,
                }),
                states,
                history,
                loadRollup: ref => rollups.get(ref),
                loadRollups: refs => rollups.getMany(refs),
                liveKeyOf,
                maintenanceOf: async systemSlices =>
                  systemMaintenance(
                    [
                      {
                        id: 'deploy-1',
                        source: 'api',
                        systems: ['system:default/payments'],
                        environments: ['production'],
                        reason: 'deploying',
                        schedule: {
                          kind: 'once',
                          startMs: DEPLOY_FROM,
                          endMs: DEPLOY_TO,
                        },
                      },
                    ],
                    systemSlices,
                    Date.now(),
                  ),
                sloSummaries: async (systemRefs, credentials) =>
                  new Map(
                    systemRefs
                      .filter(
                        ref =>
                          ref === 'system:default/payments' &&
                          (credentials.principal as { type: string }).type ===
                            'user',
                      )
                      .map(ref => [ref, PAYMENTS_SLO]),
                  ),
              }),
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

  const user = mockCredentials.user.header();

  it.each(databases.eachSupportedId())(
    'lists every system the caller may read, worst first, with counts, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const res = await request(server)
        .get('/api/healthcheck/v1/systems')
        .set('Authorization', user);
      expect(res.status).toBe(200);
      expect(res.body.items.map((s: any) => `${s.name} ${s.status}`)).toEqual([
        'payments unhealthy',
        'analytics unknown',
        'checkout unknown',
        'identity unknown',
        'messaging unknown',
        'storefront unknown',
      ]);
      expect(res.body).toMatchObject({
        totalCount: 6,
        counts: { unhealthy: 1, unknown: 5, healthy: 0 },
      });
      expect(res.body.items[0]).toMatchObject({
        systemRef: 'system:default/payments',
        liveKey: liveKeyOf('system:default/payments'),
        owner: expect.stringContaining('payments'),
        healthy: 0,
        total: 1,
        reasons: [
          {
            checkId: 'healthcheck:default/payments-health',
            environment: 'production',
            display: '[STATUS] (500) == 200',
          },
        ],
      });

      const outsider = await request(server)
        .get('/api/healthcheck/v1/systems')
        .set('Authorization', mockCredentials.user.header(OUTSIDER));
      expect(outsider.body.items.map((s: any) => s.name)).not.toContain(
        'payments',
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'filters, searches and pages the list, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const get = (query: string) =>
        request(server)
          .get(`/api/healthcheck/v1/systems?${query}`)
          .set('Authorization', user);
      expect((await get('status=unhealthy')).body.items).toHaveLength(1);
      // The demo's analytics System names its owner as `data-team`.
      for (const owner of ['data-team', 'group:default/data-team']) {
        const owned = (await get(`owner=${owner}`)).body.items;
        expect(owned.map((s: any) => [s.name, s.owner])).toEqual([
          ['analytics', 'group:default/data-team'],
        ]);
      }
      expect((await get('q=CHECK')).body.items.map((s: any) => s.name)).toEqual(
        ['checkout'],
      );
      expect(
        (await get('environment=production')).body.items.map(
          (s: any) => s.name,
        ),
      ).toEqual(['payments']);
      const first = await get('sort=name&limit=4');
      expect(first.body.items.map((s: any) => s.name)).toEqual([
        'analytics',
        'checkout',
        'identity',
        'messaging',
      ]);
      const second = await get(
        `sort=name&limit=4&cursor=${first.body.nextCursor}`,
      );
      expect(second.body.items.map((s: any) => s.name)).toEqual([
        'payments',
        'storefront',
      ]);
      expect(second.body.nextCursor).toBeUndefined();
    },
  );

  it.each(databases.eachSupportedId())(
    'refuses a bad list query with every problem named, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const res = await request(server)
        .get('/api/healthcheck/v1/systems?status=broken&limit=0&colour=red')
        .set('Authorization', user);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        "Invalid query: colour: unknown parameter (known: status, owner, environment, q, sort, limit, cursor); status: 'broken' is not one of paused, healthy, unknown, degraded, unhealthy; limit: '0' is not a whole number from 1 to 500",
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'gives a system its rollup and its environment x check matrix, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const res = await request(server)
        .get('/api/healthcheck/v1/systems/default/payments')
        .set('Authorization', user);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'unhealthy',
        liveKey: liveKeyOf('system:default/payments'),
        environmentNames: ['production', 'staging'],
        checks: [
          {
            checkId: 'healthcheck:default/payments-health',
            cells: {
              production: {
                sliceId: production,
                status: 'unhealthy',
                paused: false,
                lastDurationMs: 31,
                lastReason: '[STATUS] (500) == 200',
                lastRunAt: '2026-12-01T12:00:00.004Z',
              },
              staging: { sliceId: staging, status: 'paused', paused: true },
            },
          },
        ],
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'lists a system in maintenance with its window and its worst objective, and others without, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const res = await request(server)
        .get('/api/healthcheck/v1/systems')
        .set('Authorization', user);
      const payments = res.body.items.find((s: any) => s.name === 'payments');
      expect(payments).toMatchObject({
        status: 'unhealthy',
        maintenance: {
          current: [
            {
              windowId: 'deploy-1',
              end: new Date(DEPLOY_TO).toISOString(),
              reason: 'deploying',
            },
          ],
        },
        slo: PAYMENTS_SLO,
      });
      // The list says whether and until when, not which check: that is the page's.
      expect(payments.maintenance.inMaintenance).toBeUndefined();
      const checkout = res.body.items.find((s: any) => s.name === 'checkout');
      expect(checkout.maintenance).toBeUndefined();
      expect(checkout.slo).toBeUndefined();
    },
  );

  it.each(databases.eachSupportedId())(
    'shows a failing check in maintenance still failing, marked, with the window, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const res = await request(server)
        .get('/api/healthcheck/v1/systems/default/payments')
        .set('Authorization', user);
      expect(res.body).toMatchObject({
        status: 'unhealthy',
        reasons: [
          {
            checkId: 'healthcheck:default/payments-health',
            environment: 'production',
            status: 'unhealthy',
            inMaintenance: true,
          },
        ],
        maintenance: {
          current: [
            {
              windowId: 'deploy-1',
              start: new Date(DEPLOY_FROM).toISOString(),
              end: new Date(DEPLOY_TO).toISOString(),
              reason: 'deploying',
            },
          ],
          inMaintenance: [
            {
              checkId: 'healthcheck:default/payments-health',
              environment: 'production',
            },
          ],
        },
      });
      expect(res.body.checks[0].cells.production.status).toBe('unhealthy');
    },
  );

  it.each(databases.eachSupportedId())(
    'answers 404 for a system that does not exist or that the caller may not read, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const missing = await request(server)
        .get('/api/healthcheck/v1/systems/default/nope')
        .set('Authorization', user);
      expect(missing.status).toBe(404);
      expect(missing.body.error.message).toBe('No system system:default/nope');
      const hidden = await request(server)
        .get('/api/healthcheck/v1/systems/default/payments')
        .set('Authorization', mockCredentials.user.header(OUTSIDER));
      expect(hidden.status).toBe(404);
    },
  );

  it.each(databases.eachSupportedId())(
    'gives one slice, and refuses an id that is not one, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const res = await request(server)
        .get(`/api/healthcheck/v1/slices/${encodeURIComponent(production)}`)
        .set('Authorization', user);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        sliceId: production,
        status: 'unhealthy',
      });
      const bad = await request(server)
        .get('/api/healthcheck/v1/slices/not-a-slice')
        .set('Authorization', user);
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toContain(
        "'not-a-slice' is not a slice id",
      );
      const gone = await request(server)
        .get(
          `/api/healthcheck/v1/slices/${encodeURIComponent(
            encodeSliceId({
              checkId: 'x',
              systemRef: 'system:default/payments',
              environment: 'production',
            }),
          )}`,
        )
        .set('Authorization', user);
      expect(gone.status).toBe(404);
    },
  );

  it.each(databases.eachSupportedId())(
    'gives a system’s runs with their time-weighted up-time, and a slice’s runs, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const range = `from=${new Date(RUNS_FROM).toISOString()}&to=${
        RUNS_FROM + 180_000
      }`;
      const res = await request(server)
        .get(
          `/api/healthcheck/v1/systems/default/payments/history?granularity=runs&environment=production&${range}`,
        )
        .set('Authorization', user);
      expect(res.status).toBe(200);
      expect(res.body.items.map((r: any) => r.status)).toEqual([
        'healthy',
        'unhealthy',
        'healthy',
      ]);
      // Up 2 of 3 minutes: the time between runs counts as the runs say.
      expect(res.body.uptime).toMatchObject({
        upSeconds: 120,
        downSeconds: 60,
      });
      expect(res.body.uptime.uptime).toBeCloseTo(2 / 3);

      const runs = await request(server)
        .get(
          `/api/healthcheck/v1/slices/${encodeURIComponent(
            production,
          )}/runs?${range}&limit=2`,
        )
        .set('Authorization', user);
      expect(runs.status).toBe(200);
      expect(runs.body.runs).toHaveLength(2);
      expect(runs.body.nextCursor).toEqual(expect.any(String));
    },
  );

  it.each(databases.eachSupportedId())(
    'gives the up-time of each cell over 24 hours, 7 days and 30 days, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const to = RUNS_FROM + 5 * 60_000;
      const res = await request(server)
        .get(`/api/healthcheck/v1/systems/default/payments/uptime?to=${to}`)
        .set('Authorization', user);
      expect(res.status).toBe(200);
      // Production: up, down, up a minute each, then no run for 3 minutes
      // (up, as the last run said): 4 of 5 minutes. Staging: up a minute,
      // then paused, which counts neither way. Nothing earlier, so every
      // window is the same.
      expect(res.body).toEqual({
        to: new Date(to).toISOString(),
        windows: ['24h', '7d', '30d'],
        slices: {
          [production]: { '24h': 0.8, '7d': 0.8, '30d': 0.8 },
          [staging]: { '24h': 1, '7d': 1, '30d': 1 },
        },
      });

      // Up to now by default.
      const now = await request(server)
        .get('/api/healthcheck/v1/systems/default/payments/uptime')
        .set('Authorization', user);
      expect(now.status).toBe(200);
      expect(Date.parse(now.body.to)).toBeGreaterThan(to);
      expect(now.body.slices[production]['24h']).toBeGreaterThan(0.8);
      expect(now.body.slices[production]['24h']).toBeLessThan(1);
    },
  );

  it.each(databases.eachSupportedId())(
    'refuses a bad up-time query, and answers 404 for a system that does not exist or is hidden, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const bad = await request(server)
        .get(
          '/api/healthcheck/v1/systems/default/payments/uptime?to=tomorrow&from=0',
        )
        .set('Authorization', user);
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toBe(
        "Invalid query: from: unknown parameter (known: to); to: 'tomorrow' is neither an ISO 8601 time nor epoch ms",
      );
      const missing = await request(server)
        .get('/api/healthcheck/v1/systems/default/nope/uptime')
        .set('Authorization', user);
      expect(missing.status).toBe(404);
      const hidden = await request(server)
        .get('/api/healthcheck/v1/systems/default/payments/uptime')
        .set('Authorization', mockCredentials.user.header(OUTSIDER));
      expect(hidden.status).toBe(404);
    },
  );

  it.each(databases.eachSupportedId())(
    "gives the details of a system's checks in one answer, on %p",
    async databaseId => {
      const server = await startBackend(databaseId);
      const res = await request(server)
        .get('/api/healthcheck/v1/systems/default/payments/checks')
        .set('Authorization', user);
      expect(res.status).toBe(200);
      expect(res.body.items).toEqual([
        expect.objectContaining({
          id: 'healthcheck:default/payments-health',
          title: 'Payments health endpoint',
          spec: expect.objectContaining({ type: 'http' }),
          source: expect.objectContaining({
            kind: 'gitops',
            entityRef: 'healthcheck:default/payments-health',
          }),
        }),
      ]);

      const bad = await request(server)
        .get('/api/healthcheck/v1/systems/default/payments/checks?limit=5')
        .set('Authorization', user);
      expect(bad.status).toBe(400);
      expect(bad.body.error.message).toBe(
        'Invalid query: limit: unknown parameter (there are none)',
      );
      const hidden = await request(server)
        .get('/api/healthcheck/v1/systems/default/payments/checks')
        .set('Authorization', mockCredentials.user.header(OUTSIDER));
      expect(hidden.status).toBe(404);
    },
  );

  it.each(databases.eachSupportedId())(
    'refuses a bad history query with every problem named, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      const res = await request(server)
        .get(
          '/api/healthcheck/v1/systems/default/payments/history?from=yesterday&limit=5000',
        )
        .set('Authorization', user);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toBe(
        "Invalid query: from: 'yesterday' is neither an ISO 8601 time nor epoch ms; limit: '5000' is not a whole number from 1 to 1000",
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'answers 401 on every route without credentials, on %p',
    async databaseId => {
      const server = await startBackend(databaseId);
      for (const path of [
        '/v1/systems',
        '/v1/systems/default/payments',
        '/v1/systems/default/payments/history',
        '/v1/systems/default/payments/uptime',
        '/v1/systems/default/payments/checks',
        `/v1/slices/${encodeURIComponent(production)}`,
        `/v1/slices/${encodeURIComponent(production)}/runs`,
      ]) {
        const res = await request(server)
          .get(`/api/healthcheck${path}`)
          .set('Authorization', mockCredentials.none.header());
        expect(res.status).toBe(401);
      }
    },
  );
});

describe('sliceUptimeResponse', () => {
  it('gives each slice its up-time per window, null where a window has none', () => {
    const summary = (uptime: number | undefined) => ({
      uptime,
      upSeconds: 0,
      downSeconds: 0,
      unknownSeconds: 0,
      pausedSeconds: 0,
    });
    expect(
      sliceUptimeResponse(
        new Map([
          ['a', [summary(1), summary(0.5), summary(0.25)]],
          ['b', [summary(undefined), summary(undefined), summary(0.9)]],
        ]),
        Date.UTC(2026, 10, 1),
      ),
    ).toEqual({
      to: '2026-11-01T00:00:00.000Z',
      windows: ['24h', '7d', '30d'],
      slices: {
        a: { '24h': 1, '7d': 0.5, '30d': 0.25 },
        b: { '24h': null, '7d': null, '30d': 0.9 },
      },
    });
  });
});
