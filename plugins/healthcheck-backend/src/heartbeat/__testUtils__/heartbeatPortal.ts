import type { BackendFeature } from '@backstage/backend-plugin-api';
import {
  mockCredentials,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import type { PermissionPolicy } from '@backstage/plugin-permission-node';
import type { JsonObject } from '@backstage/types';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { stringify } from 'yaml';
import {
  PortalBackend,
  startPortalBackend,
} from '../../__testUtils__/startPortalBackend';
import { waitFor } from '../../__testUtils__/waitFor';

/** What {@link startHeartbeatPortal} starts, and how tests talk to it. */
export interface HeartbeatPortal {
  portal: PortalBackend;
  checkId: string;
  sliceId: string;
  /** The slice as the API shows it to `user` (default: a test user). */
  slice(user?: string): Promise<any>;
  /** Asks for ping URLs of the check as `user`. */
  issueTokens(user?: string): request.Test;
  /** Pinged without any Backstage credentials: the token is enough. */
  ping(path: string): request.Test;
  stop(): Promise<void>;
}

/**
 * A portal for tests of heartbeats: team A, its analytics system in
 * production, and a heartbeat check of it with `check.spec` (owned by team
 * A), checked often. Resolves once the slice has run (failing: it has no
 * ping URL yet).
 * @internal
 */
export async function startHeartbeatPortal(options: {
  databases: TestDatabases;
  databaseId: TestDatabaseId;
  check: { name: string; spec: Record<string, unknown> };
  policy?: PermissionPolicy;
  memberships?: Record<string, string[]>;
  /** Merged over the `healthcheck` config. */
  healthcheck?: JsonObject;
  features?: BackendFeature[];
}): Promise<HeartbeatPortal> {
  const checkId = `healthcheck:default/${options.check.name}`;
  const sliceId = encodeSliceId({
    checkId,
    systemRef: 'system:default/analytics',
    environment: 'production',
  });
  const dir = mkdtempSync(join(tmpdir(), 'vigil-heartbeats-'));
  const catalogFile = join(dir, 'catalog.yaml');
  writeFileSync(
    catalogFile,
    analyticsCatalog(options.check)
      .map(e => stringify(e))
      .join('---\n'),
  );
  const portal = await startPortalBackend({
    catalogFile,
    databases: options.databases,
    databaseId: options.databaseId,
    policy: options.policy,
    memberships: options.memberships,
    features: options.features,
    config: {
      healthcheck: {
        minimumInterval: '1s',
        reconcile: { catalogPollInterval: '1s', catalogPollBudget: 1 },
        rollup: { window: '200ms' },
        scheduler: { refreshInterval: '500ms' },
        ...options.healthcheck,
      },
    },
  });
  const as = (user?: string) => mockCredentials.user.header(user);
  const api = () => request(portal.server);
  const heartbeatPortal: HeartbeatPortal = {
    portal,
    checkId,
    sliceId,
    slice: async user =>
      (
        await api()
          .get(`/api/healthcheck/v1/slices/${encodeURIComponent(sliceId)}`)
          .set('Authorization', as(user))
      ).body,
    issueTokens: user =>
      api()
        .post(
          `/api/healthcheck/v1/checks/${encodeURIComponent(
            checkId,
          )}/heartbeat/tokens`,
        )
        .set('Authorization', as(user)),
    ping: path => api().post(`/api/healthcheck/v1/ping/${path}`),
    stop: async () => {
      await portal.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  // Until it has a ping URL the slice fails, saying how to make one.
  await waitFor(
    'the heartbeat slice to run',
    () => heartbeatPortal.slice(),
    s => s.status === 'unhealthy',
  );
  return heartbeatPortal;
}

function analyticsCatalog(check: {
  name: string;
  spec: Record<string, unknown>;
}) {
  return [
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
      metadata: { name: check.name },
      spec: {
        type: 'heartbeat',
        ...check.spec,
        systems: ['analytics'],
        owner: 'group:default/team-a',
      },
    },
  ];
}
