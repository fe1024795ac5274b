import { mockCredentials, TestDatabases } from '@backstage/backend-test-utils';
import {
  AuthorizeResult,
  isResourcePermission,
} from '@backstage/plugin-permission-common';
import type { PermissionPolicy } from '@backstage/plugin-permission-node';
import {
  encodeSliceId,
  RESOURCE_TYPE_HEALTHCHECK_CHECK,
} from '@vigil/plugin-healthcheck-common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { stringify } from 'yaml';
import {
  PortalBackend,
  startPortalBackend,
} from '../__testUtils__/startPortalBackend';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { waitFor } from '../__testUtils__/waitFor';
import {
  createHealthcheckCheckConditionalDecision,
  healthcheckCheckConditions,
} from '../permissions/conditionExports';

// A whole portal per database, and deadlines that must pass.
jest.setTimeout(240_000);

/*
 * A nightly export of team A's analytics system pings a heartbeat check
 * every 3 s with 1 s of grace (its slice looks at the deadline every 5 s).
 * Alice (team A) may manage the check; Bob may only read it.
 */
const alice = 'user:default/alice';
const bob = 'user:default/bob';
const as = (user: string) => mockCredentials.user.header(user);
const CHECK_ID = 'healthcheck:default/analytics-export';
const SLICE_ID = encodeSliceId({
  checkId: CHECK_ID,
  systemRef: 'system:default/analytics',
  environment: 'production',
});
const PINGS_PER_MINUTE = 12;
const WAREHOUSE_PASSWORD = 'correct-horse-battery-staple';

const policy: PermissionPolicy = {
  async handle(req, user) {
    const claims = user?.info.ownershipEntityRefs ?? [];
    if (
      isResourcePermission(req.permission, RESOURCE_TYPE_HEALTHCHECK_CHECK) &&
      req.permission.attributes.action !== 'read'
    ) {
      return createHealthcheckCheckConditionalDecision(
        req.permission,
        healthcheckCheckConditions.isCheckOwner({ claims }),
      );
    }
    return { result: AuthorizeResult.ALLOW };
  },
};

const catalog = [
  {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Group',
    metadata: { name: 'team-a' },
    spec: { type: 'team', children: [] },
  },
  {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: {
      name: 'analytics',
      annotations: { 'vigil.dev/environments': 'production' },
    },
    spec: { owner: 'group:default/team-a' },
  },
  {
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'HealthCheck',
    metadata: { name: 'analytics-export' },
    spec: {
      type: 'heartbeat',
      period: '3s',
      grace: '1s',
      conditions: ['[RESPONSE_TIME] < 5000'],
      thresholds: { failure: 1, success: 1 },
      systems: ['analytics'],
      owner: 'group:default/team-a',
    },
  },
];

const databases = TestDatabases.create({ ids: requiredTestDatabases() });

