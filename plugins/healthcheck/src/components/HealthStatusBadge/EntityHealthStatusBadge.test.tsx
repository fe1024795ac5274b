import { alertApiRef } from '@backstage/core-plugin-api';
import { EntityProvider } from '@backstage/plugin-catalog-react';
import { renderInTestApp, TestApiProvider } from '@backstage/test-utils';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Entity } from '@backstage/catalog-model';
import { HealthcheckApi, healthcheckApiRef } from '../../api/HealthcheckApi';
import { EntityHealthStatusBadge } from './EntityHealthStatusBadge';
import {
  healthWithoutChecks,
  paymentsApiComponent,
  paymentsHealth,
  paymentsSystem,
} from './__testUtils__/fixtures';

const BADGE_URL =
  'http://localhost:7007/api/healthcheck/v1/badges/systems/default/payments';

async function renderFor(entity: Entity, api: Partial<HealthcheckApi>) {
  const alertApi = { post: jest.fn(), alert$: jest.fn() };
  const { container } = await renderInTestApp(
    <TestApiProvider
      apis={[
        [healthcheckApiRef, { badgeUrl: async () => BADGE_URL, ...api }],
        [alertApiRef, alertApi],
      ]}
    >
      <EntityProvider entity={entity}>
        <EntityHealthStatusBadge />
      </EntityProvider>
    </TestApiProvider>,
  );
  return { container, alertApi };
}

describe('EntityHealthStatusBadge', () => {
  it("shows the live status of a Component's system", async () => {
    const getSystem = jest.fn(async () => paymentsHealth());
    await renderFor(paymentsApiComponent, { getSystem });
    expect(await screen.findByText('Degraded')).toBeInTheDocument();
    expect(getSystem).toHaveBeenCalledWith('system:default/payments');
  });

  it('says "No checks" for a system without checks, with nothing to copy', async () => {
    await renderFor(paymentsSystem, {
      getSystem: async () => healthWithoutChecks(),
    });
    expect(await screen.findByText('No checks')).toBeInTheDocument();
    expect(
      screen.queryByRole('button', { name: 'Copy badge Markdown' }),
    ).not.toBeInTheDocument();
  });

  it('says "No checks" for a system the backend does not know', async () => {
    await renderFor(paymentsSystem, { getSystem: async () => undefined });
    expect(await screen.findByText('No checks')).toBeInTheDocument();
  });

  it('renders nothing for an entity outside any system', async () => {
    const getSystem = jest.fn();
    const { container } = await renderFor(
      { ...paymentsApiComponent, spec: { type: 'service' } },
      { getSystem },
    );
    expect(container).toBeEmptyDOMElement();
    expect(getSystem).not.toHaveBeenCalled();
  });

  it('copies the badge Markdown and says so', async () => {
    const user = userEvent.setup();
    const writeText = jest.spyOn(navigator.clipboard, 'writeText');
    const { alertApi } = await renderFor(paymentsApiComponent, {
      getSystem: async () => paymentsHealth(),
    });
    const copy = await screen.findByRole('button', {
      name: 'Copy badge Markdown',
    });
    await waitFor(() => expect(copy).toBeEnabled());
    await user.click(copy);
    expect(writeText).toHaveBeenCalledWith(`![Payments health](${BADGE_URL})`);
    await waitFor(() =>
      expect(alertApi.post).toHaveBeenCalledWith(
        expect.objectContaining({ severity: 'success' }),
      ),
    );
  });
});
