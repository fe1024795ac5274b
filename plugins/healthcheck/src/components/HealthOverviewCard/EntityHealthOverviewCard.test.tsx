import { Entity } from '@backstage/catalog-model';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { signalApiRef } from '@backstage/plugin-signals-react';
import { renderInTestApp, TestApiProvider } from '@backstage/test-utils';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { SystemHealthDetails } from '@vigil/plugin-healthcheck-common';
import { HealthcheckApi, healthcheckApiRef } from '../../api/HealthcheckApi';
import { rootRouteRef } from '../../routes';
import {
  createMockSignalApi,
  healthWithoutChecks,
  paymentsApiComponent,
  paymentsHealth,
  paymentsSystem,
  statusChanged,
} from '../HealthStatusBadge/__testUtils__/fixtures';
import { EntityHealthOverviewCard } from './EntityHealthOverviewCard';

async function renderCard(
  api: Partial<HealthcheckApi>,
  options: { entity?: Entity; signalApi?: object } = {},
) {
  return await renderInTestApp(
    <TestApiProvider
      apis={[
        [healthcheckApiRef, { badgeUrl: async () => 'http://badge', ...api }],
        ...(options.signalApi
          ? [[signalApiRef, options.signalApi] as const]
          : []),
      ]}
    >
      <EntityProvider entity={options.entity ?? paymentsApiComponent}>
        <EntityHealthOverviewCard />
      </EntityProvider>
    </TestApiProvider>,
    { mountedRoutes: { '/healthcheck': rootRouteRef } },
  );
}

describe('EntityHealthOverviewCard', () => {
  it('shows progress while the health loads', async () => {
    await renderCard({ getSystem: () => new Promise(() => {}) });
    expect(await screen.findByRole('progressbar')).toBeInTheDocument();
  });

  it("summarises the system's health: badge, checks, worst environment, update time", async () => {
    await renderCard({ getSystem: async () => paymentsHealth() });
    expect(
      await screen.findByText('3 of 4 checks healthy'),
    ).toBeInTheDocument();
    expect(screen.getAllByRole('img', { name: 'Degraded' })).toHaveLength(2);
    expect(screen.getByText('Worst environment')).toBeInTheDocument();
    expect(screen.getByText('production')).toBeInTheDocument();
    expect(screen.getByText('2 minutes ago')).toBeInTheDocument();
    expect(
      screen.getByRole('button', { name: 'Copy badge Markdown' }),
    ).toBeInTheDocument();
  });

  it('says when the health shown is the last known, the database being unreachable', async () => {
    await renderCard({
      getSystem: async () => paymentsHealth({ stale: true }),
    });
    expect(
      await screen.findByText(/Last known, the database is unreachable/),
    ).toHaveTextContent(
      'Updated 2 minutes ago · Last known, the database is unreachable',
    );
  });

  it('offers a retry when the health cannot be loaded', async () => {
    const getSystem = jest
      .fn<Promise<SystemHealthDetails | undefined>, [string]>()
      .mockRejectedValueOnce(new Error('backend unreachable'))
      .mockResolvedValue(paymentsHealth());
    await renderCard({ getSystem });
    expect(
      await screen.findByText('Could not load the health of this system'),
    ).toBeInTheDocument();
    expect(screen.getByText('backend unreachable')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(
      await screen.findByText('3 of 4 checks healthy'),
    ).toBeInTheDocument();
    expect(getSystem).toHaveBeenCalledTimes(2);
  });

  it('tells how to add the first check when the system has none', async () => {
    await renderCard({ getSystem: async () => healthWithoutChecks() });
    const empty = await screen.findByText(/^No health checks yet/);
    expect(empty).toHaveTextContent(
      'No health checks yet: add a HealthCheck entity next to catalog-info.yaml or create one on the Health page.',
    );
    expect(
      within(empty).getByRole('link', { name: 'Health page' }),
    ).toHaveAttribute('href', '/healthcheck');
    expect(
      screen.queryByRole('button', { name: 'Copy badge Markdown' }),
    ).not.toBeInTheDocument();
  });

  it('refetches when the backend signals that the system changed', async () => {
    const signalApi = createMockSignalApi();
    const recovered = paymentsHealth({
      status: 'healthy',
      healthy: 4,
      reasons: [],
    });
    const getSystem = jest
      .fn<Promise<SystemHealthDetails | undefined>, [string]>()
      .mockResolvedValueOnce(paymentsHealth())
      .mockResolvedValue(recovered);
    await renderCard({ getSystem }, { entity: paymentsSystem, signalApi });
    expect(
      await screen.findByText('3 of 4 checks healthy'),
    ).toBeInTheDocument();

    signalApi.emit(statusChanged(recovered));

    expect(
      await screen.findByText('4 of 4 checks healthy'),
    ).toBeInTheDocument();
    await waitFor(() => expect(getSystem).toHaveBeenCalledTimes(2));
  });

  it('ignores the signals of other systems', async () => {
    const signalApi = createMockSignalApi();
    const getSystem = jest.fn(async () => paymentsHealth());
    await renderCard({ getSystem }, { entity: paymentsSystem, signalApi });
    await screen.findByText('3 of 4 checks healthy');

    signalApi.emit({ type: 'SYSTEM_STATUS_CHANGED', liveKey: 'someone-else' });

    await new Promise(resolve => setTimeout(resolve, 100));
    expect(getSystem).toHaveBeenCalledTimes(1);
  });
});
