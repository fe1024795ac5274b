import { renderInTestApp, TestApiProvider } from '@backstage/test-utils';
import { screen } from '@testing-library/react';
import { Route, Routes } from 'react-router-dom';
import { healthcheckApiRef } from './api/HealthcheckApi';
import { HealthcheckPage, healthcheckPlugin } from './index';
import healthcheckAlphaPlugin from './alpha';

describe('healthcheck frontend plugin', () => {
  it('is the healthcheck plugin in both frontend systems', () => {
    expect(healthcheckPlugin.getId()).toBe('healthcheck');
    expect(healthcheckAlphaPlugin.id).toBe('healthcheck');
  });

  it('renders its legacy page export', async () => {
    await renderInTestApp(
      <TestApiProvider
        apis={[[healthcheckApiRef, { listChecks: async () => [] }]]}
      >
        <Routes>
          <Route path="/healthcheck" element={<HealthcheckPage />} />
        </Routes>
      </TestApiProvider>,
      { routeEntries: ['/healthcheck'] },
    );
    expect(await screen.findByText('Health checks')).toBeInTheDocument();
  });
});
