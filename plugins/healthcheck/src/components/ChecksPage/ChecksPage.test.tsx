import { renderInTestApp, TestApiProvider } from '@backstage/test-utils';
import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import {
  CheckSummary,
  HealthcheckApi,
  healthcheckApiRef,
} from '../../api/HealthcheckApi';
import { ChecksPage } from './ChecksPage';

const paymentsCheck: CheckSummary = {
  id: 'healthcheck:default/payments-api',
  title: 'Payments API',
  type: 'http',
  target: 'http://127.0.0.1:7010/{{ environment.name }}/payments/health',
  interval: '10s',
  systems: ['system:default/payments'],
  paused: false,
  source: {
    kind: 'gitops',
    entityRef: 'healthcheck:default/payments-api',
    location: 'url:https://git.example/payments/checks.yaml',
  },
};

function renderWith(api: Partial<HealthcheckApi>) {
  return renderInTestApp(
    <TestApiProvider apis={[[healthcheckApiRef, api]]}>
      <ChecksPage />
    </TestApiProvider>,
  );
}

describe('ChecksPage', () => {
  it('lists each check with its target and a link to its file in Git', async () => {
    await renderWith({ listChecks: async () => [paymentsCheck] });
    expect(await screen.findByText('Payments API')).toBeInTheDocument();
    expect(screen.getByText(paymentsCheck.target)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: /^file/ })).toHaveAttribute(
      'href',
      'https://git.example/payments/checks.yaml',
    );
  });

  it('tells a new user how to add the first check', async () => {
    await renderWith({ listChecks: async () => [] });
    expect(await screen.findByText('No health checks yet')).toBeInTheDocument();
    expect(screen.getByText(/HealthCheck entity/)).toBeInTheDocument();
  });

  it('offers a retry when the backend cannot be reached', async () => {
    const listChecks = jest
      .fn<Promise<CheckSummary[]>, []>()
      .mockRejectedValueOnce(new Error('backend unreachable'))
      .mockResolvedValue([paymentsCheck]);
    await renderWith({ listChecks });
    expect(
      await screen.findByText(/Could not load the checks/),
    ).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Payments API')).toBeInTheDocument();
    expect(listChecks).toHaveBeenCalledTimes(2);
  });
});
