import { healthCheckProbesExtensionPoint } from '@vigil/plugin-healthcheck-node';
import {
  createBackendModule,
  createServiceFactory,
} from '@backstage/backend-plugin-api';
import { metricsServiceRef } from '@backstage/backend-plugin-api/alpha';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { metricsServiceMock } from '@backstage/backend-test-utils/alpha';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import request from 'supertest';
import { instrumentNamed } from './__testUtils__/metricsInstruments';
import { healthcheckPlugin } from './plugin';

// Each test starts a whole backend (the badge test two), and the backends of
// earlier tests keep running until the file ends: 5 s is short on a busy CI.
jest.setTimeout(30_000);

const paymentsCheck = {
  apiVersion: 'vigil.dev/v1alpha1',
  kind: 'HealthCheck',
  metadata: {
    name: 'payments-api',
    namespace: 'default',
    annotations: {
      'backstage.io/source-location': 'url:https://git.example/payments/',
    },
  },
  spec: {
    type: 'http',
    target: 'http://127.0.0.1:7010/{{ environment.name }}/payments/health',
    interval: '10s',
    systems: ['system:default/payments'],
  },
};

const paymentsSystem = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'System',
  metadata: { name: 'payments', namespace: 'default' },
  spec: { owner: 'group:default/payments-team' },
};

const smtpProbeModule = createBackendModule({
  pluginId: 'healthcheck',
  moduleId: 'smtp-probe',
  register(reg) {
    reg.registerInit({
      deps: { probes: healthCheckProbesExtensionPoint },
      async init({ probes }) {
        probes.addProbeType({
          type: 'smtp',
          run: async () => ({ ok: true, durationMs: 1 }),
        });
      },
    });
  },
});

async function startBackend() {
  const { server } = await startTestBackend({
    features: [
      healthcheckPlugin,
      smtpProbeModule,
      catalogServiceMock.factory({
        entities: [paymentsCheck, paymentsSystem],
      }),
      mockServices.database.factory(),
    ],
  });
  return server;
}

