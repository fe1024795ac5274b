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
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import { RESOURCE_TYPE_CATALOG_ENTITY } from '@backstage/plugin-catalog-common/alpha';
import { healthcheckMaintenanceManagePermission } from '@vigil/plugin-healthcheck-common';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import request from 'supertest';
import { createApiRouter } from '../service/createApiRouter';
import { DatabaseMaintenanceStore } from './DatabaseMaintenanceStore';
import { MaintenanceCalendar } from './MaintenanceCalendar';
import { createMaintenanceRouter } from './maintenanceRouter';

jest.setTimeout(30_000);

const WINDOWS = '/api/healthcheck/v1/maintenance-windows';
const alice = 'user:default/alice';
const aliceHeader = mockCredentials.user.header(alice);
const NOW = Date.parse('2026-12-05T10:00:00Z');

const payments = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'System',
  metadata: { name: 'payments', namespace: 'default' },
  spec: { owner: 'group:default/payments-team' },
};
const checkout = {
  ...payments,
  metadata: { name: 'checkout', namespace: 'default' },
  spec: { owner: 'group:default/checkout-team' },
};
const nightly = {
  apiVersion: 'vigil.dev/v1alpha1',
  kind: 'MaintenanceWindow',
  metadata: { name: 'nightly-backup', namespace: 'default' },
  spec: {
    systems: ['payments'],
    environments: ['production'],
    timezone: 'Europe/Berlin',
    cron: '0 2 * * *',
    duration: '1h',
    reason: 'Database backup',
    owner: 'group:default/payments-team',
  },
};
/** Covers a system the caller cannot read (it is not in the catalog). */
const secret = {
  ...nightly,
  metadata: { name: 'secret-window', namespace: 'default' },
  spec: { ...nightly.spec, systems: ['system:default/secret'] },
};

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
  const outcomes = () =>
    events.map(e => [
      e.options.eventId,
      e.success.mock.calls.length > 0
        ? 'success'
        : e.fail.mock.calls[0]?.[0].error.name ?? 'open',
    ]);
  return { auditor, outcomes };
}

/** Denies each permission named, or named with a resource: `name system:default/x`. */
function permissionsDenying(...denied: string[]) {
  const decide = async (
    requests: Array<{ permission: { name: string }; resourceRef?: string }>,
  ) =>
    requests.map(({ permission, resourceRef }) => ({
      result:
        denied.includes(permission.name) ||
        denied.includes(`${permission.name} ${resourceRef}`)
          ? AuthorizeResult.DENY
          : AuthorizeResult.ALLOW,
    })) as any;
  return mockServices.permissions.mock({
    authorize: jest.fn(decide),
    authorizeConditional: jest.fn(decide),
  });
}

async function startBackend(options: { denied?: string[] } = {}) {
  const audit = recordingAuditor();
  const permissions = permissionsDenying(...(options.denied ?? []));
  const clock = { now: NOW };
  const plugin = createBackendPlugin({
    pluginId: 'healthcheck',
    register(env) {
      env.registerInit({
        deps: {
          logger: coreServices.logger,
          database: coreServices.database,
          httpRouter: coreServices.httpRouter,
          httpAuth: coreServices.httpAuth,
          auth: coreServices.auth,
          permissions: coreServices.permissions,
          auditor: coreServices.auditor,
          catalog: catalogServiceRef,
        },
        async init(deps) {
          const now = () => clock.now;
          const store = await DatabaseMaintenanceStore.create({
            database: deps.database,
            now,
          });
          const calendar = new MaintenanceCalendar({ ...deps, store, now });
          deps.httpRouter.use(
            createApiRouter([
              createMaintenanceRouter({ ...deps, store, calendar, now }),
            ]),
          );
        },
      });
    },
  });
  const { server } = await startTestBackend({
    features: [
      plugin,
      catalogServiceMock.factory({
        entities: [payments, checkout, nightly, secret],
      }),
      mockServices.database.factory(),
      audit.auditor.factory,
      permissions.factory,
    ],
  });
  return { server, audit, clock, permissions };
}

