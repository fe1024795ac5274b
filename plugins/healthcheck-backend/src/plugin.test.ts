import { createBackendModule } from '@backstage/backend-plugin-api';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { healthCheckProbesExtensionPoint } from '@vigil/plugin-healthcheck-node';
import request from 'supertest';
import { healthcheckPlugin } from './plugin';

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
      catalogServiceMock.factory({ entities: [paymentsCheck] }),
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
});