describe.each(databases.eachSupportedId())(
  'a heartbeat check on a real backend, on %p',
  databaseId => {
    let portal: PortalBackend;
    let catalogDir: string;
    let token: string;

    const api = () => request(portal.server);
    const slice = async () =>
      (
        await api()
          .get(`/api/healthcheck/v1/slices/${encodeURIComponent(SLICE_ID)}`)
          .set('Authorization', as(bob))
      ).body;
    const issueTokens = (user: string) =>
      api()
        .post(
          `/api/healthcheck/v1/checks/${encodeURIComponent(
            CHECK_ID,
          )}/heartbeat/tokens`,
        )
        .set('Authorization', as(user));
    /** Pinged without any Backstage credentials: the token is enough. */
    const ping = (path: string) =>
      api().post(`/api/healthcheck/v1/ping/${path}`);

    beforeAll(async () => {
      catalogDir = mkdtempSync(join(tmpdir(), 'vigil-heartbeats-'));
      const catalogFile = join(catalogDir, 'catalog.yaml');
      writeFileSync(catalogFile, catalog.map(e => stringify(e)).join('---\n'));
      portal = await startPortalBackend({
        catalogFile,
        databases,
        databaseId,
        policy,
        memberships: { [alice]: ['group:default/team-a'] },
        config: {
          healthcheck: {
            minimumInterval: '1s',
            reconcile: { catalogPollInterval: '1s', catalogPollBudget: 1 },
            rollup: { window: '200ms' },
            scheduler: { refreshInterval: '500ms' },
            heartbeats: { pingsPerMinute: PINGS_PER_MINUTE },
            secrets: {
              WAREHOUSE_PASSWORD: {
                value: WAREHOUSE_PASSWORD,
                allowedOrigins: ['https://warehouse.example.com'],
              },
            },
          },
        },
      });
      // Until it has a ping URL the slice fails, saying how to make one.
      await waitFor(
        'the heartbeat slice to run',
        slice,
        s => s.status === 'unhealthy',
      );
    });

    afterAll(async () => {
      await portal?.stop();
      rmSync(catalogDir, { recursive: true, force: true });
    });

    it('gives ping URLs to those who may update the check, once', async () => {
      expect((await slice()).lastReason).toContain('No ping URL yet');
      await issueTokens(bob).expect(403);
      const issued = await issueTokens(alice).expect(201);
      expect(issued.body.items).toHaveLength(1);
      const [item] = issued.body.items;
      token = item.token;
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(item).toMatchObject({
        sliceId: SLICE_ID,
        systemRef: 'system:default/analytics',
        environment: 'production',
        tokenHint: `…${token.slice(-4)}`,
      });
      expect(item.pingUrl).toMatch(
        new RegExp(`/api/healthcheck/v1/ping/${token}$`),
      );

      const status = await api()
        .get(
          `/api/healthcheck/v1/checks/${encodeURIComponent(
            CHECK_ID,
          )}/heartbeat`,
        )
        .set('Authorization', as(alice))
        .expect(200);
      expect(JSON.stringify(status.body)).not.toContain(token);
      expect(status.body.items[0]).toMatchObject({
        sliceId: SLICE_ID,
        tokenHint: `…${token.slice(-4)}`,
      });
      expect(Date.parse(status.body.items[0].deadline)).toBe(
        Date.parse(status.body.items[0].armedAt) + 4_000,
      );
    });

    it('turns healthy on a ping, unhealthy when pings stop past grace, healthy on the next', async () => {
      await ping(token).expect(200, { ok: true, signal: 'success' });
      await waitFor('healthy after a ping', slice, s => s.status === 'healthy');
      const missed = await waitFor(
        'unhealthy once period and grace passed',
        slice,
        s => s.status === 'unhealthy',
        20_000,
      );
      expect(missed.lastReason).toMatch(
        /No ping since .*; one was due by .* \(grace included\)/,
      );
      await api().get(`/api/healthcheck/v1/ping/${token}`).expect(200);
      await waitFor(
        'healthy on the next ping',
        slice,
        s => s.status === 'healthy',
      );
    });

    it('fails on /fail with the job’s message (redacted), and measures /start to success', async () => {
      await ping(`${token}/fail`)
        .set('Content-Type', 'text/plain')
        .send(`export failed: disk full (login ${WAREHOUSE_PASSWORD})`)
        .expect(200, { ok: true, signal: 'fail' });
      const failed = await waitFor(
        'unhealthy on a failure ping',
        slice,
        s => s.status === 'unhealthy',
      );
      // Kept as the run's message, without the secret values it held.
      expect(failed.lastReason).toContain(
        'export failed: disk full (login ***)',
      );
      expect(failed.lastReason).not.toContain(WAREHOUSE_PASSWORD);

      await ping(`${token}/start`).expect(200, { ok: true, signal: 'start' });
      await new Promise(resolve => setTimeout(resolve, 1_200));
      await ping(token).expect(200);
      const done = await waitFor(
        'healthy with the run measured',
        slice,
        s => s.status === 'healthy',
      );
      expect(done.lastDurationMs).toBeGreaterThanOrEqual(1_200);
      expect(done.lastDurationMs).toBeLessThan(5_000);
    });

    it('answers 404 to unknown tokens and 413 to bodies over 10 kB', async () => {
      for (const unknown of [
        'not-a-token',
        'A'.repeat(32),
        `${token}/sideways`,
      ]) {
        expect((await ping(unknown)).status).toBe(404);
      }
      const oversize = await ping(token)
        .set('Content-Type', 'text/plain')
        .send('x'.repeat(10 * 1024 + 1));
      expect(oversize.status).toBe(413);
    });

    it('refuses a run now of a heartbeat check', async () => {
      const response = await api()
        .post(`/api/healthcheck/v1/checks/${encodeURIComponent(CHECK_ID)}/run`)
        .set('Authorization', as(alice))
        .expect(409);
      expect(response.body.error.message).toContain('is a heartbeat check');
    });

    it('rotates a token, and rate-limits each', async () => {
      const rotated = await issueTokens(alice)
        .send({ sliceId: SLICE_ID })
        .expect(201);
      const fresh = rotated.body.items[0].token;
      await ping(token).expect(404);
      for (let i = 0; i < PINGS_PER_MINUTE; i++) {
        await ping(fresh).expect(200);
      }
      const refused = await ping(fresh).expect(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    });
  },
);
