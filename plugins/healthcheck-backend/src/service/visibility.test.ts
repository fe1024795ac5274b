import { createServiceFactory } from '@backstage/backend-plugin-api';
import { mockCredentials, TestDatabases } from '@backstage/backend-test-utils';
import {
  catalogConditions,
  createCatalogConditionalDecision,
} from '@backstage/plugin-catalog-backend/alpha';
import { RESOURCE_TYPE_CATALOG_ENTITY } from '@backstage/plugin-catalog-common/alpha';
import {
  AuthorizeResult,
  isResourcePermission,
  ResourcePermission,
} from '@backstage/plugin-permission-common';
import type { PermissionPolicy } from '@backstage/plugin-permission-node';
import { signalsServiceRef } from '@backstage/plugin-signals-node';
import {
  encodeSliceId,
  healthcheckMaintenanceManagePermission,
  RESOURCE_TYPE_HEALTHCHECK_CHECK,
  SYSTEM_STATUS_SIGNAL_CHANNEL,
} from '@vigil/plugin-healthcheck-common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
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

// A whole portal per database, and probes that must run before the tests.
jest.setTimeout(180_000);

/*
 * Two teams, each owning a system with checks from Git and from the API.
 * Alpha depends on a component of bravo, and one of alpha's checks targets
 * it, so alpha's health names bravo. A policy lets users read the catalog
 * entities they own (and the ones labelled public); alice is in team A, bob
 * in team B, carol in both.
 */
const alice = 'user:default/alice';
const bob = 'user:default/bob';
const carol = 'user:default/carol';
const memberships = {
  [alice]: ['group:default/team-a'],
  [bob]: ['group:default/team-b'],
  [carol]: ['group:default/team-a', 'group:default/team-b'],
};
const as = (user: string) => mockCredentials.user.header(user);
const anonymous = mockCredentials.none.header();

