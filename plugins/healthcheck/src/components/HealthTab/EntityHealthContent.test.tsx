import {
  SliceUptimeResponse,
  SystemHealthDetails,
} from '@vigil/plugin-healthcheck-common';
import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  ago,
  NOW,
  API_CHECK,
  GIT_CHECK,
  SLICE_PROD,
  componentEntity,
  makeSystem,
  makeApi,
  renderTab,
  cell,
  passingRun,
  failingRun,
  sliceUptimes,
  checks,
} from './__testUtils__/healthTab';

describe('EntityHealthContent', () => {
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('shows each cell of the matrix with its status, last run and latency', async () => {
    // Relative times count from when the tab mounts, and a first render on a
    // busy machine can take seconds: "30 seconds ago" needs the fixtures' now.
    jest.spyOn(Date, 'now').mockReturnValue(NOW);
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
    // Titles come from one request for all the system's checks, after the
    // first paint.
    expect(await screen.findAllByText('Payments API')).not.toHaveLength(0);
    expect(api.listSystemChecks).toHaveBeenCalledWith(
      'system:default/payments',
    );
    expect(api.listSystemChecks).toHaveBeenCalledTimes(1);
    expect(api.getCheck).not.toHaveBeenCalled();
  });

  it("names checks by their short names, and offers a retry, when the system's checks cannot be read", async () => {
    let fail = true;
    const api = makeApi({
      listSystemChecks: jest.fn(async () => {
        if (fail) {
          throw new Error('backend away');
        }
        return Object.values(checks);
      }),
    });
    await renderTab({ api });
    await waitFor(() => expect(api.listSystemChecks).toHaveBeenCalledTimes(1));
    expect(screen.queryAllByText('Payments API')).toHaveLength(0);

    // Every source shown offers the retry, which asks for all the checks again.
    const [unavailable] = await screen.findAllByText(/Source unavailable/);
    fail = false;
    await userEvent.click(
      within(unavailable).getByRole('button', { name: 'Retry' }),
    );
    await waitFor(() => expect(api.listSystemChecks).toHaveBeenCalledTimes(2));
    expect(await screen.findAllByText('Payments API')).not.toHaveLength(0);
    expect(api.listSystemChecks).toHaveBeenCalledTimes(2);
    expect(api.getCheck).not.toHaveBeenCalled();
  });

  it('shows the first five reasons, and all of them on asking', async () => {
    const reasons = Array.from({ length: 8 }, (_, i) => ({
      checkId: GIT_CHECK,
      environment: `env-${i}`,
      status: 'unhealthy' as const,
      display: `[STATUS] (50${i}) == 200`,
    }));
    await renderTab({
      api: makeApi({ getSystem: jest.fn(async () => makeSystem({ reasons })) }),
    });
    const why = (await screen.findByText('Why')).closest('section')!;
    expect(within(why).getAllByRole('listitem')).toHaveLength(5);
    const more = within(why).getByRole('button', {
      name: 'Show all 8 reasons',
    });
    expect(more).toHaveAttribute('aria-expanded', 'false');

    await userEvent.click(more);
    expect(within(why).getAllByRole('listitem')).toHaveLength(8);
    expect(within(why).getByText('[STATUS] (507) == 200')).toBeInTheDocument();
    await userEvent.click(
      within(why).getByRole('button', { name: 'Show fewer reasons' }),
    );
    expect(within(why).getAllByRole('listitem')).toHaveLength(5);
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

  it("says which upstream system an environment's outage is put down to", async () => {
    await renderTab({
      api: makeApi({
        getSystem: jest.fn(async () => {
          const system = makeSystem();
          return {
            ...system,
            environments: system.environments.map(e =>
              e.status === 'unhealthy'
                ? { ...e, causedBy: 'system:default/identity' }
                : e,
            ),
          };
        }),
      }),
    });
    const cause = (await screen.findByText('Caused by upstream')).closest(
      'section',
    )!;
    expect(within(cause).getByText('in production:')).toBeInTheDocument();
    expect(
      within(cause).getByRole('link', { name: /identity/ }),
    ).toHaveAttribute('href', '/catalog/default/system/identity');
  });

  it('says nothing is caused upstream when the rollup says so', async () => {
    await renderTab();
    await screen.findByText('Why');
    expect(screen.queryByText('Caused by upstream')).not.toBeInTheDocument();
  });

  it('says when the rollup shown is the last known, the database being unreachable, and only then', async () => {
    await renderTab({
      api: makeApi({
        getSystem: jest.fn(async () =>
          makeSystem({ stale: true, updatedAt: ago(3 * 60_000) }),
        ),
      }),
    });
    expect(await screen.findByRole('status')).toHaveTextContent(
      'Last known, the database is unreachable (as of 3 minutes ago)',
    );
  });

  it('says nothing of staleness while the database answers', async () => {
    await renderTab();
    await screen.findByText('Why');
    expect(screen.queryByText(/Last known/)).not.toBeInTheDocument();
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

  it('shows each cell’s up-time over 24 hours, 7 days and 30 days once loaded, after the matrix', async () => {
    let answer: (value: SliceUptimeResponse) => void = () => {};
    const api = makeApi({
      getSliceUptimes: jest.fn(
        () =>
          new Promise<SliceUptimeResponse>(resolve => {
            answer = resolve;
          }),
      ),
    });
    await renderTab({ api });

    // The matrix is there while the up-time is still on its way.
    const prod = await screen.findByTestId(`cell-${GIT_CHECK}-production`);
    expect(within(prod).getByText('up-time loading…')).toBeInTheDocument();
    expect(prod).toHaveAccessibleName(/, up-time loading\. Show history$/);
    expect(api.getSliceUptimes).toHaveBeenCalledTimes(1);
    expect(api.getSliceUptimes).toHaveBeenCalledWith('system:default/payments');

    act(() => answer(sliceUptimes()));
    expect(await within(prod).findByText('98.75%')).toBeInTheDocument();
    expect(within(prod).getByText('99.81%')).toBeInTheDocument();
    expect(within(prod).getByText('99.93%')).toBeInTheDocument();
    expect(within(prod).getByText('98.75%').closest('span')).toHaveAttribute(
      'title',
      'Up-time over the last 24 hours',
    );
    expect(prod).toHaveAccessibleName(
      /123 ms, up-time 98\.75% over 24 hours, 99\.81% over 7 days, 99\.93% over 30 days\. Show history$/,
    );
    expect(
      within(cell(GIT_CHECK, 'staging')).getAllByText('100%'),
    ).toHaveLength(3);
    // A window without up or down time, and a cell without any history.
    const dbProduction = cell(API_CHECK, 'production');
    expect(within(dbProduction).getByText('99.90%')).toBeInTheDocument();
    expect(within(dbProduction).getByText('–')).toBeInTheDocument();
    expect(dbProduction).toHaveAccessibleName(
      /100% over 24 hours, 99\.90% over 7 days, no data over 30 days\./,
    );
    expect(within(cell(API_CHECK, 'staging')).getAllByText('–')).toHaveLength(
      3,
    );
  });

  it('keeps the matrix when the up-time of its cells cannot be loaded, and offers a retry', async () => {
    const getSliceUptimes = jest
      .fn<Promise<SliceUptimeResponse>, [string]>()
      .mockRejectedValueOnce(new Error('too slow'))
      .mockResolvedValue(sliceUptimes());
    await renderTab({ api: makeApi({ getSliceUptimes }) });

    expect(
      await screen.findByText(
        'Could not load the up-time of the cells: too slow',
      ),
    ).toBeInTheDocument();
    const prod = cell(GIT_CHECK, 'production');
    expect(within(prod).getByText('Unhealthy')).toBeInTheDocument();
    expect(within(prod).queryByText(/up-time/)).toBeNull();
    expect(prod).toHaveAccessibleName(/123 ms\. Show history$/);

    const alert = screen
      .getByText(/Could not load the up-time of the cells/)
      .closest('[role="alert"]') as HTMLElement;
    await userEvent.click(within(alert).getByRole('button', { name: 'Retry' }));
    expect(await within(prod).findByText('98.75%')).toBeInTheDocument();
    expect(getSliceUptimes).toHaveBeenCalledTimes(2);
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

  it('opens the history of a cell with its charts and the failing conditions of the latest failing run', async () => {
    const { api } = await renderTab();
    expect(api.listSliceRuns).not.toHaveBeenCalled();
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

    // The cell's own runs of the last 24 hours, a full page at a time.
    expect(api.listSliceRuns).toHaveBeenCalledTimes(1);
    const [sliceId, query] = api.listSliceRuns.mock.calls[0];
    expect(sliceId).toBe(SLICE_PROD);
    expect(query).toEqual({
      from: expect.any(Date),
      to: expect.any(Date),
      limit: 1000,
      cursor: undefined,
    });
    expect(query.to.getTime() - query.from.getTime()).toBe(86_400_000);

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
    await renderTab({ api, signalApi });
    await userEvent.click(
      await screen.findByTestId(`cell-${GIT_CHECK}-production`),
    );
    await screen.findByTestId('status-timeline');
    expect(api.listSliceRuns).toHaveBeenCalledTimes(1);
    expect(screen.getByText(/^Live/)).toBeInTheDocument();

    api.getSystem.mockResolvedValue(
      makeSystem({ status: 'healthy', since: ago(0), updatedAt: ago(0) }),
    );
    act(() =>
      onMessage!({
        type: 'SYSTEM_STATUS_CHANGED',
        liveKey: 'live-key-of-payments',
      }),
    );
    await waitFor(() => expect(api.getSystem).toHaveBeenCalledTimes(2));
    await waitFor(() => expect(api.listSliceRuns).toHaveBeenCalledTimes(2));
  });

  it('loads at most three pages of a cell’s runs, and says when older ones are left out', async () => {
    const api = makeApi({
      listSliceRuns: jest.fn(
        async (_sliceId: string, query: { cursor?: string }) => ({
          runs: [query.cursor ? passingRun : failingRun],
          nextCursor: `${query.cursor ?? ''}+`,
        }),
      ),
    });
    await renderTab({ api });
    await userEvent.click(
      await screen.findByTestId(`cell-${GIT_CHECK}-production`),
    );
    expect(
      await screen.findByText(
        'Showing the newest 3 runs; older runs of the range are left out.',
      ),
    ).toBeInTheDocument();
    expect(
      api.listSliceRuns.mock.calls.map(([, query]) => query.cursor),
    ).toEqual([undefined, '+', '++']);
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

  // What a Component's tab shows: EntityHealthContent.component.test.tsx.

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
