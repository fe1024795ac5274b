import { discoveryApiRef, fetchApiRef } from '@backstage/core-plugin-api';
import {
  PermissionApi,
  permissionApiRef,
} from '@backstage/plugin-permission-react';
import { catalogApiRef, entityRouteRef } from '@backstage/plugin-catalog-react';
import { catalogApiMock } from '@backstage/plugin-catalog-react/testUtils';
import { signalApiRef } from '@backstage/plugin-signals-react';
import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/test-utils';
import { screen } from '@testing-library/react';
import {
  HealthStatus,
  ListSystemsQuery,
  SystemHealthSummary,
  SystemListResponse,
} from '@vigil/plugin-healthcheck-common';
import {
  CheckSummary,
  HealthcheckApi,
  healthcheckApiRef,
} from '../../../api/HealthcheckApi';
import { createTestSignalApi } from './testSignalApi';
import { HealthOverviewPage } from '../HealthOverviewPage';

export function system(
  name: string,
  status: HealthStatus,
  extra: Partial<SystemHealthSummary> = {},
): SystemHealthSummary {
  return {
    systemRef: `system:default/${name}`,
    liveKey: `live-key-of-${name}`,
    name,
    namespace: 'default',
    status,
    environments: [],
    reasons: [],
    healthy: 0,
    total: 0,
    upstream: [],
    updatedAt: '2025-01-01T00:00:00.000Z',
    since: '2025-01-01T00:00:00.000Z',
    ...extra,
  };
}

export const payments = system('payments', 'unhealthy', {
  title: 'Payments',
  owner: 'group:default/payments-team',
  healthy: 2,
  total: 4,
  environments: [
    {
      name: 'staging',
      status: 'healthy',
      healthy: 2,
      total: 2,
      since: '2025-01-01T00:00:00.000Z',
    },
    {
      name: 'production',
      status: 'unhealthy',
      healthy: 0,
      total: 2,
      since: '2025-01-01T00:00:00.000Z',
    },
  ],
  reasons: [
    {
      checkId: 'payments-latency',
      environment: 'production',
      status: 'degraded',
      display: '[RESPONSE_TIME] (912) < 500',
    },
    {
      checkId: 'payments-http',
      environment: 'production',
      status: 'unhealthy',
      display: '[STATUS] (500) == 200',
    },
  ],
});
export const search = system('search', 'degraded', {
  owner: 'group:default/search-team',
  healthy: 1,
  total: 2,
  environments: [
    {
      name: 'production',
      status: 'degraded',
      healthy: 1,
      total: 2,
      since: '2025-01-01T00:00:00.000Z',
    },
  ],
});
export const billing = system('billing', 'healthy', {
  namespace: 'finance',
  systemRef: 'system:finance/billing',
  healthy: 3,
  total: 3,
});

export const counts = (
  partial: Partial<Record<HealthStatus, number>> = {},
) => ({
  healthy: 0,
  degraded: 0,
  unhealthy: 0,
  unknown: 0,
  paused: 0,
  ...partial,
});

export const firstPage: SystemListResponse = {
  items: [payments, search, billing],
  totalCount: 3,
  counts: counts({ unhealthy: 1, degraded: 1, healthy: 1, paused: 2 }),
};

export type ListSystems = (
  query?: ListSystemsQuery,
) => Promise<SystemListResponse>;

export async function renderPage(options: {
  listSystems: jest.Mock<ReturnType<ListSystems>, Parameters<ListSystems>>;
  listChecks?: () => Promise<CheckSummary[]>;
  api?: Partial<HealthcheckApi>;
  signals?: ReturnType<typeof createTestSignalApi>;
  allow?: boolean;
  route?: string;
  /** What to render instead of the whole page. */
  element?: JSX.Element;
}) {
  const facetValues: Record<string, Array<{ value: string; count: number }>> = {
    // As stored: one short ref.
    'spec.owner': [
      { value: 'group:default/payments-team', count: 1 },
      { value: 'search-team', count: 1 },
    ],
    'metadata.annotations.vigil.dev/environments': [
      { value: 'production,staging', count: 2 },
    ],
  };
  const catalogApi = catalogApiMock.mock({
    getEntityFacets: jest.fn(async ({ facets }) => ({
      facets: Object.fromEntries(
        facets.map(facet => [facet, facetValues[facet] ?? []]),
      ),
    })),
    getEntities: jest.fn(async () => ({ items: [] })),
  });
  const apis: any[] = [
    [
      healthcheckApiRef,
      {
        listSystems: options.listSystems,
        listChecks: options.listChecks ?? (async () => []),
        ...options.api,
      },
    ],
    [catalogApiRef, catalogApi],
    [
      permissionApiRef,
      {
        authorize: async () => ({
          result: options.allow === false ? 'DENY' : 'ALLOW',
        }),
      } as unknown as PermissionApi,
    ],
    [discoveryApiRef, mockApis.discovery()],
    [
      fetchApiRef,
      {
        fetch: async () =>
          ({
            ok: true,
            json: async () => ({ items: ['http', 'tcp'] }),
          } as Response),
      },
    ],
  ];
  if (options.signals) {
    apis.push([signalApiRef, options.signals.api]);
  }
  return renderInTestApp(
    <TestApiProvider apis={apis}>
      {options.element ?? <HealthOverviewPage />}
    </TestApiProvider>,
    {
      mountedRoutes: { '/catalog/:namespace/:kind/:name': entityRouteRef },
      routeEntries: options.route ? [options.route] : undefined,
    },
  );
}

export function lastQuery(mock: jest.Mock): ListSystemsQuery {
  return mock.mock.calls[mock.mock.calls.length - 1][0];
}

export function systemLinks(): HTMLElement[] {
  return screen
    .getAllByRole('link')
    .filter(link =>
      /\/system\/[^/]+\/health$/.test(link.getAttribute('href') ?? ''),
    );
}