const policy: PermissionPolicy = {
  async handle(req, user) {
    const claims = user?.info.ownershipEntityRefs ?? [];
    // A system's maintenance is its owners' to manage, public or not.
    if (req.permission.name === healthcheckMaintenanceManagePermission.name) {
      return createCatalogConditionalDecision(
        req.permission as ResourcePermission<'catalog-entity'>,
        catalogConditions.isEntityOwner({ claims }),
      );
    }
    if (isResourcePermission(req.permission, RESOURCE_TYPE_CATALOG_ENTITY)) {
      return createCatalogConditionalDecision(req.permission, {
        anyOf: [
          catalogConditions.isEntityOwner({ claims }),
          catalogConditions.hasLabel({ label: 'visibility', value: 'public' }),
        ],
      });
    }
    // Everyone reads checks (visibility still applies); owners change them.
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

/** What the targets answer, by path; the test turns some to 500. */
const targetStatus = new Map<string, number>();

function catalogOf(base: string) {
  const group = (name: string) => ({
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Group',
    metadata: { name },
    spec: { type: 'team', children: [] },
  });
  const system = (name: string, owner: string, labels?: object) => ({
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: {
      name,
      ...(labels && { labels }),
      annotations: { 'vigil.dev/environments': 'production' },
    },
    spec: { owner },
  });
  const component = (name: string, ofSystem: string, dependsOn?: string[]) => ({
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'Component',
    metadata: { name },
    spec: {
      type: 'service',
      lifecycle: 'production',
      owner: `group:default/team-${ofSystem[0]}`,
      system: ofSystem,
      ...(dependsOn && { dependsOn }),
    },
  });
  const check = (name: string, owner: string, spec: object) => ({
    apiVersion: 'vigil.dev/v1alpha1',
    kind: 'HealthCheck',
    metadata: { name },
    spec: {
      type: 'http',
      target: `${base}/${name}`,
      interval: '2s',
      conditions: ['[STATUS] == 200'],
      thresholds: { failure: 1, success: 1 },
      owner,
      ...spec,
    },
  });
  return [
    group('team-a'),
    group('team-b'),
    group('team-c'),
    system('alpha', 'group:default/team-a'),
    system('bravo', 'group:default/team-b'),
    system('charlie', 'group:default/team-c', { visibility: 'public' }),
    component('alpha-api', 'alpha', ['component:default/bravo-db']),
    component('bravo-db', 'bravo'),
    check('alpha-http', 'team-a', { systems: ['alpha'] }),
    check('alpha-upstream', 'team-a', {
      systems: ['alpha'],
      components: ['bravo-db'],
    }),
    check('bravo-http', 'team-b', {
      systems: ['bravo'],
      components: ['bravo-db'],
    }),
    // Team A's, but it names bravo too: only who reads both may see it. (It
    // runs on alpha alone: a HealthCheck entity monitors only systems its
    // owner owns.)
    check('shared-dns', 'team-a', { systems: ['alpha', 'bravo'] }),
  ]
    .map(entity => stringify(entity))
    .join('---\n');
}

function apiCheck(id: string, base: string, systems: string[]) {
  return {
    id,
    spec: {
      type: 'http',
      target: `${base}/${id}`,
      interval: '2s',
      conditions: ['[STATUS] == 200'],
      thresholds: { failure: 1, success: 1 },
      systems,
    },
  };
}

const databases = TestDatabases.create({ ids: requiredTestDatabases() });

describe.each(databases.eachSupportedId())(
  'what a caller who cannot read a system learns of it, on %p',
  databaseId => {
    let target: Server;
    let base: string;
    let portal: PortalBackend;
    let catalogDir: string;
    const signals: Array<{ channel: string; message: unknown }> = [];

    const get = (path: string, user: string) =>
      request(portal.server)
        .get(`/api/healthcheck${path}`)
        .set('Authorization', user);
    const systemOf = async (name: string, user: string) =>
      (await get(`/v1/systems/default/${name}`, user)).body;

    beforeAll(async () => {
      target = createServer((req, res) => {
        res.statusCode = targetStatus.get(req.url ?? '') ?? 200;
        res.end(res.statusCode === 200 ? 'UP' : 'DOWN');
      });
      await new Promise<void>(resolve =>
        target.listen(0, '127.0.0.1', resolve),
      );
      base = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
      targetStatus.clear();
      catalogDir = mkdtempSync(join(tmpdir(), 'vigil-visibility-'));
      const catalogFile = join(catalogDir, 'catalog.yaml');
      writeFileSync(catalogFile, catalogOf(base));

      portal = await startPortalBackend({
        catalogFile,
        databases,
        databaseId,
        policy,
        memberships,
        config: {
          healthcheck: {
            network: { allowLoopback: true },
            minimumInterval: '1s',
            reconcile: { catalogPollInterval: '1s', catalogPollBudget: 1 },
            rollup: { window: '200ms' },
            scheduler: { refreshInterval: '500ms' },
            badges: { public: true, publicSystems: ['system:default/alpha'] },
          },
        },
        features: [
          createServiceFactory({
            service: signalsServiceRef,
            deps: {},
            factory: () => ({
              publish: async (signal: any) => {
                signals.push({
                  channel: signal.channel,
                  message: signal.message,
                });
              },
            }),
          }),
        ],
      });

      // The catalog ingests the file; then each team adds a check through
      // the API.
      await waitFor(
        'the catalog to ingest the file and its location',
        async () => (await portal.listEntities()).length,
        count => count === 13,
      );
      await request(portal.server)
        .post('/api/healthcheck/v1/checks')
        .set('Authorization', as(alice))
        .send(apiCheck('alpha-api-check', base, ['alpha']))
        .expect(201);
      await request(portal.server)
        .post('/api/healthcheck/v1/checks')
        .set('Authorization', as(bob))
        .send(apiCheck('bravo-api-check', base, ['bravo']))
        .expect(201);

      // Every slice runs and is healthy (alpha: its two checks from Git,
      // shared-dns and its API check; bravo: one from Git, one from the API)...
      await waitFor(
        'alpha and bravo to be healthy',
        async () => [
          await systemOf('alpha', as(carol)),
          await systemOf('bravo', as(carol)),
        ],
        ([a, b]) =>
          a.status === 'healthy' &&
          a.total === 4 &&
          b.status === 'healthy' &&
          b.total === 2,
      );
      // ... then bravo goes down, and so does alpha's check of bravo's
      // component: alpha's health now names bravo and its component.
      targetStatus.set('/bravo-http', 500);
      await waitFor(
        'bravo to be unhealthy',
        () => systemOf('bravo', as(carol)),
        b => b.status === 'unhealthy',
      );
      targetStatus.set('/alpha-upstream', 500);
      await waitFor(
        'alpha to be unhealthy, with bravo upstream',
        () => systemOf('alpha', as(carol)),
        a => a.status === 'unhealthy' && a.upstream.length === 1,
      );
    });

    afterAll(async () => {
      await portal?.stop();
      await new Promise(resolve => target?.close(resolve));
      rmSync(catalogDir, { recursive: true, force: true });
    });

    const BRAVO_SLICE = encodeSliceId({
      checkId: 'healthcheck:default/bravo-http',
      systemRef: 'system:default/bravo',
      environment: 'production',
    });
    const BRAVO_GITOPS = encodeURIComponent('healthcheck:default/bravo-http');
    const SHARED = encodeURIComponent('healthcheck:default/shared-dns');

    /** Every read of the API that names bravo, or one of its checks. */
    const readsNamingBravo = [
      '/v1/systems/default/bravo',
      '/v1/systems/default/bravo/history',
      '/v1/systems/default/bravo/uptime',
      '/v1/systems/default/bravo/checks',
      `/v1/slices/${encodeURIComponent(BRAVO_SLICE)}`,
      `/v1/slices/${encodeURIComponent(BRAVO_SLICE)}/runs`,
      `/v1/checks/${BRAVO_GITOPS}`,
      '/v1/checks/bravo-api-check',
      `/v1/checks/${SHARED}`,
    ];

    const badgesOfBravo = [
      '',
      '?format=json',
      '?environment=production',
      '?kind=uptime&window=24h',
      '?kind=uptime&window=30d&environment=production&format=json',
      '?kind=response-time&percentile=p95',
    ].map(query => `/v1/badges/systems/default/bravo${query}`);

    it('answers 404 to every read that names a system the caller cannot read, where its owners get the answer', async () => {
      for (const path of readsNamingBravo) {
        const [byAlice, byCarol] = await Promise.all([
          get(path, as(alice)),
          get(path, as(carol)),
        ]);
        expect({ path, status: byAlice.status }).toEqual({ path, status: 404 });
        expect({ path, status: byCarol.status }).toEqual({ path, status: 200 });
        expect(JSON.stringify(byAlice.body)).not.toMatch(/unhealthy|DOWN|500/);
      }
    });

    it('answers 404 to every change and run of a check the caller cannot see, and changes nothing', async () => {
      const bravoApiCheck = (await get('/v1/checks/bravo-api-check', as(bob)))
        .body;
      const alicesAttempts: Array<[string, request.Test]> = [
        [
          'update an API check of bravo',
          request(portal.server)
            .put('/api/healthcheck/v1/checks/bravo-api-check')
            .set('Authorization', as(alice))
            .send({ spec: { ...bravoApiCheck.spec, paused: true } }),
        ],
        [
          'delete an API check of bravo',
          request(portal.server)
            .delete('/api/healthcheck/v1/checks/bravo-api-check')
            .set('Authorization', as(alice)),
        ],
        [
          'run an API check of bravo',
          request(portal.server)
            .post('/api/healthcheck/v1/checks/bravo-api-check/run')
            .set('Authorization', as(alice)),
        ],
        [
          'run a GitOps check of bravo',
          request(portal.server)
            .post(`/api/healthcheck/v1/checks/${BRAVO_GITOPS}/run`)
            .set('Authorization', as(alice)),
        ],
        [
          'update a GitOps check of bravo',
          request(portal.server)
            .put(`/api/healthcheck/v1/checks/${BRAVO_GITOPS}`)
            .set('Authorization', as(alice))
            .send({ spec: bravoApiCheck.spec }),
        ],
        [
          "delete her own team's GitOps check that names bravo too",
          request(portal.server)
            .delete(`/api/healthcheck/v1/checks/${SHARED}`)
            .set('Authorization', as(alice)),
        ],
      ];
      for (const [attempt, sent] of alicesAttempts) {
        const res = await sent;
        expect({ attempt, status: res.status }).toEqual({
          attempt,
          status: 404,
        });
        expect(res.body.error.message).toMatch(/^There is no check with id /);
      }
      expect((await get('/v1/checks/bravo-api-check', as(bob))).body).toEqual(
        bravoApiCheck,
      );
    });

    it('answers every badge of such a system as one of a system that does not exist', async () => {
      for (const path of badgesOfBravo) {
        const [byAlice, nowhere, byCarol] = await Promise.all([
          get(path, as(alice)),
          get(path.replace('/bravo', '/nowhere'), as(alice)),
          get(path, as(carol)),
        ]);
        expect({ path, status: byAlice.status }).toEqual({ path, status: 404 });
        expect(byAlice.body.error.message).toBe(
          nowhere.body.error.message.replace('nowhere', 'bravo'),
        );
        expect({ path, status: byCarol.status }).toEqual({ path, status: 200 });
      }
    });

    it('shows anonymous readers of public badges only what an anonymous principal may read, and the systems listed as public', async () => {
      for (const path of badgesOfBravo) {
        expect((await get(path, anonymous)).status).toBe(404);
      }
      const alpha = await get(
        '/v1/badges/systems/default/alpha?format=json',
        anonymous,
      );
      expect(alpha.status).toBe(200);
      expect(alpha.body.message).toMatch(/^unhealthy/);
      // Readable by anyone under the policy: labelled public.
      expect(
        (await get('/v1/badges/systems/default/charlie', anonymous)).status,
      ).toBe(200);
      // Still nothing but badges.
      expect((await get('/v1/systems', anonymous)).status).toBe(401);
    });

    it('leaves such a system out of every list, with the checks that name it', async () => {
      const systems = await get('/v1/systems', as(alice));
      expect(systems.body.items.map((s: any) => s.name).sort()).toEqual([
        'alpha',
        'charlie',
      ]);
      expect(systems.body.totalCount).toBe(2);

      const checks = await get('/v1/checks', as(alice));
      expect(checks.body.items.map((c: any) => c.id)).toEqual([
        'alpha-api-check',
        'healthcheck:default/alpha-http',
        'healthcheck:default/alpha-upstream',
      ]);
      const alphaChecks = await get(
        '/v1/systems/default/alpha/checks',
        as(alice),
      );
      expect(alphaChecks.body.items.map((c: any) => c.id)).toEqual([
        'alpha-api-check',
        'healthcheck:default/alpha-http',
        'healthcheck:default/alpha-upstream',
      ]);
      // Who reads both systems sees the check that names both.
      expect(
        (await get('/v1/checks', as(carol))).body.items.map((c: any) => c.id),
      ).toContain('healthcheck:default/shared-dns');
    });

    it('says nothing of it in the health of a system the caller can read: no upstream, no components', async () => {
      const forCarol = await systemOf('alpha', as(carol));
      expect(forCarol.upstream).toEqual([
        { systemRef: 'system:default/bravo', status: 'unhealthy' },
      ]);
      expect(JSON.stringify(forCarol)).toContain('component:default/bravo-db');

      const forAlice = await systemOf('alpha', as(alice));
      expect(forAlice.status).toBe('unhealthy');
      expect(forAlice.upstream).toEqual([]);
      const [inList] = (await get('/v1/systems?q=alpha', as(alice))).body.items;
      expect(inList.upstream).toEqual([]);
      for (const answer of [forAlice, inList]) {
        expect(JSON.stringify(answer)).not.toMatch(/bravo/);
      }
    });

    it('refuses to assign a check to such a system, in the words it uses for one that does not exist', async () => {
      const create = (systems: string[]) =>
        request(portal.server)
          .post('/api/healthcheck/v1/checks')
          .set('Authorization', as(alice))
          .send(apiCheck('alpha-and-more', base, systems));
      const hidden = await create(['alpha', 'bravo']);
      const missing = await create(['alpha', 'nowhere']);
      expect([hidden.status, missing.status]).toEqual([400, 400]);
      expect(hidden.body.error.problems).toEqual([
        {
          path: ['spec', 'systems', 1],
          reason: 'there is no system "bravo" that you can read',
        },
      ]);
      expect(missing.body.error.problems).toEqual([
        {
          path: ['spec', 'systems', 1],
          reason: 'there is no system "nowhere" that you can read',
        },
      ]);

      const current = (await get('/v1/checks/alpha-api-check', as(alice))).body;
      const update = await request(portal.server)
        .put('/api/healthcheck/v1/checks/alpha-api-check')
        .set('Authorization', as(alice))
        .send({ spec: { ...current.spec, systems: ['alpha', 'bravo'] } });
      expect(update.status).toBe(400);
      expect(update.body.error.message).toBe(
        'Invalid check: spec.systems[1]: there is no system "bravo" that you can read',
      );
    });

    it("lets the policy decide per check: owners change their team's checks, others who see them get 403", async () => {
      const current = (await get('/v1/checks/bravo-api-check', as(bob))).body;
      const byCarol = await request(portal.server)
        .put('/api/healthcheck/v1/checks/bravo-api-check')
        .set('Authorization', as(carol))
        .send({ spec: current.spec });
      expect(byCarol.status).toBe(403);
      const byBob = await request(portal.server)
        .put('/api/healthcheck/v1/checks/bravo-api-check')
        .set('Authorization', as(bob))
        .send({ spec: current.spec });
      expect(byBob.status).toBe(200);

      // As the frontend's usePermission asks: the permission backend loads
      // the check from the plugin to apply the policy's conditions.
      const decide = async (user: string) =>
        (
          await request(portal.server)
            .post('/api/permission/authorize')
            .set('Authorization', as(user))
            .send({
              items: [
                {
                  id: '1',
                  permission: {
                    type: 'resource',
                    name: 'healthcheck.check.update',
                    attributes: { action: 'update' },
                    resourceType: RESOURCE_TYPE_HEALTHCHECK_CHECK,
                  },
                  resourceRef: 'bravo-api-check',
                },
              ],
            })
        ).body.items[0].result;
      expect(await decide(bob)).toBe(AuthorizeResult.ALLOW);
      expect(await decide(carol)).toBe(AuthorizeResult.DENY);
    });

    it('tells browsers of status changes with an opaque key alone, which only those who can read the system can match', async () => {
      const statusSignals = signals.filter(
        s => s.channel === SYSTEM_STATUS_SIGNAL_CHANNEL,
      );
      expect(statusSignals.length).toBeGreaterThanOrEqual(2);
      for (const { message } of statusSignals) {
        expect(Object.keys(message as object).sort()).toEqual([
          'liveKey',
          'type',
        ]);
        expect(message).toEqual({
          type: 'SYSTEM_STATUS_CHANGED',
          liveKey: expect.stringMatching(/^[\w-]{22}$/),
        });
      }
      expect(JSON.stringify(statusSignals)).not.toMatch(
        /alpha|bravo|system:|unhealthy|STATUS\]|DOWN/,
      );

      const bravoKey = (await systemOf('bravo', as(carol))).liveKey;
      const alphaKey = (await systemOf('alpha', as(alice))).liveKey;
      const sent = statusSignals.map(s => (s.message as any).liveKey);
      expect(sent).toEqual(expect.arrayContaining([alphaKey, bravoKey]));
      // Alice's answers never hand her bravo's key.
      const everythingAliceReads = JSON.stringify([
        (await get('/v1/systems', as(alice))).body,
        await systemOf('alpha', as(alice)),
      ]);
      expect(everythingAliceReads).toContain(alphaKey);
      expect(everythingAliceReads).not.toContain(bravoKey);
    });

    it("lets the policy decide a system's maintenance per system: its owners open windows, a reader who does not own it gets 403", async () => {
      const open = (system: string, user: string) =>
        request(portal.server)
          .post('/api/healthcheck/v1/maintenance-windows')
          .set('Authorization', as(user))
          .send({ system, duration: '30m', reason: 'Deploying' });
      // Alice reads charlie (it is public) but does not own it.
      expect((await systemOf('charlie', as(alice))).name).toBe('charlie');
      const refused = await open('charlie', alice);
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toBe(
        'You may not manage the maintenance of system:default/charlie: it needs the permission healthcheck.maintenance.manage on that system',
      );
      // What she cannot read is not there at all.
      expect((await open('bravo', alice)).status).toBe(404);
      const opened = await open('alpha', alice);
      expect(opened.status).toBe(201);
      // Bob cannot end it (he cannot see alpha); alice can.
      const end = (user: string) =>
        request(portal.server)
          .post(`/api/healthcheck/v1/maintenance-windows/${opened.body.id}/end`)
          .set('Authorization', as(user));
      expect((await end(bob)).status).toBe(404);
      expect((await end(alice)).status).toBe(200);
    });
  },
);
