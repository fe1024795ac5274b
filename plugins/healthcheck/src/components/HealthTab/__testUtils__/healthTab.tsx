/* Fixtures and the render helper of the Health tab's tests. */
import { Entity } from '@backstage/catalog-model';
import { alertApiRef } from '@backstage/core-plugin-api';
import {
  EntityProvider,
  entityRouteRef,
} from '@backstage/plugin-catalog-react';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { signalApiRef } from '@backstage/plugin-signals-react';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/test-utils';
import { screen } from '@testing-library/react';
import {
  CheckDetails,
  ObjectiveStatus,
  RunEntry,
  SliceUptimeResponse,
  SystemHealthDetails,
  SystemHistoryResponse,
} from '@vigil/plugin-healthcheck-common';
import { healthcheckApiRef } from '../../../api/HealthcheckApi';
import { EntityHealthContent } from '../EntityHealthContent';

export const NOW = Date.now();
export const ago = (ms: number) => new Date(NOW - ms).toISOString();

export const API_CHECK = 'payments-db';
export const GIT_CHECK = 'healthcheck:default/payments-api';
export const SLICE_PROD = `healthcheck:${encodeURIComponent(
  GIT_CHECK,
)}:system%3Adefault%2Fpayments:production`;

export const systemEntity: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'System',
  metadata: { name: 'payments', namespace: 'default' },
  spec: { owner: 'group:default/payments-team' },
};

export const componentEntity: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: { name: 'payments-web', namespace: 'default' },
  spec: { type: 'website', owner: 'team', system: 'payments' },
};

export function makeSystem(
  overrides: Partial<SystemHealthDetails> = {},
): SystemHealthDetails {
  return {
    systemRef: 'system:default/payments',
    liveKey: 'live-key-of-payments',
    name: 'payments',
    namespace: 'default',
    status: 'unhealthy',
    healthy: 3,
    total: 4,
    since: ago(5 * 60_000),
    updatedAt: ago(5 * 60_000),
    environments: [
      {
        name: 'production',
        status: 'unhealthy',
        healthy: 1,
        total: 2,
        since: ago(5 * 60_000),
      },
      {
        name: 'staging',
        status: 'healthy',
        healthy: 2,
        total: 2,
        since: ago(3_600_000),
      },
    ],
    reasons: [
      {
        checkId: GIT_CHECK,
        environment: 'production',
        status: 'unhealthy',
        display: '[STATUS] (500) == 200',
      },
    ],
    upstream: [{ systemRef: 'system:default/identity', status: 'unhealthy' }],
    environmentNames: ['production', 'staging'],
    checks: [
      {
        checkId: GIT_CHECK,
        cells: {
          production: {
            sliceId: SLICE_PROD,
            checkId: GIT_CHECK,
            environment: 'production',
            status: 'unhealthy',
            paused: false,
            lastRunAt: ago(30_000),
            lastDurationMs: 123,
            lastReason: '[STATUS] (500) == 200',
            since: ago(5 * 60_000),
          },
          staging: {
            sliceId: 'slice-git-staging',
            checkId: GIT_CHECK,
            environment: 'staging',
            status: 'healthy',
            paused: false,
            lastRunAt: ago(2 * 60_000),
            lastDurationMs: 45,
            since: ago(3_600_000),
          },
        },
      },
      {
        checkId: API_CHECK,
        cells: {
          production: {
            sliceId: 'slice-db-production',
            checkId: API_CHECK,
            environment: 'production',
            status: 'healthy',
            paused: false,
            lastRunAt: ago(10_000),
            lastDurationMs: 8,
          },
          staging: {
            sliceId: 'slice-db-staging',
            checkId: API_CHECK,
            environment: 'staging',
            status: 'paused',
            paused: true,
          },
        },
      },
    ],
    ...overrides,
  };
}

export const checks: Record<string, CheckDetails> = {
  [GIT_CHECK]: {
    id: GIT_CHECK,
    title: 'Payments API',
    spec: {} as CheckDetails['spec'],
    source: {
      kind: 'gitops',
      entityRef: GIT_CHECK,
      location: 'url:https://git.example/payments/checks.yaml',
    },
  },
  [API_CHECK]: {
    id: API_CHECK,
    title: 'Payments DB',
    spec: {} as CheckDetails['spec'],
    revision: 3,
    source: {
      kind: 'api',
      createdBy: 'user:default/bob',
      createdAt: ago(86_400_000),
      updatedBy: 'user:default/alice',
      updatedAt: ago(3_600_000),
    },
  },
};

