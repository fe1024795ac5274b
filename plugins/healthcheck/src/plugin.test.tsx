import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/test-utils';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { screen } from '@testing-library/react';
import { Route, Routes } from 'react-router-dom';
import { catalogApiRef, EntityProvider } from '@backstage/plugin-catalog-react';
import { catalogApiMock } from '@backstage/plugin-catalog-react/testUtils';
import { healthcheckApiRef } from './api/HealthcheckApi';
import {
  EntityHealthContent,
  HealthcheckPage,
  healthcheckPlugin,
} from './index';
import healthcheckAlphaPlugin from './alpha';

describe('healthcheck frontend plugin', () => {
  it('is the healthcheck plugin in both frontend systems', () => {
    expect(healthcheckPlugin.getId()).toBe('healthcheck');
    expect(healthcheckAlphaPlugin.id).toBe('healthcheck');
  });

  it('renders its legacy page export', async () => {
    await renderInTestApp(
      <TestApiProvider
        apis={[
          [
            healthcheckApiRef,
            {
              listChecks: async () => [],
              listSystems: async () => ({
                items: [],
                totalCount: 0,
                counts: {
                  healthy: 0,
                  degraded: 0,
                  unhealthy: 0,
                  unknown: 0,
                  paused: 0,
                },
              }),
            },
          ],
          [catalogApiRef, catalogApiMock()],
          [permissionApiRef, mockApis.permission()],
        ]}
      >
        <Routes>
          <Route path="/healthcheck" element={<HealthcheckPage />} />
        </Routes>
      </TestApiProvider>,
      { routeEntries: ['/healthcheck'] },
    );
    expect(
      await screen.findByText(
        "Every system's health, per environment, worst first",
      ),
    ).toBeInTheDocument();
  });

  it('renders its legacy Health tab export for a System without checks', async () => {
    await renderInTestApp(
      <TestApiProvider
        apis={[
          [
            healthcheckApiRef,
            { getSystem: async () => undefined, listChecks: async () => [] },
          ],
          [permissionApiRef, mockApis.permission()],
        ]}
      >
        <EntityProvider
          entity={{
            apiVersion: 'backstage.io/v1alpha1',
            kind: 'System',
            metadata: { name: 'payments', namespace: 'default' },
            spec: { owner: 'group:default/payments-team' },
          }}
        >
          <EntityHealthContent />
        </EntityProvider>
      </TestApiProvider>,
    );
    expect(
      await screen.findByText('No health checks for this system yet'),
    ).toBeInTheDocument();
  });
});