describe('healthcheck backend plugin', () => {
  it('answers its health endpoint without credentials', async () => {
    const server = await startBackend();
    const res = await request(server).get('/api/healthcheck/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('lists checks declared in the catalog, with their source', async () => {
    const server = await startBackend();
    const res = await request(server)
      .get('/api/healthcheck/v1/checks')
      .set('Authorization', mockCredentials.user.header());
    expect(res.status).toBe(200);
    expect(res.body.items).toEqual([
      {
        id: 'healthcheck:default/payments-api',
        type: 'http',
        target: 'http://127.0.0.1:7010/{{ environment.name }}/payments/health',
        interval: '10s',
        systems: ['system:default/payments'],
        paused: false,
        source: {
          kind: 'gitops',
          entityRef: 'healthcheck:default/payments-api',
          location: 'url:https://git.example/payments/',
        },
      },
    ]);
  });

  it('refuses to list checks to anonymous callers', async () => {
    const server = await startBackend();
    const res = await request(server)
      .get('/api/healthcheck/v1/checks')
      .set('Authorization', mockCredentials.none.header());
    expect(res.status).toBe(401);
  });

  it('offers the probe types that modules add through the extension point', async () => {
    const server = await startBackend();
    const res = await request(server)
      .get('/api/healthcheck/v1/probe-types')
      .set('Authorization', mockCredentials.user.header());
    expect(res.status).toBe(200);
    expect(res.body.items).toContain('smtp');
  });

  it('probes a check created through the API, in every environment of its system, without waiting for a refresh, and counts the runs', async () => {
    const metrics = metricsServiceMock.mock();
    const hits: string[] = [];
    const target = createServer((req, res) => {
      hits.push(req.url ?? '');
      res.end('UP');
    });
    await new Promise<void>(resolve => target.listen(0, '127.0.0.1', resolve));
    const port = (target.address() as AddressInfo).port;
    try {
      const { server } = await startTestBackend({
        features: [
          healthcheckPlugin,
          catalogServiceMock.factory({
            entities: [
              {
                apiVersion: 'backstage.io/v1alpha1',
                kind: 'System',
                metadata: {
                  name: 'payments',
                  namespace: 'default',
                  annotations: {
                    'vigil.dev/environments': 'production,staging',
                  },
                },
                spec: { owner: 'group:default/payments-team' },
              },
            ],
          }),
          createServiceFactory({
            service: metricsServiceRef,
            deps: {},
            factory: () => metrics,
          }),
          mockServices.database.factory(),
          mockServices.rootConfig.factory({
            data: {
              healthcheck: {
                network: { allowLoopback: true },
                // Far longer than the test: only the API edit can load it.
                reconcile: { interval: '1h' },
              },
            },
          }),
        ],
      });

      const created = await request(server)
        .post('/api/healthcheck/v1/checks')
        .set('Authorization', mockCredentials.user.header())
        .send({
          id: 'payments-http',
          spec: {
            type: 'http',
            target: `http://127.0.0.1:${port}/{{ environment.name }}/health`,
            interval: '10s',
            systems: ['system:default/payments'],
          },
        });
      expect(created.status).toBe(201);

      // The first probe of a new slice comes within min(5 s, interval / 2);
      // the rest is slack for a busy machine.
      const deadline = Date.now() + 15_000;
      while (hits.length < 2 && Date.now() < deadline) {
        await new Promise(resolve => setTimeout(resolve, 100));
      }
      expect([...new Set(hits)].sort()).toEqual([
        '/production/health',
        '/staging/health',
      ]);

      // The runs reach the slices' durable state, the environments and,
      // debounced, the system's rollup.
      let rollup: any;
      const rollupDeadline = Date.now() + 10_000;
      while (Date.now() < rollupDeadline) {
        rollup = (
          await request(server)
            .get('/api/healthcheck/v1/systems/default/payments')
            .set('Authorization', mockCredentials.user.header())
        ).body;
        if (rollup.status === 'healthy') break;
        await new Promise(resolve => setTimeout(resolve, 200));
      }
      expect(rollup).toMatchObject({
        status: 'healthy',
        healthy: 2,
        total: 2,
        environmentNames: ['production', 'staging'],
      });

      // Run now: one run per environment, at once.
      const before = hits.length;
      const run = await request(server)
        .post('/api/healthcheck/v1/checks/payments-http/run')
        .set('Authorization', mockCredentials.user.header());
      expect(run.status).toBe(202);
      expect(run.body.items.map((r: any) => r.environment)).toEqual([
        'production',
        'staging',
      ]);
      const runDeadline = Date.now() + 5_000;
      while (hits.length < before + 2 && Date.now() < runDeadline) {
        await new Promise(resolve => setTimeout(resolve, 50));
      }
      expect(hits.length).toBeGreaterThanOrEqual(before + 2);

      // Each run is counted by probe type, outcome and error kind.
      const runs = instrumentNamed(metrics.createCounter, 'healthcheck.runs');
      const countDeadline = Date.now() + 5_000;
      while (runs.add.mock.calls.length < 2 && Date.now() < countDeadline) {
        await new Promise(resolve => setTimeout(resolve, 50));
      }
      expect(runs.add).toHaveBeenCalledWith(1, {
        type: 'http',
        outcome: 'pass',
        error_kind: 'none',
      });
    } finally {
      await new Promise(resolve => target.close(resolve));
    }
  });

  it('refuses an interval below healthcheck.minimumInterval', async () => {
    const { server } = await startTestBackend({
      features: [
        healthcheckPlugin,
        catalogServiceMock.factory({ entities: [] }),
        mockServices.database.factory(),
        mockServices.rootConfig.factory({
          data: { healthcheck: { minimumInterval: '30s' } },
        }),
      ],
    });
    const res = await request(server)
      .post('/api/healthcheck/v1/checks')
      .set('Authorization', mockCredentials.user.header())
      .send({
        spec: {
          type: 'http',
          target: 'https://payments.example.com/health',
          interval: '10s',
          systems: ['system:default/payments'],
        },
      });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(
      'spec.interval: 10s is below the minimum interval of 30s',
    );
  });

  it('serves badges to signed-in users, and to anyone only when healthcheck.badges.public is set', async () => {
    const start = async (badges: object) =>
      (
        await startTestBackend({
          features: [
            healthcheckPlugin,
            catalogServiceMock.factory({
              entities: [
                {
                  apiVersion: 'backstage.io/v1alpha1',
                  kind: 'System',
                  metadata: { name: 'payments', namespace: 'default' },
                  spec: { owner: 'group:default/payments-team' },
                },
              ],
            }),
            mockServices.database.factory(),
            mockServices.rootConfig.factory({
              data: { healthcheck: { badges } },
            }),
          ],
        })
      ).server;
    const path = '/api/healthcheck/v1/badges/systems/default/payments';

    const closed = await start({});
    const signedIn = await request(closed)
      .get(path)
      .set('Authorization', mockCredentials.user.header());
    expect(signedIn.status).toBe(200);
    expect(signedIn.headers['content-type']).toContain('image/svg+xml');
    expect(Buffer.from(signedIn.body).toString('utf8')).toContain('unknown');
    const anonymous = await request(closed)
      .get(path)
      .set('Authorization', mockCredentials.none.header());
    expect(anonymous.status).toBe(401);

    const open = await start({ public: true });
    const json = await request(open)
      .get(`${path}?format=json`)
      .set('Authorization', mockCredentials.none.header());
    expect(json.status).toBe(200);
    expect(json.body).toMatchObject({ schemaVersion: 1, message: 'unknown' });
    // Public badges open nothing else.
    const systems = await request(open)
      .get('/api/healthcheck/v1/systems')
      .set('Authorization', mockCredentials.none.header());
    expect(systems.status).toBe(401);
  });

  it('serves its OpenAPI document and validates requests against it', async () => {
    const server = await startBackend();
    const doc = await request(server).get('/api/healthcheck/openapi.json');
    expect(doc.status).toBe(200);
    expect(doc.body.paths['/api/healthcheck/v1/systems']).toBeDefined();

    const badBody = await request(server)
      .post('/api/healthcheck/v1/checks')
      .set('Authorization', mockCredentials.user.header())
      .send([1, 2]);
    expect(badBody.status).toBe(400);
    expect(badBody.body.error.message).toContain('body must be object');

    const badLimit = await request(server)
      .get('/api/healthcheck/v1/systems?limit=lots')
      .set('Authorization', mockCredentials.user.header());
    expect(badLimit.status).toBe(400);
    expect(badLimit.body.error.message).toContain('limit');
  });
});
