import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  HealthStatus,
  ListSystemsQuery,
  SYSTEM_STATUS_SIGNAL_CHANNEL,
  SystemListResponse,
} from '@vigil/plugin-healthcheck-common';
import { CheckSummary } from '../../api/HealthcheckApi';
import {
  counts,
  firstPage,
  lastQuery,
  ListSystems,
  payments,
  renderPage,
  system,
  systemLinks,
} from './__testUtils__/overviewFixtures';
import { createTestSignalApi } from './__testUtils__/testSignalApi';

describe('HealthOverviewPage', () => {
  it('shows the counts of each status and the systems worst first, each with its health tab, k of n, worst environment and top reason', async () => {
    const listSystems = jest.fn(async (_query?: ListSystemsQuery) => firstPage);
    await renderPage({ listSystems });

    expect(await screen.findByText('Payments')).toBeInTheDocument();
    expect(listSystems).toHaveBeenCalledWith({ sort: 'status', limit: 50 });

    const countOf = (status: HealthStatus) =>
      within(screen.getByTestId(`status-count-${status}`));
    expect(countOf('unhealthy').getByText('Unhealthy')).toBeInTheDocument();
    expect(countOf('unhealthy').getByText('1')).toBeInTheDocument();
    expect(countOf('degraded').getByText('1')).toBeInTheDocument();
    expect(countOf('healthy').getByText('1')).toBeInTheDocument();
    expect(countOf('unknown').getByText('0')).toBeInTheDocument();
    expect(countOf('paused').getByText('2')).toBeInTheDocument();

    // In the order the server sorted them, worst first.
    expect(systemLinks().map(link => link.getAttribute('href'))).toEqual([
      '/catalog/default/system/payments/health',
      '/catalog/default/system/search/health',
      '/catalog/finance/system/billing/health',
    ]);
    expect(screen.getByText('3 systems')).toBeInTheDocument();

    const paymentsRow = screen.getByText('Payments').closest('tr')!;
    const row = within(paymentsRow);
    expect(row.getByText('Unhealthy')).toBeInTheDocument();
    expect(row.getByText('2 of 4 healthy')).toBeInTheDocument();
    expect(row.getByText('production: Unhealthy')).toBeInTheDocument();
    // The worst reason, not the first one.
    expect(row.getByText('[STATUS] (500) == 200')).toBeInTheDocument();
    expect(row.getByText(/payments-http in production/)).toBeInTheDocument();

    expect(
      within(screen.getByText('billing').closest('tr')!).getByText(
        'finance/billing',
      ),
    ).toBeInTheDocument();
  });

  it("puts a system's outage down to the upstream system that explains it, before its own reasons", async () => {
    const caused = {
      ...payments,
      environments: payments.environments.map(e =>
        e.name === 'production'
          ? { ...e, causedBy: 'system:default/identity' }
          : e,
      ),
    };
    await renderPage({
      listSystems: jest.fn(async () => ({ ...firstPage, items: [caused] })),
    });
    const row = within((await screen.findByText('Payments')).closest('tr')!);
    expect(row.getByText(/Caused by upstream/)).toBeInTheDocument();
    expect(row.getByRole('link', { name: /identity/ })).toHaveAttribute(
      'href',
      '/catalog/default/system/identity',
    );
    expect(row.getByText('unhealthy in production')).toBeInTheDocument();
    expect(row.queryByText('[STATUS] (500) == 200')).not.toBeInTheDocument();
  });

  it('says when the statuses listed are the last known, the database being unreachable', async () => {
    await renderPage({
      listSystems: jest.fn(async () => ({
        ...firstPage,
        items: firstPage.items.map(item => ({ ...item, stale: true })),
      })),
    });
    expect(
      await screen.findByText(
        'Worst first · last known, the database is unreachable',
      ),
    ).toBeInTheDocument();
  });

  it('filters by status, owner and environment, searches, and sorts by name through the query', async () => {
    const listSystems = jest.fn(async (_query?: ListSystemsQuery) => firstPage);
    await renderPage({ listSystems });
    await screen.findByText('Payments');

    await userEvent.click(screen.getByTestId('status-count-unhealthy'));
    await waitFor(() =>
      expect(lastQuery(listSystems)).toEqual({
        sort: 'status',
        limit: 50,
        status: ['unhealthy'],
      }),
    );
    expect(screen.getByTestId('status-count-unhealthy')).toHaveAttribute(
      'aria-pressed',
      'true',
    );
    await userEvent.click(screen.getByTestId('status-count-degraded'));
    await waitFor(() =>
      expect(lastQuery(listSystems).status).toEqual(['unhealthy', 'degraded']),
    );

    // The owners are the catalog's, in full whether stored short
    // (search-team) or not, each once though the page shows them too.
    expect(
      Array.from(
        screen.getByLabelText('Owner').querySelectorAll('option'),
        option => option.textContent,
      ),
    ).toEqual([
      'Any owner',
      'group:default/payments-team',
      'group:default/search-team',
    ]);
    await userEvent.selectOptions(
      screen.getByLabelText('Owner'),
      'group:default/search-team',
    );
    await waitFor(() =>
      expect(lastQuery(listSystems).owner).toBe('group:default/search-team'),
    );
    await userEvent.selectOptions(
      screen.getByLabelText('Environment'),
      'staging',
    );
    await waitFor(() =>
      expect(lastQuery(listSystems).environment).toBe('staging'),
    );

    await userEvent.type(screen.getByLabelText('Search systems'), 'pay');
    await waitFor(() => expect(lastQuery(listSystems).q).toBe('pay'));
    // Typing is debounced: not one request per key. (Usually one for the
    // word; a busy machine may pause over 300 ms between two keys.)
    expect(
      listSystems.mock.calls.filter(([query]) => query?.q !== undefined).length,
    ).toBeLessThan('pay'.length);

    await userEvent.selectOptions(screen.getByLabelText('Sort by'), 'name');
    await waitFor(() =>
      expect(lastQuery(listSystems)).toEqual({
        sort: 'name',
        limit: 50,
        status: ['unhealthy', 'degraded'],
        owner: 'group:default/search-team',
        environment: 'staging',
        q: 'pay',
      }),
    );

    await userEvent.click(
      screen.getAllByRole('button', { name: 'Clear filters' })[0],
    );
    await waitFor(() =>
      expect(lastQuery(listSystems)).toEqual({ sort: 'name', limit: 50 }),
    );
    expect(screen.getByLabelText('Search systems')).toHaveValue('');
  });

  it('pages through the server cursor, 50 at a time, forward and back', async () => {
    const page = (from: number, count: number) =>
      Array.from({ length: count }, (_, i) =>
        system(`system-${String(from + i).padStart(3, '0')}`, 'healthy', {
          total: 1,
          healthy: 1,
        }),
      );
    const listSystems = jest.fn(async (query?: ListSystemsQuery) =>
      query?.cursor === 'cursor-50'
        ? {
            items: page(50, 20),
            totalCount: 70,
            counts: counts({ healthy: 70 }),
          }
        : {
            items: page(0, 50),
            totalCount: 70,
            counts: counts({ healthy: 70 }),
            nextCursor: 'cursor-50',
          },
    );
    await renderPage({ listSystems });
    expect(await screen.findByText('system-000')).toBeInTheDocument();
    expect(screen.getByText('1–50 of 70')).toBeInTheDocument();
    expect(
      screen.getByRole('button', { name: 'Previous page' }),
    ).toBeDisabled();

    await userEvent.click(screen.getByRole('button', { name: 'Next page' }));
    expect(await screen.findByText('system-050')).toBeInTheDocument();
    expect(lastQuery(listSystems)).toEqual({
      sort: 'status',
      limit: 50,
      cursor: 'cursor-50',
    });
    expect(screen.getByText('51–70 of 70')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Next page' })).toBeDisabled();

    await userEvent.click(
      screen.getByRole('button', { name: 'Previous page' }),
    );
    expect(await screen.findByText('system-000')).toBeInTheDocument();
    expect(lastQuery(listSystems)).toEqual({ sort: 'status', limit: 50 });

    // A filter starts again at the first page.
    await userEvent.click(screen.getByRole('button', { name: 'Next page' }));
    await screen.findByText('system-050');
    await userEvent.click(screen.getByTestId('status-count-healthy'));
    await waitFor(() =>
      expect(lastQuery(listSystems)).toEqual({
        sort: 'status',
        limit: 50,
        status: ['healthy'],
      }),
    );
  });

  it('refetches the current page once for a burst of status-change signals', async () => {
    const signals = createTestSignalApi();
    const listSystems = jest.fn(async (_query?: ListSystemsQuery) => firstPage);
    await renderPage({ listSystems, signals });
    await screen.findByText('Payments');
    expect(screen.getByText('Live')).toBeInTheDocument();
    expect(listSystems).toHaveBeenCalledTimes(1);

    const changed = {
      type: 'SYSTEM_STATUS_CHANGED',
      liveKey: firstPage.items[1].liveKey,
    };
    signals.emit(SYSTEM_STATUS_SIGNAL_CHANNEL, changed);
    signals.emit(SYSTEM_STATUS_SIGNAL_CHANNEL, changed);
    signals.emit(SYSTEM_STATUS_SIGNAL_CHANNEL, changed);

    await waitFor(() => expect(listSystems).toHaveBeenCalledTimes(2));
    expect(lastQuery(listSystems)).toEqual({ sort: 'status', limit: 50 });
    await new Promise(resolve => setTimeout(resolve, 800));
    expect(listSystems).toHaveBeenCalledTimes(2);
  });

  it('ignores the signals of systems a page that lists every system it counts cannot show', async () => {
    const signals = createTestSignalApi();
    const everySystem: SystemListResponse = {
      ...firstPage,
      counts: counts({ unhealthy: 1, degraded: 1, healthy: 1 }),
    };
    const listSystems = jest.fn(
      async (_query?: ListSystemsQuery) => everySystem,
    );
    await renderPage({ listSystems, signals });
    await screen.findByText('Payments');

    signals.emit(SYSTEM_STATUS_SIGNAL_CHANNEL, {
      type: 'SYSTEM_STATUS_CHANGED',
      liveKey: 'the-key-of-a-system-this-user-cannot-see',
    });
    signals.emit(SYSTEM_STATUS_SIGNAL_CHANNEL, {
      type: 'SYSTEM_STATUS_CHANGED',
      systemRef: 'system:default/payments',
    });

    await new Promise(resolve => setTimeout(resolve, 800));
    expect(listSystems).toHaveBeenCalledTimes(1);
  });

  it('explains how to add a check when no system has one', async () => {
    const listSystems = jest.fn(async () => ({
      items: [system('payments', 'unknown'), system('search', 'unknown')],
      totalCount: 2,
      counts: counts({ unknown: 2 }),
    }));
    await renderPage({ listSystems });
    expect(
      await screen.findByText('No systems with health checks yet'),
    ).toBeInTheDocument();
    expect(
      screen.getByText(/declare a HealthCheck entity/),
    ).toBeInTheDocument();
    expect(
      screen.getByRole('button', { name: 'New check' }),
    ).toBeInTheDocument();
  });

  it('says when no system matches the filters', async () => {
    const listSystems = jest.fn(async (query?: ListSystemsQuery) =>
      query?.q ? { items: [], totalCount: 0, counts: counts() } : firstPage,
    );
    await renderPage({ listSystems });
    await screen.findByText('Payments');
    await userEvent.type(screen.getByLabelText('Search systems'), 'nothing');
    expect(
      await screen.findByText('No systems match these filters.'),
    ).toBeInTheDocument();
  });

  it('shows progress while loading', async () => {
    const listSystems = jest.fn(
      () => new Promise<SystemListResponse>(() => {}),
    );
    await renderPage({ listSystems });
    expect(await screen.findByTestId('progress')).toBeInTheDocument();
  });

  it('offers a retry when the systems cannot be loaded', async () => {
    const listSystems = jest
      .fn<ReturnType<ListSystems>, Parameters<ListSystems>>()
      .mockRejectedValueOnce(new Error('backend unreachable'))
      .mockResolvedValue(firstPage);
    await renderPage({ listSystems });
    expect(
      await screen.findByText(/Could not load the systems/),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Payments')).toBeInTheDocument();
    expect(listSystems).toHaveBeenCalledTimes(2);
  });

  it('creates a check from "New check" and reloads the systems', async () => {
    const listSystems = jest.fn(async (_query?: ListSystemsQuery) => firstPage);
    const createCheck = jest.fn(async () => ({
      id: 'search-http',
      spec: {
        type: 'http',
        target: 'https://search.example/health',
        systems: ['system:default/search'],
      },
      source: {
        kind: 'api' as const,
        createdBy: 'user:default/ada',
        createdAt: '2025-01-01T00:00:00.000Z',
        updatedBy: 'user:default/ada',
        updatedAt: '2025-01-01T00:00:00.000Z',
      },
    }));
    await renderPage({ listSystems, api: { createCheck } });
    await screen.findByText('Payments');

    await userEvent.click(screen.getByRole('button', { name: 'New check' }));
    const dialog = await screen.findByRole('dialog', {
      name: 'New health check',
    });
    await userEvent.type(within(dialog).getByLabelText('ID'), 'search-http');
    await userEvent.type(
      within(dialog).getByLabelText(/^Target/),
      'https://search.example/health',
    );
    await userEvent.type(
      within(dialog).getByLabelText(/^Systems/),
      'system:default/search{Enter}',
    );
    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Create check' }),
    );

    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );
    expect(createCheck).toHaveBeenCalledWith({
      id: 'search-http',
      spec: {
        type: 'http',
        target: 'https://search.example/health',
        systems: ['system:default/search'],
      },
    });
    await waitFor(() => expect(listSystems).toHaveBeenCalledTimes(2));
  });

  it('lists the checks on the Checks tab, with Edit for API checks and View for GitOps ones', async () => {
    const listSystems = jest.fn(async (_query?: ListSystemsQuery) => firstPage);
    const checks: CheckSummary[] = [
      {
        id: 'payments-http',
        title: 'Payments HTTP',
        type: 'http',
        target: 'https://payments.example/health',
        interval: '30s',
        systems: ['system:default/payments'],
        paused: false,
        source: { kind: 'api', createdBy: 'user:default/ada' },
      },
      {
        id: 'healthcheck:default/search-api',
        title: 'Search API',
        type: 'http',
        target: 'https://search.example/health',
        systems: ['system:default/search'],
        paused: true,
        source: {
          kind: 'gitops',
          entityRef: 'healthcheck:default/search-api',
          location: 'url:https://git.example/search/checks.yaml',
        },
      },
    ];
    const getCheck = jest.fn(async (id: string) => ({
      id,
      title: 'Payments HTTP',
      revision: 2,
      spec: {
        type: 'http',
        target: 'https://payments.example/health',
        systems: ['system:default/payments'],
      },
      source: {
        kind: 'api' as const,
        createdBy: 'user:default/ada',
        createdAt: '2025-01-01T00:00:00.000Z',
        updatedBy: 'user:default/ada',
        updatedAt: '2025-01-01T00:00:00.000Z',
      },
    }));
    await renderPage({
      listSystems,
      listChecks: async () => checks,
      api: { getCheck },
      route: '/?tab=checks',
    });

    expect(await screen.findByText('Payments HTTP')).toBeInTheDocument();
    expect(screen.getByRole('tab', { name: 'Checks' })).toHaveAttribute(
      'aria-selected',
      'true',
    );
    expect(
      screen.getByRole('button', { name: 'View Search API' }),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /^file/ })).toHaveAttribute(
      'href',
      'https://git.example/search/checks.yaml',
    );

    await userEvent.click(
      screen.getByRole('button', { name: 'Edit Payments HTTP' }),
    );
    const dialog = await screen.findByRole('dialog');
    expect(await within(dialog).findByLabelText(/^Target/)).toHaveValue(
      'https://payments.example/health',
    );
    expect(getCheck).toHaveBeenCalledWith('payments-http');

    await userEvent.click(
      within(dialog).getByRole('button', { name: 'Cancel' }),
    );
    await waitFor(() =>
      expect(screen.queryByRole('dialog')).not.toBeInTheDocument(),
    );
    await userEvent.click(screen.getByRole('tab', { name: 'Systems' }));
    expect(await screen.findByText('Payments')).toBeInTheDocument();
  });
});
