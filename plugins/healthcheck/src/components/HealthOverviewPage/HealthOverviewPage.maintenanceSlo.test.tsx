import { screen, within } from '@testing-library/react';
import { SystemListResponse } from '@vigil/plugin-healthcheck-common';
import {
  counts,
  firstPage,
  payments,
  renderPage,
} from './__testUtils__/overviewFixtures';

const inAnHour = new Date(Date.now() + 3_600_000).toISOString();

/** Payments failing in a deploy window, with two objectives. */
const page: SystemListResponse = {
  ...firstPage,
  items: firstPage.items.map(item =>
    item.name === payments.name
      ? {
          ...item,
          maintenance: {
            current: [
              {
                windowId: 'w-deploy',
                start: new Date().toISOString(),
                end: inAnHour,
                reason: 'Deploying 4.2',
              },
            ],
          },
          slo: {
            objectives: 2,
            worst: {
              ref: 'servicelevelobjective:default/payments-availability',
              title: 'Payments are up',
              environment: 'production',
              target: 0.999,
              attainment: 0.99937,
              remainingRatio: 0.375,
            },
          },
        }
      : item,
  ),
  counts: counts({ unhealthy: 1, degraded: 1, healthy: 1, paused: 2 }),
};

function rowOf(text: string) {
  return within(screen.getByText(text).closest('tr')!);
}

describe('HealthOverviewPage with maintenance and objectives', () => {
  it('marks a system in maintenance beside its true status, with until when', async () => {
    await renderPage({ listSystems: jest.fn(async () => page) });
    await screen.findByText('Payments');
    const row = rowOf('Payments');
    const status = row.getByText('Unhealthy').closest('[data-status]');
    expect(status).toHaveAttribute('data-status', 'unhealthy');
    expect(row.getByTestId('maintenance-marker')).toHaveTextContent(
      /^In maintenance until \S/,
    );
    expect(row.getByTestId('maintenance-marker')).toHaveAttribute(
      'title',
      expect.stringMatching(/ — Deploying 4\.2$/),
    );
    expect(rowOf('billing').queryByTestId('maintenance-marker')).toBeNull();
  });

  it('gives each system its worst objective’s budget left and attainment, or a dash', async () => {
    await renderPage({ listSystems: jest.fn(async () => page) });
    await screen.findByText('Payments');
    expect(
      screen.getByRole('columnheader', { name: 'SLO' }),
    ).toBeInTheDocument();
    const row = rowOf('Payments');
    expect(row.getByText('37% budget left')).toHaveAttribute(
      'title',
      'Payments are up',
    );
    expect(
      row.getByText('99.93% of 99.9% in production (worst of 2)'),
    ).toBeInTheDocument();
    const billingCells = rowOf('billing').getAllByRole('cell');
    const sloIndex = screen
      .getAllByRole('columnheader')
      .findIndex(th => th.textContent === 'SLO');
    expect(billingCells[sloIndex]).toHaveTextContent(/^—$/);
  });
});
