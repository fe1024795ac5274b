import {
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { NotAllowedError } from '@backstage/errors';
import { SystemRollup } from '@vigil/plugin-healthcheck-common';
import Router from 'express-promise-router';
import request from 'supertest';
import { appWithErrorMiddleware } from '../__testUtils__/appWithErrorMiddleware';
import { BadgeRouterOptions, createBadgeRouter } from './badgeRouter';
import { badgeAuthPolicy, readBadgeSettings } from './badgeSettings';

jest.setTimeout(30_000);

const NOW = new Date('2026-03-01T12:00:00.000Z');
const PAYMENTS = '/v1/badges/systems/default/payments';

const payments: SystemRollup = {
  systemRef: 'system:default/payments',
  status: 'unhealthy',
  environments: [
    {
      name: 'production',
      status: 'unhealthy',
      healthy: 2,
      total: 5,
      since: '2026-03-01T11:00:00.000Z',
    },
    {
      name: 'staging',
      status: 'healthy',
      healthy: 3,
      total: 3,
      since: '2026-02-01T00:00:00.000Z',
    },
  ],
  reasons: [],
  healthy: 5,
  total: 8,
  upstream: [],
  updatedAt: '2026-03-01T11:59:00.000Z',
  since: '2026-03-01T11:00:00.000Z',
};

function loaders(overrides: Partial<BadgeRouterOptions> = {}) {
  return {
    logger: mockServices.logger.mock(),
    loadRollup: jest.fn(async (systemRef: string) =>
      systemRef === payments.systemRef ? payments : undefined,
    ),
    loadEnvironments: jest.fn(async (systemRef: string) =>
      systemRef === payments.systemRef
        ? payments.environments.map(e => e.name)
        : undefined,
    ),
    loadUptime: jest.fn(async () => 0.9995 as number | undefined),
    loadResponseTime: jest.fn(async () => ({ p50: 120, p95: 640 })),
    now: () => NOW,
    ...overrides,
  };
}

/** The router alone, behind Backstage's error middleware, as the plugin mounts it. */
function appWith(options: BadgeRouterOptions) {
  return appWithErrorMiddleware(createBadgeRouter(options));
}

describe('createBadgeRouter', () => {
  it('answers a status badge as an SVG that says the status in words', async () => {
    const options = loaders();
    const res = await request(appWith(options)).get(PAYMENTS);

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache, max-age=0');
    expect(res.headers.etag).toMatch(/^"[\w-]{27}"$/);
    const svg = res.body.toString('utf8');
    expect(svg).toMatch(/^<svg /);
    expect(svg).toContain('<title>payments: unhealthy, 5/8 ok</title>');
    expect(options.loadRollup).toHaveBeenCalledWith('system:default/payments');
    expect(options.loadUptime).not.toHaveBeenCalled();
  });

  it('says maintenance on a status badge in force over it, keeping the status colour', async () => {
    const options = loaders({
      loadMaintenance: async () => ({
        current: [{ windowId: 'deploy-1' }],
        inMaintenance: [{ checkId: 'api', environment: 'production' }],
      }),
    });
    const json = (query: string) =>
      request(appWith(options)).get(`${PAYMENTS}?format=json${query}`);
    expect((await json('')).body).toMatchObject({
      message: 'unhealthy, 5/8 ok · maintenance',
      color: 'red',
    });
    expect((await json('&environment=Production')).body).toMatchObject({
      message: 'unhealthy, 2/5 ok · maintenance',
      color: 'red',
    });
    // The window covers production only.
    expect((await json('&environment=staging')).body).toMatchObject({
      message: 'healthy',
    });
  });

  it('says nothing of a window that is only ahead', async () => {
    const options = loaders({
      loadMaintenance: async () => ({ current: [], inMaintenance: [] }),
    });
    const res = await request(appWith(options)).get(`${PAYMENTS}?format=json`);
    expect(res.body.message).toBe('unhealthy, 5/8 ok');
  });

  describe('kind=slo', () => {
    const objectives = [
      {
        ref: 'servicelevelobjective:default/payments-up',
        environment: 'production',
        target: 0.999,
        attainment: 0.99937,
        remainingRatio: 0.37,
      },
      {
        ref: 'servicelevelobjective:default/payments-staging',
        environment: 'staging',
        target: 0.99,
        attainment: 0.95,
        remainingRatio: -4,
      },
      {
        ref: 'servicelevelobjective:default/payments-new',
        environment: 'production',
        target: 0.99,
        attainment: null,
        remainingRatio: null,
      },
    ];
    const withObjectives = loaders({ loadObjectives: async () => objectives });

    it('shows the objective with the least budget left, attainment over target', async () => {
      const res = await request(appWith(withObjectives)).get(
        `${PAYMENTS}?kind=slo`,
      );
      expect(res.status).toBe(200);
      expect(res.body.toString('utf8')).toContain(
        '<title>payments staging SLO: 95% / 99%</title>',
      );
    });

    it('shows one environment’s worst, or the objective named', async () => {
      const ofProduction = await request(appWith(withObjectives)).get(
        `${PAYMENTS}?kind=slo&environment=production&format=json`,
      );
      expect(ofProduction.body).toMatchObject({
        label: 'payments production SLO',
        message: '99.93% / 99.9%',
        color: 'green',
      });
      const named = await request(appWith(withObjectives)).get(
        `${PAYMENTS}?kind=slo&objective=payments-new&format=json`,
      );
      expect(named.body).toMatchObject({
        message: 'no data / 99%',
        color: 'lightgrey',
      });
    });

    it('answers 404 naming what is missing', async () => {
      const res = await request(appWith(withObjectives)).get(
        `${PAYMENTS}?kind=slo&objective=nope`,
      );
      expect(res.status).toBe(404);
      expect(res.body.error.message).toBe(
        'System system:default/payments has no service-level objective servicelevelobjective:default/nope that badges can show',
      );
      const none = await request(appWith(loaders())).get(
        `${PAYMENTS}?kind=slo&environment=staging`,
      );
      expect(none.status).toBe(404);
      expect(none.body.error.message).toBe(
        'System system:default/payments has no service-level objective in environment staging that badges can show',
      );
    });
  });

  it('answers the status of one environment, matching its name without regard to case', async () => {
    const res = await request(appWith(loaders())).get(
      `${PAYMENTS}?environment=Staging`,
    );
    expect(res.status).toBe(200);
    expect(res.body.toString('utf8')).toContain(
      '<title>payments staging: healthy</title>',
    );
  });

  it('finds the system whatever the case of the path', async () => {
    const res = await request(appWith(loaders())).get(
      '/v1/badges/systems/Default/Payments?format=json',
    );
    expect(res.status).toBe(200);
    expect(res.body.label).toBe('payments');
  });

  it('answers shields.io endpoint JSON with format=json', async () => {
    const res = await request(appWith(loaders())).get(
      `${PAYMENTS}?format=json&environment=production&style=flat-square`,
    );
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache, max-age=0');
    expect(res.body).toEqual({
      schemaVersion: 1,
      label: 'payments production',
      message: 'unhealthy, 2/5 ok',
      color: 'red',
      style: 'flat-square',
    });
  });

  it('answers up-time over the window asked for, per environment', async () => {
    const options = loaders();
    const app = appWith(options);

    const svg = await request(app).get(
      `${PAYMENTS}?kind=uptime&window=30d&environment=production`,
    );
    expect(svg.status).toBe(200);
    expect(svg.body.toString('utf8')).toContain(
      '<title>payments production uptime 30d: 99.95%</title>',
    );
    expect(options.loadUptime).toHaveBeenCalledWith({
      systemRef: 'system:default/payments',
      environment: 'production',
      from: new Date('2026-01-30T12:00:00.000Z'),
      to: NOW,
    });

    const json = await request(app).get(`${PAYMENTS}?kind=uptime&format=json`);
    expect(json.body).toEqual({
      schemaVersion: 1,
      label: 'payments uptime 7d',
      message: '99.95%',
      color: 'brightgreen',
    });
    expect(options.loadUptime).toHaveBeenLastCalledWith({
      systemRef: 'system:default/payments',
      from: new Date('2026-02-22T12:00:00.000Z'),
      to: NOW,
    });
    // Knowing the environments is enough; the rollup is the status badge's.
    expect(options.loadEnvironments).toHaveBeenCalledWith(
      'system:default/payments',
    );
    expect(options.loadRollup).not.toHaveBeenCalled();
  });

  it('says no data when there is no up-time in the window', async () => {
    const res = await request(
      appWith(loaders({ loadUptime: async () => undefined })),
    ).get(`${PAYMENTS}?kind=uptime&format=json`);
    expect(res.body).toMatchObject({ message: 'no data', color: 'lightgrey' });
  });

  it('answers response time, p95 by default', async () => {
    const options = loaders();
    const app = appWith(options);

    const svg = await request(app).get(`${PAYMENTS}?kind=response-time`);
    expect(svg.status).toBe(200);
    expect(svg.body.toString('utf8')).toContain(
      '<title>payments response time 24h: p95 640 ms</title>',
    );
    expect(options.loadResponseTime).toHaveBeenCalledWith({
      systemRef: 'system:default/payments',
      from: new Date('2026-02-28T12:00:00.000Z'),
      to: NOW,
    });

    const json = await request(app).get(
      `${PAYMENTS}?kind=response-time&percentile=p50&window=7d&format=json&environment=staging`,
    );
    expect(json.body).toEqual({
      schemaVersion: 1,
      label: 'payments staging response time 7d',
      message: 'p50 120 ms',
      color: 'brightgreen',
    });
  });

  it('takes a label override, also an empty one', async () => {
    const app = appWith(loaders());
    const named = await request(app).get(`${PAYMENTS}?label=health`);
    expect(named.body.toString('utf8')).toContain(
      '<title>health: unhealthy, 5/8 ok</title>',
    );
    const bare = await request(app).get(`${PAYMENTS}?label=&format=json`);
    expect(bare.body).toMatchObject({
      label: '',
      message: 'unhealthy, 5/8 ok',
    });
  });

  it('answers 304 to a revalidation of an unchanged badge', async () => {
    const app = appWith(loaders());
    const first = await request(app).get(PAYMENTS);
    const again = await request(app)
      .get(PAYMENTS)
      .set('If-None-Match', first.headers.etag);
    expect(again.status).toBe(304);

    const json = await request(app).get(`${PAYMENTS}?format=json`);
    expect(json.headers.etag).not.toBe(first.headers.etag);
  });

  it('answers 400 listing every problem of the request', async () => {
    const options = loaders();
    const res = await request(appWith(options)).get(
      `${PAYMENTS}?kind=latency&window=1y&format=png&style=rounded`,
    );

    expect(res.status).toBe(400);
    expect(res.body.error.name).toBe('InputError');
    expect(res.body.error.problems).toEqual([
      {
        path: 'kind',
        reason:
          'must be one of status, uptime, response-time, slo, not "latency"',
      },
      { path: 'window', reason: 'must be one of 24h, 7d, 30d, not "1y"' },
      { path: 'format', reason: 'must be one of svg, json, not "png"' },
      {
        path: 'style',
        reason:
          'must be one of flat, flat-square, plastic, for-the-badge, social, not "rounded"',
      },
    ]);
    const lines = res.body.error.message.split('\n');
    expect(lines[0]).toBe('Invalid badge request, 4 problems:');
    expect(lines.slice(1)).toEqual(
      res.body.error.problems.map(
        (p: { path: string; reason: string }) => `- ${p.path}: ${p.reason}`,
      ),
    );
    expect(options.loadRollup).not.toHaveBeenCalled();
  });

  it('answers 400 for a window on a status badge and for an unknown parameter', async () => {
    const res = await request(appWith(loaders())).get(
      `${PAYMENTS}?window=7d&enviroment=production`,
    );
    expect(res.status).toBe(400);
    expect(
      res.body.error.problems.map((p: { path: string }) => p.path),
    ).toEqual(['enviroment', 'window']);
  });

  it('answers 404 for a system health checks do not know', async () => {
    const res = await request(appWith(loaders())).get(
      '/v1/badges/systems/default/ledger',
    );
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      name: 'NotFoundError',
      message: 'No system system:default/ledger with health checks',
    });
  });

  it('answers 404 for an up-time badge of a system health checks do not know', async () => {
    const options = loaders();
    const res = await request(appWith(options)).get(
      '/v1/badges/systems/default/ledger?kind=uptime',
    );
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(
      'No system system:default/ledger with health checks',
    );
    expect(options.loadUptime).not.toHaveBeenCalled();
  });

  it('finds an environment added since the remembered names were read, in the rollup', async () => {
    const options = loaders({
      loadEnvironments: jest.fn(async () => ['production']),
    });
    const res = await request(appWith(options)).get(
      `${PAYMENTS}?kind=uptime&environment=staging`,
    );
    expect(res.status).toBe(200);
    expect(options.loadRollup).toHaveBeenCalledWith('system:default/payments');
    expect(options.loadUptime).toHaveBeenCalledWith(
      expect.objectContaining({ environment: 'staging' }),
    );
  });

  it('finds a system added since the remembered names were read, in the rollup', async () => {
    const options = loaders({
      loadEnvironments: jest.fn(async () => undefined),
    });
    const res = await request(appWith(options)).get(
      `${PAYMENTS}?kind=response-time`,
    );
    expect(res.status).toBe(200);
    expect(options.loadResponseTime).toHaveBeenCalled();
  });

  it('answers 404 for an environment the system does not have, naming those it has', async () => {
    const options = loaders();
    const res = await request(appWith(options)).get(
      `${PAYMENTS}?kind=uptime&environment=qa`,
    );
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({
      name: 'NotFoundError',
      message:
        'System system:default/payments has no environment "qa"; its environments are production, staging',
    });
    expect(options.loadUptime).not.toHaveBeenCalled();
  });

  it('asks authorize about the system before loading anything', async () => {
    const authorize = jest.fn(async () => {
      throw new NotAllowedError('not yours');
    });
    const options = loaders({ authorize });
    const res = await request(appWith(options)).get(PAYMENTS);
    expect(res.status).toBe(403);
    expect(authorize).toHaveBeenCalledWith(expect.anything(), {
      systemRef: 'system:default/payments',
    });
    expect(options.loadRollup).not.toHaveBeenCalled();
  });

  it('answers 500 when a loader fails', async () => {
    const res = await request(
      appWith(
        loaders({
          loadRollup: async () => {
            throw new Error('database down');
          },
        }),
      ),
    ).get(PAYMENTS);
    expect(res.status).toBe(500);
  });
});

