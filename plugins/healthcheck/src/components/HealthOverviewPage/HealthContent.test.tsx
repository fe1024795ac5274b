import { screen } from '@testing-library/react';
import { ListSystemsQuery } from '@vigil/plugin-healthcheck-common';
import {
  HealthChecksContent,
  HealthSystemsContent,
} from './HealthOverviewPage';
import { firstPage, renderPage } from './__testUtils__/overviewFixtures';

describe('the overview tabs without the page', () => {
  it('renders the systems without a page header', async () => {
    const listSystems = jest.fn(async (_query?: ListSystemsQuery) => firstPage);
    await renderPage({ listSystems, element: <HealthSystemsContent /> });
    expect(await screen.findByText('Payments')).toBeInTheDocument();
    expect(screen.queryByRole('tab')).not.toBeInTheDocument();
    expect(
      screen.getByRole('button', { name: 'New check' }),
    ).toBeInTheDocument();
  });

  it('renders the checks without a page header', async () => {
    const listSystems = jest.fn(async (_query?: ListSystemsQuery) => firstPage);
    await renderPage({
      listSystems,
      listChecks: async () => [],
      element: <HealthChecksContent />,
    });
    expect(await screen.findByText('No health checks yet')).toBeInTheDocument();
    expect(listSystems).not.toHaveBeenCalled();
  });
});
