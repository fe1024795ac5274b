import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  CheckDetails,
  ListSystemsQuery,
} from '@vigil/plugin-healthcheck-common';
import { firstPage, renderPage } from './__testUtils__/overviewFixtures';

// Its own file: usePermission caches answers for the whole test file.
describe('HealthOverviewPage for a reader', () => {
  it('hides "New check" from users who may not create checks', async () => {
    const listSystems = jest.fn(async (_query?: ListSystemsQuery) => firstPage);
    await renderPage({ listSystems, allow: false });
    await screen.findByText('Payments');
    expect(
      screen.queryByRole('button', { name: 'New check' }),
    ).not.toBeInTheDocument();
  });

  it('offers View, not Edit, of API checks to users who may not change them', async () => {
    const listSystems = jest.fn(async (_query?: ListSystemsQuery) => firstPage);
    const check: CheckDetails = {
      id: 'payments-http',
      title: 'Payments HTTP',
      revision: 1,
      spec: {
        type: 'http',
        target: 'https://payments.example/health',
        systems: ['system:default/payments'],
      },
      source: {
        kind: 'api',
        createdBy: 'user:default/ada',
        createdAt: '2025-01-01T00:00:00.000Z',
        updatedBy: 'user:default/ada',
        updatedAt: '2025-01-01T00:00:00.000Z',
      },
    };
    await renderPage({
      listSystems,
      allow: false,
      route: '/?tab=checks',
      listChecks: async () => [
        {
          id: check.id,
          title: check.title,
          type: 'http',
          target: check.spec.target,
          systems: check.spec.systems,
          paused: false,
          source: { kind: 'api', createdBy: 'user:default/ada' },
        },
      ],
      api: { getCheck: async () => check },
    });
    await userEvent.click(
      await screen.findByRole('button', { name: 'View Payments HTTP' }),
    );
    const dialog = await screen.findByRole('dialog');
    expect(
      await within(dialog).findByText('You may view this check, not change it'),
    ).toBeInTheDocument();
    expect(
      within(dialog).queryByRole('button', { name: 'Save changes' }),
    ).not.toBeInTheDocument();
  });
});