describe('the badge auth policy, as a plugin mounts it', () => {
  async function startBackend(config: object) {
    const plugin = createBackendPlugin({
      pluginId: 'healthcheck',
      register(env) {
        env.registerInit({
          deps: {
            logger: coreServices.logger,
            config: coreServices.rootConfig,
            httpRouter: coreServices.httpRouter,
          },
          async init({ logger, config: rootConfig, httpRouter }) {
            const other = Router();
            other.get('/v1/checks', (_req, res) => {
              res.json([]);
            });
            httpRouter.use(createBadgeRouter({ ...loaders(), logger }));
            httpRouter.use(other);
            httpRouter.addAuthPolicy(
              badgeAuthPolicy(readBadgeSettings(rootConfig)),
            );
          },
        });
      },
    });
    const { server } = await startTestBackend({
      features: [
        plugin,
        mockServices.rootConfig.factory({ data: config }),
        // A request without credentials is anonymous, as in production.
        mockServices.httpAuth.factory({
          defaultCredentials: mockCredentials.none(),
        }),
      ],
    });
    return server;
  }

  const badge = `/api/healthcheck${PAYMENTS}`;
  const checks = '/api/healthcheck/v1/checks';

  it('keeps badges private by default, but lets the user cookie load them', async () => {
    const server = await startBackend({});

    expect((await request(server).get(badge)).status).toBe(401);
    expect(
      (
        await request(server)
          .get(badge)
          .set('Cookie', mockCredentials.limitedUser.cookie())
      ).status,
    ).toBe(200);
    expect(
      (
        await request(server)
          .get(badge)
          .set('Authorization', mockCredentials.user.header())
      ).status,
    ).toBe(200);
    // The cookie opens the badges alone.
    expect(
      (
        await request(server)
          .get(checks)
          .set('Cookie', mockCredentials.limitedUser.cookie())
      ).status,
    ).toBe(401);
  });

  it('opens the badges, and only them, to anonymous readers when public', async () => {
    const server = await startBackend({
      healthcheck: { badges: { public: true } },
    });

    const res = await request(server).get(badge);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml; charset=utf-8');
    expect((await request(server).get(checks)).status).toBe(401);
    expect(
      (
        await request(server)
          .get(checks)
          .set('Authorization', mockCredentials.user.header())
      ).status,
    ).toBe(200);
  });
});
