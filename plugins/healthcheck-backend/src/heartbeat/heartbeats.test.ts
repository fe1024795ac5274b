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
import request from 'supertest';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { waitFor } from '../__testUtils__/waitFor';
import {
  HeartbeatPortal,
  startHeartbeatPortal,
} from './__testUtils__/heartbeatPortal';
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

const HEARTBEAT_CHECK = {
  name: 'analytics-export',
  spec: {
    period: '3s',
    grace: '1s',
    conditions: ['[RESPONSE_TIME] < 5000'],
    thresholds: { failure: 1, success: 1 },
  },
};

const databases = TestDatabases.create({ ids: requiredTestDatabases() });

describe.each(databases.eachSupportedId())(
  'a heartbeat check on a real backend, on %p',
  databaseId => {
    let heartbeat: HeartbeatPortal;
    let token: string;

    const api = () => request(heartbeat.portal.server);
    const slice = () => heartbeat.slice(bob);
    const issueTokens = (user: string) => heartbeat.issueTokens(user);
    const ping = (path: string) => heartbeat.ping(path);

    beforeAll(async () => {
      heartbeat = await startHeartbeatPortal({
        databases,
        databaseId,
        check: HEARTBEAT_CHECK,
        policy,
        memberships: { [alice]: ['group:default/team-a'] },
        healthcheck: {
          heartbeats: { pingsPerMinute: PINGS_PER_MINUTE },
          secrets: {
            WAREHOUSE_PASSWORD: {
              value: WAREHOUSE_PASSWORD,
              allowedOrigins: ['https://warehouse.example.com'],
            },
          },
        },
      });
    });

    afterAll(async () => {
      await heartbeat?.stop();
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