export function history(
  overrides: Partial<SystemHistoryResponse> = {},
): SystemHistoryResponse {
  return {
    granularity: 'hours',
    from: ago(86_400_000),
    to: ago(0),
    uptime: {
      uptime: 0.99951,
      upSeconds: 86_000,
      downSeconds: 42,
      unknownSeconds: 0,
      pausedSeconds: 0,
    },
    responseTime: { runCount: 2880, p50Ms: 80, p95Ms: 150, p99Ms: 300 },
    items: [],
    ...overrides,
  };
}

export const failingRun: RunEntry = {
  sliceId: SLICE_PROD,
  checkId: GIT_CHECK,
  environment: 'production',
  scheduledAt: NOW - 30_000,
  startedAt: NOW - 30_000,
  durationMs: 123,
  outcome: 'fail',
  status: 'unhealthy',
  conditions: [
    {
      condition: '[STATUS] == 200',
      success: false,
      display: '[STATUS] (500) == 200',
    },
    {
      condition: '[BODY].status == UP',
      success: false,
      display: '[BODY].status (DOWN) == UP',
    },
    {
      condition: '[RESPONSE_TIME] < 500',
      success: true,
      display: '[RESPONSE_TIME] (123) < 500',
    },
  ],
};

export const passingRun: RunEntry = {
  sliceId: SLICE_PROD,
  checkId: GIT_CHECK,
  environment: 'production',
  scheduledAt: NOW - 600_000,
  startedAt: NOW - 600_000,
  durationMs: 60,
  outcome: 'pass',
  status: 'healthy',
  conditions: [],
};

/**
 * Up-time per cell: the failing production cell below 100%, the API check
 * without data over 30 days in production and without any in staging.
 */
export function sliceUptimes(): SliceUptimeResponse {
  return {
    to: ago(0),
    windows: ['24h', '7d', '30d'],
    slices: {
      [SLICE_PROD]: { '24h': 0.9875, '7d': 0.99812, '30d': 0.9993 },
      'slice-git-staging': { '24h': 1, '7d': 1, '30d': 1 },
      'slice-db-production': { '24h': 1, '7d': 0.999, '30d': null },
    },
  };
}

export type MockedApi = Record<
  | 'getSystem'
  | 'getSystemHistory'
  | 'getSliceUptimes'
  | 'listSliceRuns'
  | 'getCheck'
  | 'listSystemChecks'
  | 'listSystemObjectives'
  | 'runCheck',
  jest.Mock
>;

export function makeApi(overrides: Partial<MockedApi> = {}): MockedApi {
  return {
    getSystem: jest.fn(async () => makeSystem()),
    getSystemHistory: jest.fn(async () => history()),
    getSliceUptimes: jest.fn(async () => sliceUptimes()),
    listSliceRuns: jest.fn(async () => ({ runs: [failingRun, passingRun] })),
    getCheck: jest.fn(async (id: string) => checks[id]),
    listSystemChecks: jest.fn(async () => Object.values(checks)),
    listSystemObjectives: jest.fn(async () => [] as ObjectiveStatus[]),
    runCheck: jest.fn(async (id: string) =>
      [
        {
          runId: 'r1',
          sliceId: 's1',
          systemRef: 'system:default/payments',
          environment: 'production',
        },
        {
          runId: 'r2',
          sliceId: 's2',
          systemRef: 'system:default/payments',
          environment: 'staging',
        },
      ].map(run => ({ ...run, sliceId: `${id}-${run.sliceId}` })),
    ),
    ...overrides,
  };
}

export interface Options {
  entity?: Entity;
  api?: ReturnType<typeof makeApi>;
  /** Whether the user may run checks: all, none, or by check id. */
  allowRun?: boolean | ((checkId: string) => boolean);
  alertApi?: { post: jest.Mock };
  signalApi?: unknown;
}

export async function renderTab(options: Options = {}) {
  const api = options.api ?? makeApi();
  const alertApi = options.alertApi ?? { post: jest.fn() };
  const apis: any[] = [
    [healthcheckApiRef, api],
    [alertApiRef, alertApi],
    [
      permissionApiRef,
      mockApis.permission({
        authorize: request => {
          const allowRun = options.allowRun ?? true;
          const allowed =
            typeof allowRun === 'function'
              ? allowRun(request.resourceRef ?? '')
              : allowRun;
          return (allowed ? 'ALLOW' : 'DENY') as any;
        },
      }),
    ],
  ];
  if (options.signalApi) {
    apis.push([signalApiRef, options.signalApi]);
  }
  await renderInTestApp(
    <TestApiProvider apis={apis as any}>
      <EntityProvider entity={options.entity ?? systemEntity}>
        <EntityHealthContent refreshAfterRunMs={10} />
      </EntityProvider>
    </TestApiProvider>,
    { mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef } },
  );
  return { api, alertApi };
}

export function cell(checkId: string, environment: string) {
  return screen.getByTestId(`cell-${checkId}-${environment}`);
}
