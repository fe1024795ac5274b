import { Entity } from '@backstage/catalog-model';
import {
  alertApiRef,
  discoveryApiRef,
  fetchApiRef,
} from '@backstage/core-plugin-api';
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
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  CheckDetails,
  RunEntry,
  SystemHealthDetails,
  SystemHistoryResponse,
} from '@vigil/plugin-healthcheck-common';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import { EntityHealthContent } from './EntityHealthContent';

const NOW = Date.now();
const ago = (ms: number) => new Date(NOW - ms).toISOString();

const API_CHECK = 'payments-db';
const GIT_CHECK = 'healthcheck:default/payments-api';
const SLICE_PROD = `healthcheck:${encodeURIComponent(
  GIT_CHECK,
)}:system%3Adefault%2Fpayments:production`;

const systemEntity: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'System',
  metadata: { name: 'payments', namespace: 'default' },
  spec: { owner: 'group:default/payments-team' },
};

const componentEntity: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: { name: 'payments-web', namespace: 'default' },
  spec: { type: 'website', owner: 'team', system: 'payments' },
};

function makeSystem(
  overrides: Partial<SystemHealthDetails> = {},
): SystemHealthDetails {
  return {
    systemRef: 'system:default/payments',
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

const checks: Record<string, CheckDetails> = {
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

function history(
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

const failingRun: RunEntry = {
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

const passingRun: RunEntry = {
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

type MockedApi = Record<
  'getSystem' | 'getSystemHistory' | 'getCheck' | 'runCheck',
  jest.Mock
>;

function makeApi(overrides: Partial<MockedApi> = {}): MockedApi {
  return {
    getSystem: jest.fn(async () => makeSystem()),
    getSystemHistory: jest.fn(async () => history()),
    getCheck: jest.fn(async (id: string) => checks[id]),
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

function makeFetch(runs: RunEntry[] = [failingRun, passingRun]) {
  return {
    fetch: jest.fn(async (_input: unknown) => ({
      ok: true,
      status: 200,
      json: async () => ({ runs }),
    })),
  };
}

interface Options {
  entity?: Entity;
  api?: ReturnType<typeof makeApi>;
  allowRun?: boolean;
  fetchApi?: ReturnType<typeof makeFetch>;
  alertApi?: { post: jest.Mock };
  signalApi?: unknown;
}

async function renderTab(options: Options = {}) {
  const api = options.api ?? makeApi();
  const fetchApi = options.fetchApi ?? makeFetch();
  const alertApi = options.alertApi ?? { post: jest.fn() };
  const apis: any[] = [
    [healthcheckApiRef, api],
    [fetchApiRef, fetchApi],
    [
      discoveryApiRef,
      { getBaseUrl: async () => 'http://backend/api/healthcheck' },
    ],
    [alertApiRef, alertApi],
    [
      permissionApiRef,
      mockApis.permission({
        authorize: (options.allowRun ?? true ? 'ALLOW' : 'DENY') as any,
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
  return { api, fetchApi, alertApi };
}

function cell(checkId: string, environment: string) {
  return screen.getByTestId(`cell-${checkId}-${environment}`);
}

describe('EntityHealthContent', () => {
  it('shows each cell of the matrix with its status, last run and latency', async () => {
    const { api } = await renderTab();
    const prod = await screen.findByTestId(`cell-${GIT_CHECK}-production`);
    expect(within(prod).getByText('Unhealthy')).toBeInTheDocument();
    expect(within(prod).getByText('30 seconds ago')).toBeInTheDocument();
    expect(within(prod).getByText(/123 ms/)).toBeInTheDocument();
    expect(prod.querySelector('svg')).toBeInTheDocument();

    const staging = cell(GIT_CHECK, 'staging');
    expect(within(staging).getByText('Healthy')).toBeInTheDocument();
    expect(within(staging).getByText('2 minutes ago')).toBeInTheDocument();
    expect(within(staging).getByText(/45 ms/)).toBeInTheDocument();
    expect(
      within(cell(API_CHECK, 'staging')).getByText('Paused'),
    ).toBeInTheDocument();
    expect(
      within(cell(API_CHECK, 'staging')).getByText(/no run yet/),
    ).toBeInTheDocument();

    expect(screen.getByText('2 checks × 2 environments')).toBeInTheDocument();
    expect(api.getSystem).toHaveBeenCalledWith('system:default/payments');
    // Titles come from getCheck, loaded once per check after the first paint.
    expect(await screen.findAllByText('Payments API')).not.toHaveLength(0);
    expect(api.getCheck).toHaveBeenCalledTimes(2);
  });

  it('shows the rollup: status, k of n, the reasons and unhealthy upstream systems', async () => {
    await renderTab();
    await screen.findByText('Why');
    expect(screen.getByText('3 of 4')).toBeInTheDocument();
    expect(screen.getByText(/Since/)).toHaveTextContent('Since 5 minutes ago');
    // the big badge: an icon and the word
    const badges = document.querySelectorAll('[data-status="unhealthy"]');
    expect(badges.length).toBeGreaterThan(0);
    expect(screen.getAllByText('[STATUS] (500) == 200')[0]).toBeInTheDocument();
    const reasons = screen.getByText('Why').closest('section')!;
    expect(within(reasons).getByText('in production:')).toBeInTheDocument();
    const upstream = screen
      .getByText('Upstream systems that are not healthy')
      .closest('section')!;
    expect(
      within(upstream).getByRole('link', { name: /identity/ }),
    ).toHaveAttribute('href', '/catalog/default/system/identity');
    expect(within(upstream).getByText('Unhealthy')).toBeInTheDocument();
  });

  it('shows up-time and p95 response time of each environment over 24 h, 7 d and 30 d', async () => {
    const { api } = await renderTab();
    expect(await screen.findAllByText('99.95%')).toHaveLength(6);
    expect(screen.getAllByText(/p95 150 ms/)).toHaveLength(6);
    // 3 windows x 2 environments, whatever the number of checks
    expect(api.getSystemHistory).toHaveBeenCalledTimes(6);
    expect(api.getSystemHistory).toHaveBeenCalledWith(
      'system:default/payments',
      expect.objectContaining({ environment: 'staging', granularity: 'hours' }),
    );
  });

  it('runs a check now for a user with the permission, reports the runs and refreshes', async () => {
    const { api, alertApi } = await renderTab({ allowRun: true });
    const button = await screen.findByRole('button', {
      name: /Run Payments API now/,
    });
    expect(button).toBeEnabled();
    await userEvent.click(button);
    expect(api.runCheck).toHaveBeenCalledWith(GIT_CHECK);
    await waitFor(() =>
      expect(alertApi.post).toHaveBeenCalledWith(
        expect.objectContaining({
          message: 'Run now: started 2 runs of Payments API in 2 environments',
          severity: 'success',
        }),
      ),
    );
    await waitFor(() => expect(api.getSystem).toHaveBeenCalledTimes(2));
  });

  it('disables "Run now" with the reason for a user without the permission', async () => {
    const { api } = await renderTab({ allowRun: false });
    await screen.findByTestId(`cell-${GIT_CHECK}-production`);
    await waitFor(() =>
      expect(screen.getAllByRole('button', { name: 'Run now' })).toHaveLength(
        2,
      ),
    );
    for (const button of screen.getAllByRole('button', { name: 'Run now' })) {
      expect(button).toBeDisabled();
      expect(button).toHaveAccessibleDescription(
        'You need the healthcheck.check.run permission',
      );
    }
    expect(api.runCheck).not.toHaveBeenCalled();
  });

  it('opens the history of a cell with its charts and the failing conditions of the latest failing run', async () => {
    const { api, fetchApi } = await renderTab();
    expect(fetchApi.fetch).not.toHaveBeenCalled();
    await userEvent.click(
      await screen.findByTestId(`cell-${GIT_CHECK}-production`),
    );
    const dialog = await screen.findByRole('dialog');
    expect(
      within(dialog).getByRole('heading', { name: /in production/ }),
    ).toBeInTheDocument();
    expect(
      await within(dialog).findByTestId('status-timeline'),
    ).toBeInTheDocument();
    expect(within(dialog).getByTestId('latency-chart')).toBeInTheDocument();
    expect(
      dialog.querySelector(
        '[data-testid="latency-chart"] .recharts-responsive-container',
      ),
    ).toBeInTheDocument();
    const failing = within(dialog).getByRole('region', {
      name: 'Latest failing run',
    });
    expect(
      within(failing).getByText('[STATUS] (500) == 200'),
    ).toBeInTheDocument();
    expect(
      within(failing).getByText('[BODY].status (DOWN) == UP'),
    ).toBeInTheDocument();
    expect(
      within(failing).queryByText('[RESPONSE_TIME] (123) < 500'),
    ).toBeNull();

    expect(fetchApi.fetch).toHaveBeenCalledTimes(1);
    const url = String(fetchApi.fetch.mock.calls[0][0]);
    expect(url).toContain(
      `http://backend/api/healthcheck/v1/slices/${encodeURIComponent(
        SLICE_PROD,
      )}/runs?`,
    );
    expect(url).toContain('limit=1000');

    // Beyond 24 hours: the environment's hourly aggregates.
    api.getSystemHistory.mockClear();
    await userEvent.click(
      within(dialog).getByRole('button', { name: '7 days' }),
    );
    await waitFor(() =>
      expect(api.getSystemHistory).toHaveBeenCalledWith(
        'system:default/payments',
        expect.objectContaining({
          environment: 'production',
          granularity: 'hours',
        }),
      ),
    );
    expect(
      await within(dialog).findByText('Status timeline (hourly)'),
    ).toBeInTheDocument();
    expect(
      within(dialog).getByText('Up (healthy or degraded)'),
    ).toBeInTheDocument();

    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Close history' }),
    );
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('loads the open cell history again when the system status changes', async () => {
    let onMessage: ((message: any) => void) | undefined;
    const signalApi = {
      subscribe: jest.fn((_channel: string, handler: (m: any) => void) => {
        onMessage = handler;
        return { unsubscribe: () => {} };
      }),
    };
    const api = makeApi();
    const { fetchApi } = await renderTab({ api, signalApi });
    await userEvent.click(
      await screen.findByTestId(`cell-${GIT_CHECK}-production`),
    );
    await screen.findByTestId('status-timeline');
    expect(fetchApi.fetch).toHaveBeenCalledTimes(1);
    expect(screen.getByText(/^Live/)).toBeInTheDocument();

    api.getSystem.mockResolvedValue(
      makeSystem({ status: 'healthy', since: ago(0), updatedAt: ago(0) }),
    );
    act(() =>
      onMessage!({
        type: 'SYSTEM_STATUS_CHANGED',
        systemRef: 'system:default/payments',
        from: 'unhealthy',
        to: 'healthy',
      }),
    );
    await waitFor(() => expect(api.getSystem).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(fetchApi.fetch).toHaveBeenCalledTimes(2));
  });

  it('links a GitOps check to its file in Git and says who changed an API check', async () => {
    await renderTab();
    const link = await screen.findByRole('link', {
      name: /^File in Git: https:\/\/git\.example\/payments\/checks\.yaml/,
    });
    expect(link).toHaveAttribute(
      'href',
      'https://git.example/payments/checks.yaml',
    );
    expect(link).toHaveTextContent('checks.yaml');
    expect(
      await screen.findByText('Managed through the API'),
    ).toBeInTheDocument();
    expect(screen.getByText(/last changed by/)).toHaveTextContent(
      'last changed by alice 1 hour ago',
    );
  });

  it('tells how to add a check when the system has none', async () => {
    await renderTab({
      api: makeApi({
        getSystem: jest.fn(async () => makeSystem({ checks: [] })),
      }),
    });
    expect(
      await screen.findByText('No health checks for this system yet'),
    ).toBeInTheDocument();
    const snippet = document.querySelector('pre')?.textContent ?? '';
    expect(snippet).toContain('kind: HealthCheck');
    expect(snippet).toContain('apiVersion: vigil.dev/v1alpha1');
    expect(snippet).toContain('- system:default/payments');
    expect(
      screen.getByText(/next to this system's catalog-info.yaml/),
    ).toBeInTheDocument();
  });

  it('shows the empty state when the backend does not know the system', async () => {
    await renderTab({
      api: makeApi({ getSystem: jest.fn(async () => undefined) }),
    });
    expect(
      await screen.findByText('No health checks for this system yet'),
    ).toBeInTheDocument();
  });

  it('shows progress while loading', async () => {
    await renderTab({
      api: makeApi({ getSystem: jest.fn(() => new Promise<never>(() => {})) }),
    });
    expect(screen.getByTestId('progress')).toBeInTheDocument();
  });

  it('offers a retry when the backend cannot be reached', async () => {
    const getSystem = jest
      .fn<Promise<SystemHealthDetails | undefined>, [string]>()
      .mockRejectedValueOnce(new Error('backend unreachable'))
      .mockResolvedValue(makeSystem());
    await renderTab({ api: makeApi({ getSystem }) });
    expect(
      await screen.findByText(/Could not load the health of this system/),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(
      await screen.findByTestId(`cell-${GIT_CHECK}-production`),
    ).toBeInTheDocument();
    expect(getSystem).toHaveBeenCalledTimes(2);
  });

  it('shows a component the checks of its system, and says so', async () => {
    const { api } = await renderTab({ entity: componentEntity });
    expect(
      await screen.findByTestId(`cell-${GIT_CHECK}-production`),
    ).toBeInTheDocument();
    expect(api.getSystem).toHaveBeenCalledWith('system:default/payments');
    expect(
      screen.getByText(
        /the API cannot tell which of them probe this component/,
      ),
    ).toBeInTheDocument();
    expect(
      screen.getAllByRole('link', { name: /payments/ })[0],
    ).toHaveAttribute('href', '/catalog/default/system/payments');
  });

  it('explains that a component without a system has no health', async () => {
    const { api } = await renderTab({
      entity: { ...componentEntity, spec: { type: 'website', owner: 'team' } },
    });
    expect(
      await screen.findByText('This entity is not part of a system'),
    ).toBeInTheDocument();
    expect(api.getSystem).not.toHaveBeenCalled();
  });
});
