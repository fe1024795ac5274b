import { AuthorizeResult } from '@backstage/plugin-permission-common';
import {
  AuditorServiceCreateEventOptions,
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import {
  mockCredentials,
  mockServices,
  startTestBackend,
} from '@backstage/backend-test-utils';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import {
  formatProblemPath,
  HealthCheckSpec,
  HealthCheckSpecProblem,
} from '@vigil/plugin-healthcheck-common';
import request from 'supertest';
import { DatabaseHealthcheckStore } from '../database/DatabaseHealthcheckStore';
import {
  createHealthcheckCheckConditionalDecision,
  healthcheckCheckConditions,
} from '../permissions/conditionExports';
import { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';
import { ChecksChange } from './checkChanges';
import type { CheckRunStarted } from '../model';
import { createChecksRouter } from './checksRouter';

jest.setTimeout(30_000);

const CHECKS = '/api/healthcheck/v1/checks';
const alice = 'user:default/alice';
const aliceHeader = mockCredentials.user.header(alice);
// Without any header the test backend would take the caller for a default user.
const noCredentials = mockCredentials.none.header();

const paymentsSpec: HealthCheckSpec = {
  type: 'http',
  target: 'http://{{ environment.name }}.payments.example.com/health',
  interval: '30s',
  systems: ['payments'],
};

const gitOpsCheck = {
  apiVersion: 'vigil.dev/v1alpha1',
  kind: 'HealthCheck',
  metadata: {
    name: 'payments-api',
    namespace: 'default',
    title: 'Payments API from Git',
    annotations: {
      'backstage.io/source-location':
        'url:https://git.example/payments/tree/main/',
    },
  },
  spec: {
    type: 'http',
    target: 'http://127.0.0.1:7010/payments/health',
    systems: ['system:default/payments'],
  },
};

/** The systems checks are assigned to: callers must be able to read them. */
const systems = ['payments', 'billing'].map(name => ({
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'System',
  metadata: { name, namespace: 'default' },
  spec: { owner: `group:default/${name}-team` },
}));

/** An auditor that keeps every event and what became of it. */
function recordingAuditor() {
  const events: Array<{
    options: AuditorServiceCreateEventOptions;
    success: jest.Mock;
    fail: jest.Mock;
  }> = [];
  const auditor = mockServices.auditor.mock({
    createEvent: jest.fn(async options => {
      const event = { options, success: jest.fn(), fail: jest.fn() };
      events.push(event);
      return event;
    }),
  });
  const summary = () =>
    events.map(e => ({
      eventId: e.options.eventId,
      severityLevel: e.options.severityLevel,
      outcome: (() => {
        if (e.success.mock.calls.length > 0) {
          return { success: e.success.mock.calls[0][0] };
        }
        if (e.fail.mock.calls.length > 0) {
          return { fail: e.fail.mock.calls[0][0].error.name };
        }
        return 'open';
      })(),
    }));
  return { auditor, events, summary };
}

/**
 * A policy that lets everyone read and create, and lets users update,
 * delete and run only the checks they own (their user ref and groups, by
 * user).
 */
function permissionsConditionalOnOwnership(
  ownershipByUser: Record<string, string[]>,
) {
  const decide = async (
    requests: Array<{ permission: { name: string } }>,
    { credentials }: { credentials: any },
  ) =>
    requests.map(({ permission }) =>
      ['healthcheck.check.read', 'healthcheck.check.create'].includes(
        permission.name,
      )
        ? { result: AuthorizeResult.ALLOW }
        : createHealthcheckCheckConditionalDecision(
            permission as any,
            healthcheckCheckConditions.isCheckOwner({
              claims:
                ownershipByUser[credentials.principal.userEntityRef] ?? [],
            }),
          ),
    ) as any;
  return mockServices.permissions.mock({
    authorize: jest.fn(decide),
    authorizeConditional: jest.fn(decide),
  });
}

/** A policy that allows everything but the permissions it names. */
function permissionsDenying(...denied: string[]) {
  const decide = async (requests: Array<{ permission: { name: string } }>) =>
    requests.map(({ permission }) => ({
      result: denied.includes(permission.name)
        ? AuthorizeResult.DENY
        : AuthorizeResult.ALLOW,
    })) as any;
  return mockServices.permissions.mock({
    authorize: jest.fn(decide),
    authorizeConditional: jest.fn(decide),
  });
}

async function startBackend(
  options: {
    permissions?: ReturnType<typeof mockServices.permissions.mock>;
    onChecksChanged?: (change: ChecksChange) => void;
    runCheck?: (checkId: string) => Promise<CheckRunStarted[]>;
    allowPlaceholderHosts?: boolean;
  } = {},
) {
  const audit = recordingAuditor();
  const permissions = options.permissions ?? permissionsDenying();
  const probeTypes = new ProbeTypeRegistry();
  probeTypes.add({
    type: 'http',
    configSchema: {
      type: 'object',
      additionalProperties: false,
      properties: { method: { enum: ['GET', 'HEAD'] } },
    },
    run: async () => ({ ok: true, durationMs: 1 }),
  });
  probeTypes.add({
    type: 'tcp',
    run: async () => ({ ok: true, durationMs: 1 }),
  });

  const routerPlugin = createBackendPlugin({
    pluginId: 'healthcheck',
    register(env) {
      env.registerInit({
        deps: {
          logger: coreServices.logger,
          database: coreServices.database,
          httpRouter: coreServices.httpRouter,
          httpAuth: coreServices.httpAuth,
          permissions: coreServices.permissions,
          auditor: coreServices.auditor,
          catalog: catalogServiceRef,
        },
        async init(deps) {
          const store = await DatabaseHealthcheckStore.create({
            database: deps.database,
          });
          deps.httpRouter.use(
            await createChecksRouter({
              ...deps,
              store,
              probeTypes,
              onChecksChanged: options.onChecksChanged,
              runCheck: options.runCheck,
              allowPlaceholderHosts: options.allowPlaceholderHosts,
            }),
          );
        },
      });
    },
  });

  const { server } = await startTestBackend({
    features: [
      routerPlugin,
      catalogServiceMock.factory({ entities: [gitOpsCheck, ...systems] }),
      mockServices.database.factory(),
      audit.auditor.factory,
      permissions.factory,
    ],
  });
  return { server, audit, permissions };
}

describe('POST /v1/checks', () => {
  it('creates a check with the id given, answers 201 with the stored check and where to find it', async () => {
    const changes: ChecksChange[] = [];
    const { server, audit } = await startBackend({
      onChecksChanged: change => changes.push(change),
    });

    const res = await request(server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send({ id: 'payments-http', title: 'Payments API', spec: paymentsSpec });

    expect(res.status).toBe(201);
    expect(res.headers.location).toBe(
      '/api/healthcheck/v1/checks/payments-http',
    );
    expect(res.body).toEqual({
      id: 'payments-http',
      title: 'Payments API',
      spec: paymentsSpec,
      revision: 1,
      source: {
        kind: 'api',
        createdBy: alice,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        updatedBy: alice,
        updatedAt: res.body.source.createdAt,
      },
    });
    const read = await request(server)
      .get(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader);
    expect(read.body).toEqual(res.body);
    expect(changes).toEqual([
      { checkId: 'payments-http', systems: ['system:default/payments'] },
    ]);
    expect(audit.summary()).toEqual([
      {
        eventId: 'check-create',
        severityLevel: 'medium',
        outcome: {
          success: { meta: { checkId: 'payments-http', revision: 1 } },
        },
      },
    ]);
  });

  it('derives the id from the title when none is given, numbering it when taken', async () => {
    const { server } = await startBackend();
    const body = { title: 'Payments API (EU)', spec: paymentsSpec };

    const first = await request(server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send(body);
    const second = await request(server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send(body);

    expect([first.status, second.status]).toEqual([201, 201]);
    expect([first.body.id, second.body.id]).toEqual([
      'payments-api-eu',
      'payments-api-eu-2',
    ]);
  });

  it('records a service caller as the creator by its subject', async () => {
    const { server } = await startBackend();
    const res = await request(server)
      .post(CHECKS)
      .set('Authorization', mockCredentials.service.header())
      .send({ id: 'from-a-pipeline', spec: paymentsSpec });
    expect(res.status).toBe(201);
    expect(res.body.source.createdBy).toBe('external:test-service');
  });

  it('answers 400 listing every problem of the body, each with its path', async () => {
    const { server, audit } = await startBackend();

    const res = await request(server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send({
        id: 'Payments_HTTP',
        colour: 'red',
        spec: {
          type: 'smtp',
          interval: '10x',
          timeout: '0s',
          conditions: ['[STATUS] === 200'],
          systems: ['component:default/payments'],
        },
      });

    expect(res.status).toBe(400);
    expect(res.body.error.name).toBe('InputError');
    const problems = res.body.error.problems as HealthCheckSpecProblem[];
    expect(problems.map(p => formatProblemPath(p.path))).toEqual([
      'colour',
      'id',
      'spec.target',
      'spec.interval',
      'spec.type',
      'spec.timeout',
      'spec.conditions[0]',
      'spec.systems[0]',
    ]);
    expect(problems).toContainEqual({
      path: ['spec', 'type'],
      reason: 'unknown probe type "smtp"; the known types are http, tcp',
    });
    expect(problems).toContainEqual({
      path: ['spec', 'target'],
      reason:
        'is required: what to probe, such as https://{{ system.name }}.example.com/health',
    });
    // The message says the same, one problem per line, for clients that show only it.
    const lines = res.body.error.message.split('\n');
    expect(lines[0]).toBe('Invalid check, 8 problems:');
    expect(lines.slice(1)).toEqual(
      problems.map(p => `- ${formatProblemPath(p.path)}: ${p.reason}`),
    );
    expect(audit.summary()).toEqual([
      {
        eventId: 'check-create',
        severityLevel: 'medium',
        outcome: { fail: 'InputError' },
      },
    ]);
  });

  it("answers 400 when the probe type's config does not fit its schema, for the base and each environment", async () => {
    const { server } = await startBackend();
    const res = await request(server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send({
        id: 'payments-http',
        spec: {
          ...paymentsSpec,
          config: { method: 'POST' },
          environmentOverrides: { prod: { config: { retries: 3 } } },
        },
      });
    expect(res.status).toBe(400);
    expect(res.body.error.problems).toEqual([
      {
        path: ['spec', 'config', 'method'],
        reason: 'must be one of GET, HEAD',
      },
      {
        path: ['spec', 'environmentOverrides', 'prod', 'config'],
        reason: "unknown field 'retries'",
      },
      {
        path: ['spec', 'environmentOverrides', 'prod', 'config', 'method'],
        reason: 'must be one of GET, HEAD',
      },
    ]);
  });

  it('refuses a target whose host is a placeholder unless the operator allows it', async () => {
    const body = {
      id: 'any-host',
      spec: {
        ...paymentsSpec,
        target: 'https://{{ system.name }}/health',
      },
    };
    const closed = await startBackend();
    const refused = await request(closed.server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send(body);
    expect(refused.status).toBe(400);
    expect(refused.body.error.problems).toEqual([
      {
        path: ['spec', 'target'],
        reason: expect.stringContaining(
          'healthcheck.targets.allowPlaceholderHosts',
        ),
      },
    ]);

    const open = await startBackend({ allowPlaceholderHosts: true });
    const created = await request(open.server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send(body);
    expect(created.status).toBe(201);
  });

  it('answers 400 for a body that is not JSON, saying so', async () => {
    const { server } = await startBackend();
    const res = await request(server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .set('Content-Type', 'application/json')
      .send('{"id": "x",');
    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(
      /^The request body is not valid JSON: /,
    );
  });

  it('answers 400 when neither id nor title is given', async () => {
    const { server } = await startBackend();
    const res = await request(server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send({ spec: paymentsSpec });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'Invalid check: id: is required when there is no title to derive it from',
    );
  });

  it('answers 409 when the id is taken, and keeps the first check', async () => {
    const { server } = await startBackend();
    const create = (title: string) =>
      request(server)
        .post(CHECKS)
        .set('Authorization', aliceHeader)
        .send({ id: 'payments-http', title, spec: paymentsSpec });
    expect((await create('First')).status).toBe(201);

    const res = await create('Second');

    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe(
      "A check with id 'payments-http' already exists",
    );
    const read = await request(server)
      .get(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader);
    expect(read.body.title).toBe('First');
  });

  it('answers 413 with a readable message for a body over 64 KiB', async () => {
    const { server } = await startBackend();
    const res = await request(server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send({
        id: 'huge',
        spec: { ...paymentsSpec, target: 'x'.repeat(70_000) },
      });
    expect(res.status).toBe(413);
    expect(res.body.error.message).toMatch(
      /^The request body is \d+ bytes; the limit is 65536 bytes \(64 KiB\)$/,
    );
  });

  it('answers 401 to callers without credentials', async () => {
    const { server, audit } = await startBackend();
    const res = await request(server)
      .post(CHECKS)
      .set('Authorization', noCredentials)
      .send({ id: 'payments-http', spec: paymentsSpec });
    expect(res.status).toBe(401);
    expect(audit.events).toHaveLength(0);
  });

  it('answers 403 when the policy denies healthcheck.check.create, stores nothing and audits the refusal', async () => {
    const permissions = permissionsDenying('healthcheck.check.create');
    const changes: ChecksChange[] = [];
    const { server, audit } = await startBackend({
      permissions,
      onChecksChanged: change => changes.push(change),
    });

    const res = await request(server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send({ id: 'payments-http', spec: paymentsSpec });

    expect(res.status).toBe(403);
    expect(res.body.error.message).toBe(
      'You may not do this: it needs the permission healthcheck.check.create',
    );
    expect(permissions.authorize).toHaveBeenCalledWith(
      [
        {
          permission: expect.objectContaining({
            name: 'healthcheck.check.create',
          }),
        },
      ],
      {
        credentials: expect.objectContaining({
          principal: expect.objectContaining({ userEntityRef: alice }),
        }),
      },
    );
    expect(audit.summary()).toEqual([
      {
        eventId: 'check-create',
        severityLevel: 'medium',
        outcome: { fail: 'NotAllowedError' },
      },
    ]);
    expect(changes).toEqual([]);
    const read = await request(server)
      .get(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader);
    expect(read.status).toBe(404);
  });

  it('answers 400 at each system the caller cannot read, in words that do not tell a hidden system from a missing one, and stores nothing', async () => {
    const { server } = await startBackend();
    const res = await request(server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send({
        id: 'payments-http',
        spec: { ...paymentsSpec, systems: ['payments', 'secret'] },
      });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'Invalid check: spec.systems[1]: there is no system "secret" that you can read',
    );
    expect(res.body.error.problems).toEqual([
      {
        path: ['spec', 'systems', 1],
        reason: 'there is no system "secret" that you can read',
      },
    ]);
    const read = await request(server)
      .get(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader);
    expect(read.status).toBe(404);
  });

  it('answers 201 even when the listener of changes throws', async () => {
    const { server } = await startBackend({
      onChecksChanged: () => {
        throw new Error('reconciler is down');
      },
    });
    const res = await request(server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send({ id: 'payments-http', spec: paymentsSpec });
    expect(res.status).toBe(201);
  });
});

describe('GET /v1/checks and /v1/checks/:id', () => {
  async function backendWithOneApiCheck() {
    const backend = await startBackend();
    await request(backend.server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send({ id: 'payments-http', spec: paymentsSpec })
      .expect(201);
    return backend;
  }

  it('lists the checks of both sources, each marked with its source', async () => {
    const { server } = await backendWithOneApiCheck();
    const res = await request(server)
      .get(CHECKS)
      .set('Authorization', aliceHeader);
    expect(res.status).toBe(200);
    expect(
      res.body.items.map((c: { id: string; source: object }) => [
        c.id,
        c.source,
      ]),
    ).toEqual([
      [
        'healthcheck:default/payments-api',
        {
          kind: 'gitops',
          entityRef: 'healthcheck:default/payments-api',
          location: 'url:https://git.example/payments/tree/main/',
        },
      ],
      ['payments-http', { kind: 'api', createdBy: alice }],
    ]);
  });

  it('reads a GitOps check by its URL-encoded entity ref, with its source', async () => {
    const { server } = await startBackend();
    const expected = {
      id: 'healthcheck:default/payments-api',
      title: 'Payments API from Git',
      spec: gitOpsCheck.spec,
      source: {
        kind: 'gitops',
        entityRef: 'healthcheck:default/payments-api',
        location: 'url:https://git.example/payments/tree/main/',
      },
    };

    const encoded = await request(server)
      .get(
        `${CHECKS}/${encodeURIComponent('healthcheck:default/payments-api')}`,
      )
      .set('Authorization', aliceHeader);
    const colonLeftAsIs = await request(server)
      .get(`${CHECKS}/healthcheck:default%2Fpayments-api`)
      .set('Authorization', aliceHeader);

    expect(encoded.status).toBe(200);
    expect(encoded.body).toEqual(expected);
    expect(colonLeftAsIs.body).toEqual(expected);
  });

  it('answers 404 for ids that name no check', async () => {
    const { server } = await backendWithOneApiCheck();
    for (const id of [
      'payments-grpc',
      'healthcheck:default/nope',
      'component:default/payments',
      'Not A Check Id',
    ]) {
      const res = await request(server)
        .get(`${CHECKS}/${encodeURIComponent(id)}`)
        .set('Authorization', aliceHeader);
      expect({
        id,
        status: res.status,
        message: res.body.error?.message,
      }).toEqual({
        id,
        status: 404,
        message: `There is no check with id '${id}'`,
      });
    }
  });

  it('answers 401 to callers without credentials', async () => {
    const { server } = await backendWithOneApiCheck();
    const list = await request(server)
      .get(CHECKS)
      .set('Authorization', noCredentials);
    const one = await request(server)
      .get(`${CHECKS}/payments-http`)
      .set('Authorization', noCredentials);
    expect([list.status, one.status]).toEqual([401, 401]);
  });
});

describe('PUT /v1/checks/:id', () => {
  async function backendWithOneApiCheck(
    options: Parameters<typeof startBackend>[0] = {},
  ) {
    const backend = await startBackend(options);
    await request(backend.server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send({ id: 'payments-http', title: 'Payments', spec: paymentsSpec })
      .expect(201);
    return backend;
  }

  it('replaces title and spec, counts the revision up and reports the old and new systems', async () => {
    const changes: ChecksChange[] = [];
    const { server, audit } = await backendWithOneApiCheck({
      onChecksChanged: change => changes.push(change),
    });
    const newSpec = { ...paymentsSpec, interval: '1m', systems: ['billing'] };

    const res = await request(server)
      .put(`${CHECKS}/payments-http`)
      .set('Authorization', mockCredentials.user.header('user:default/bob'))
      .send({ spec: newSpec, revision: 1 });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: 'payments-http',
      spec: newSpec,
      revision: 2,
      source: { createdBy: alice, updatedBy: 'user:default/bob' },
    });
    expect(res.body.title).toBeUndefined();
    expect(changes[1]).toEqual({
      checkId: 'payments-http',
      systems: ['system:default/billing', 'system:default/payments'],
    });
    expect(audit.summary()[1]).toEqual({
      eventId: 'check-update',
      severityLevel: 'medium',
      outcome: { success: { meta: { checkId: 'payments-http', revision: 2 } } },
    });
    expect(audit.events[1].options.meta).toEqual({ checkId: 'payments-http' });
  });

  it('answers 400 to an update that assigns the check to a system the caller cannot read, and changes nothing', async () => {
    const { server } = await backendWithOneApiCheck();
    const res = await request(server)
      .put(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader)
      .send({ spec: { ...paymentsSpec, systems: ['secret'] } });
    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe(
      'Invalid check: spec.systems[0]: there is no system "secret" that you can read',
    );
    const read = await request(server)
      .get(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader);
    expect(read.body.spec.systems).toEqual(['payments']);
  });

  it('lets a policy decide per check: the owner may update it, others get 403', async () => {
    const { server } = await backendWithOneApiCheck({
      permissions: permissionsConditionalOnOwnership({
        [alice]: [alice],
        'user:default/bob': ['user:default/bob'],
      }),
    });
    const update = (user: string) =>
      request(server)
        .put(`${CHECKS}/payments-http`)
        .set('Authorization', mockCredentials.user.header(user))
        .send({ spec: { ...paymentsSpec, interval: '1m' } });

    const byBob = await update('user:default/bob');
    expect(byBob.status).toBe(403);
    expect(byBob.body.error.message).toBe(
      "You may not do this: it needs the permission healthcheck.check.update on check 'payments-http'",
    );
    expect((await update(alice)).status).toBe(200);
  });

  it('answers 409 to an update based on a revision that is no longer current', async () => {
    const { server } = await backendWithOneApiCheck();
    const update = (interval: string) =>
      request(server)
        .put(`${CHECKS}/payments-http`)
        .set('Authorization', aliceHeader)
        .send({ spec: { ...paymentsSpec, interval }, revision: 1 });
    expect((await update('1m')).status).toBe(200);

    const res = await update('2m');

    expect(res.status).toBe(409);
    expect(res.body.error.message).toMatch(
      /^Check 'payments-http' is at revision 2, not 1: user:default\/alice changed it at /,
    );
  });

  it('answers 400 listing the problems, the id in the body among them', async () => {
    const { server } = await backendWithOneApiCheck();
    const res = await request(server)
      .put(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader)
      .send({
        id: 'other',
        revision: 0,
        spec: { ...paymentsSpec, interval: '1s' },
      });
    expect(res.status).toBe(400);
    expect(res.body.error.problems).toEqual([
      {
        path: ['id'],
        reason:
          'is "other" but the path names "payments-http"; a check\'s id cannot change',
      },
      {
        path: ['revision'],
        reason:
          'must be the whole number 1 or more that the check had when you read it, not 0',
      },
      {
        path: ['spec', 'interval'],
        reason: '1s is below the minimum interval of 5s',
      },
    ]);
  });

  it('answers 404 for a check that does not exist', async () => {
    const { server } = await backendWithOneApiCheck();
    const res = await request(server)
      .put(`${CHECKS}/payments-grpc`)
      .set('Authorization', aliceHeader)
      .send({ spec: paymentsSpec });
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe(
      "There is no check with id 'payments-grpc'",
    );
  });

  it('answers 409 for a GitOps check, pointing at its file in Git', async () => {
    const { server, audit } = await startBackend();
    const res = await request(server)
      .put(
        `${CHECKS}/${encodeURIComponent('healthcheck:default/payments-api')}`,
      )
      .set('Authorization', aliceHeader)
      .send({ spec: paymentsSpec });
    expect(res.status).toBe(409);
    expect(res.body.error.message).toBe(
      "Check 'healthcheck:default/payments-api' is declared in Git, not through the API: change or delete the HealthCheck entity healthcheck:default/payments-api in url:https://git.example/payments/tree/main/, in Git",
    );
    expect(audit.summary()).toEqual([
      {
        eventId: 'check-update',
        severityLevel: 'medium',
        outcome: { fail: 'ConflictError' },
      },
    ]);
  });

  it('answers 403 when the policy denies healthcheck.check.update, and changes nothing', async () => {
    const { server } = await backendWithOneApiCheck({
      permissions: permissionsDenying('healthcheck.check.update'),
    });
    const res = await request(server)
      .put(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader)
      .send({ spec: { ...paymentsSpec, paused: true } });
    expect(res.status).toBe(403);
    const read = await request(server)
      .get(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader);
    expect(read.body.revision).toBe(1);
  });

  it('answers 401 to callers without credentials', async () => {
    const { server } = await backendWithOneApiCheck();
    const res = await request(server)
      .put(`${CHECKS}/payments-http`)
      .set('Authorization', noCredentials)
      .send({ spec: paymentsSpec });
    expect(res.status).toBe(401);
  });
});

describe('DELETE /v1/checks/:id', () => {
  async function backendWithOneApiCheck(
    options: Parameters<typeof startBackend>[0] = {},
  ) {
    const backend = await startBackend(options);
    await request(backend.server)
      .post(CHECKS)
      .set('Authorization', aliceHeader)
      .send({ id: 'payments-http', spec: paymentsSpec })
      .expect(201);
    return backend;
  }

  it('deletes the check, answers 204 and reports the systems it had', async () => {
    const changes: ChecksChange[] = [];
    const { server, audit } = await backendWithOneApiCheck({
      onChecksChanged: change => changes.push(change),
    });

    const res = await request(server)
      .delete(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader);

    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const read = await request(server)
      .get(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader);
    expect(read.status).toBe(404);
    expect(changes[1]).toEqual({
      checkId: 'payments-http',
      systems: ['system:default/payments'],
    });
    expect(audit.summary()[1]).toEqual({
      eventId: 'check-delete',
      severityLevel: 'medium',
      outcome: { success: { meta: { checkId: 'payments-http', revision: 1 } } },
    });
  });

  it('deletes only the revision named in the query, when one is', async () => {
    const { server } = await backendWithOneApiCheck();
    const stale = await request(server)
      .delete(`${CHECKS}/payments-http?revision=2`)
      .set('Authorization', aliceHeader);
    const bad = await request(server)
      .delete(`${CHECKS}/payments-http?revision=two`)
      .set('Authorization', aliceHeader);
    const current = await request(server)
      .delete(`${CHECKS}/payments-http?revision=1`)
      .set('Authorization', aliceHeader);

    expect(stale.status).toBe(409);
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toBe(
      'The query parameter revision must be the whole number 1 or more that the check had when you read it, not "two"',
    );
    expect(current.status).toBe(204);
  });

  it('answers 404 for a check that does not exist', async () => {
    const { server } = await backendWithOneApiCheck();
    const res = await request(server)
      .delete(`${CHECKS}/payments-grpc`)
      .set('Authorization', aliceHeader);
    expect(res.status).toBe(404);
  });

  it('answers 409 for a GitOps check, pointing at its file in Git', async () => {
    const { server } = await startBackend();
    const res = await request(server)
      .delete(
        `${CHECKS}/${encodeURIComponent('healthcheck:default/payments-api')}`,
      )
      .set('Authorization', aliceHeader);
    expect(res.status).toBe(409);
    expect(res.body.error.message).toContain(
      'change or delete the HealthCheck entity healthcheck:default/payments-api in url:https://git.example/payments/tree/main/, in Git',
    );
  });

  it('answers 404 for the ref of a HealthCheck entity the catalog does not have', async () => {
    const { server } = await startBackend();
    const res = await request(server)
      .delete(`${CHECKS}/${encodeURIComponent('healthcheck:default/gone')}`)
      .set('Authorization', aliceHeader);
    expect(res.status).toBe(404);
  });

  it('answers 403 when the policy denies healthcheck.check.delete, and keeps the check', async () => {
    const { server, audit } = await backendWithOneApiCheck({
      permissions: permissionsDenying('healthcheck.check.delete'),
    });
    const res = await request(server)
      .delete(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader);
    expect(res.status).toBe(403);
    expect(audit.summary()[1].outcome).toEqual({ fail: 'NotAllowedError' });
    const read = await request(server)
      .get(`${CHECKS}/payments-http`)
      .set('Authorization', aliceHeader);
    expect(read.status).toBe(200);
  });

  it('answers 401 to callers without credentials', async () => {
    const { server } = await backendWithOneApiCheck();
    const res = await request(server)
      .delete(`${CHECKS}/payments-http`)
      .set('Authorization', noCredentials);
    expect(res.status).toBe(401);
  });
});

describe('POST /v1/checks/:id/run', () => {
  const started: CheckRunStarted[] = [
    {
      runId:
        'healthcheck:payments-http:system%3Adefault%2Fpayments:production@1796000000000',
      sliceId:
        'healthcheck:payments-http:system%3Adefault%2Fpayments:production',
      systemRef: 'system:default/payments',
      environment: 'production',
    },
  ];
  const runCheck = async (checkId: string) =>
    checkId === 'healthcheck:default/payments-api' ? started : [];
  const RUN_PAYMENTS_API = `${CHECKS}/${encodeURIComponent(
    'healthcheck:default/payments-api',
  )}/run`;

  it('starts one run per environment and answers 202 with the run ids, audited', async () => {
    const { server, audit } = await startBackend({ runCheck });
    const res = await request(server)
      .post(RUN_PAYMENTS_API)
      .set('Authorization', mockCredentials.user.header());
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ items: started });
    expect(audit.summary()).toEqual([
      {
        eventId: 'check-run',
        severityLevel: 'low',
        outcome: {
          success: {
            meta: { checkId: 'healthcheck:default/payments-api', runs: 1 },
          },
        },
      },
    ]);
  });

  it('answers 404 for a check with nothing to run', async () => {
    const { server } = await startBackend({ runCheck: async () => [] });
    const res = await request(server)
      .post(RUN_PAYMENTS_API)
      .set('Authorization', mockCredentials.user.header());
    expect(res.status).toBe(404);
    expect(res.body.error.message).toContain(
      "Check 'healthcheck:default/payments-api' has no slices to run",
    );
  });

  it('answers 404 for a check that does not exist, and runs nothing', async () => {
    const runs: string[] = [];
    const { server } = await startBackend({
      runCheck: async id => {
        runs.push(id);
        return started;
      },
    });
    const res = await request(server)
      .post(`${CHECKS}/nope/run`)
      .set('Authorization', mockCredentials.user.header());
    expect(res.status).toBe(404);
    expect(res.body.error.message).toBe("There is no check with id 'nope'");
    expect(runs).toEqual([]);
  });

  it('answers 403 when the policy denies healthcheck.check.run, and runs nothing', async () => {
    const runs: string[] = [];
    const { server } = await startBackend({
      permissions: permissionsDenying('healthcheck.check.run'),
      runCheck: async id => {
        runs.push(id);
        return started;
      },
    });
    const res = await request(server)
      .post(RUN_PAYMENTS_API)
      .set('Authorization', mockCredentials.user.header());
    expect(res.status).toBe(403);
    expect(runs).toEqual([]);
  });

  it('answers 401 to callers without credentials', async () => {
    const { server } = await startBackend({ runCheck });
    const res = await request(server)
      .post(RUN_PAYMENTS_API)
      .set('Authorization', noCredentials);
    expect(res.status).toBe(401);
  });
});