describe('maintenance windows API', () => {
  it('opens a window for "we are deploying now, 30 minutes", lists it, and ends it early', async () => {
    const { server, audit, clock } = await startBackend();

    const created = await request(server)
      .post(WINDOWS)
      .set('Authorization', aliceHeader)
      .send({
        system: 'payments',
        environments: ['production'],
        duration: '30m',
        reason: 'Deploying 4.2',
      });
    expect(created.status).toBe(201);
    const id = created.body.id;
    expect(created.headers.location).toBe(`${WINDOWS}/${id}`);
    expect(created.body).toEqual({
      id,
      source: 'api',
      systems: ['system:default/payments'],
      environments: ['production'],
      reason: 'Deploying 4.2',
      current: {
        windowId: id,
        start: '2026-12-05T10:00:00.000Z',
        end: '2026-12-05T10:30:00.000Z',
        reason: 'Deploying 4.2',
      },
      createdBy: alice,
    });

    const listed = await request(server)
      .get(`${WINDOWS}?system=payments`)
      .set('Authorization', aliceHeader);
    expect(listed.status).toBe(200);
    expect(
      listed.body.items.map((w: any) => [
        w.id,
        w.current?.start,
        w.next?.start,
      ]),
    ).toEqual([
      // 02:00 in Berlin is 01:00Z in December.
      [
        'maintenancewindow:default/nightly-backup',
        undefined,
        '2026-12-06T01:00:00.000Z',
      ],
      [id, '2026-12-05T10:00:00.000Z', undefined],
    ]);

    clock.now += 10 * 60_000;
    const ended = await request(server)
      .post(`${WINDOWS}/${id}/end`)
      .set('Authorization', aliceHeader);
    expect(ended.status).toBe(200);
    expect(ended.body).toMatchObject({ id, endedBy: alice });
    expect(ended.body.current).toBeUndefined();

    const again = await request(server)
      .post(`${WINDOWS}/${id}/end`)
      .set('Authorization', aliceHeader);
    expect(again.status).toBe(409);
    expect(again.body.error.message).toBe(
      `Maintenance window '${id}' is already over (it ended at 2026-12-05T10:10:00.000Z)`,
    );
    expect(audit.outcomes()).toEqual([
      ['maintenance-window-create', 'success'],
      ['maintenance-window-end', 'success'],
      ['maintenance-window-end', 'ConflictError'],
    ]);
  });

  it('says what is wrong with a request, field by field', async () => {
    const { server } = await startBackend();
    const res = await request(server)
      .post(WINDOWS)
      .set('Authorization', aliceHeader)
      .send({
        system: 'component:web',
        duration: '25h',
        environments: ['eu west'],
      });
    expect(res.status).toBe(400);
    expect(res.body.error.message.split('\n')).toEqual([
      'Invalid maintenance window, 3 problems:',
      '- system: "component:web" refers to a component; a window covers a system',
      expect.stringMatching(
        /^- environments\[0\]: "eu west" is not an environment name/,
      ),
      '- duration: 25h is longer than 24h; declare longer planned downtime as a MaintenanceWindow entity in Git',
    ]);
  });

  it('decides healthcheck.maintenance.manage per system, and refuses naming the system', async () => {
    const { server, audit, permissions } = await startBackend({
      denied: ['healthcheck.maintenance.manage system:default/payments'],
    });
    const refused = await request(server)
      .post(WINDOWS)
      .set('Authorization', aliceHeader)
      .send({ system: 'payments', duration: '30m' });
    expect(refused.status).toBe(403);
    expect(refused.body.error.message).toBe(
      'You may not manage the maintenance of system:default/payments: it needs the permission healthcheck.maintenance.manage on that system',
    );

    const allowed = await request(server)
      .post(WINDOWS)
      .set('Authorization', aliceHeader)
      .send({ system: 'checkout', duration: '30m' });
    expect(allowed.status).toBe(201);
    const ended = await request(server)
      .post(`${WINDOWS}/${allowed.body.id}/end`)
      .set('Authorization', aliceHeader);
    expect(ended.status).toBe(200);

    // Each decision is asked of the system's catalog entity, by its ref.
    expect(
      permissions.authorize.mock.calls.map(([requests]) =>
        requests.map((r: any) => [r.permission.name, r.resourceRef]),
      ),
    ).toEqual([
      [['healthcheck.maintenance.manage', 'system:default/payments']],
      [['healthcheck.maintenance.manage', 'system:default/checkout']],
      [['healthcheck.maintenance.manage', 'system:default/checkout']],
    ]);
    expect(healthcheckMaintenanceManagePermission.resourceType).toBe(
      RESOURCE_TYPE_CATALOG_ENTITY,
    );
    expect(audit.outcomes()).toEqual([
      ['maintenance-window-create', 'NotAllowedError'],
      ['maintenance-window-create', 'success'],
      ['maintenance-window-end', 'success'],
    ]);
  });

  it('needs healthcheck.maintenance.manage, and a system the caller can read', async () => {
    const denied = await startBackend({
      denied: ['healthcheck.maintenance.manage'],
    });
    const refused = await request(denied.server)
      .post(WINDOWS)
      .set('Authorization', aliceHeader)
      .send({ system: 'payments', duration: '30m' });
    expect(refused.status).toBe(403);
    expect(denied.audit.outcomes()).toEqual([
      ['maintenance-window-create', 'NotAllowedError'],
    ]);

    const { server } = await startBackend();
    const unknown = await request(server)
      .post(WINDOWS)
      .set('Authorization', aliceHeader)
      .send({ system: 'secret', duration: '30m' });
    expect(unknown.status).toBe(404);
  });

  it('leaves out windows of systems the caller cannot read, and refuses to end a window from Git', async () => {
    const { server } = await startBackend();
    const listed = await request(server)
      .get(WINDOWS)
      .set('Authorization', aliceHeader);
    expect(listed.body.items.map((w: any) => w.id)).toEqual([
      'maintenancewindow:default/nightly-backup',
    ]);
    const hidden = await request(server)
      .get(
        `${WINDOWS}/${encodeURIComponent(
          'maintenancewindow:default/secret-window',
        )}`,
      )
      .set('Authorization', aliceHeader);
    expect(hidden.status).toBe(404);

    const fromGit = await request(server)
      .post(
        `${WINDOWS}/${encodeURIComponent(
          'maintenancewindow:default/nightly-backup',
        )}/end`,
      )
      .set('Authorization', aliceHeader);
    expect(fromGit.status).toBe(409);
    expect(fromGit.body.error.message).toBe(
      "Maintenance window 'maintenancewindow:default/nightly-backup' is declared in the catalog: change or delete its MaintenanceWindow entity, in Git",
    );
  });
});
