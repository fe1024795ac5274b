import {
  mockApis,
  renderInTestApp,
  TestApiProvider,
} from '@backstage/test-utils';
import { permissionApiRef } from '@backstage/plugin-permission-react';
import { screen } from '@testing-library/react';
import { getComponentData } from '@backstage/core-plugin-api';
import { Route, Routes } from 'react-router-dom';
import { catalogApiRef, EntityProvider } from '@backstage/plugin-catalog-react';
import { catalogApiMock } from '@backstage/plugin-catalog-react/testUtils';
import { healthcheckApiRef } from './api/HealthcheckApi';
import * as legacyExports from './index';
import {
  EntityHealthContent,
  EntityHealthOverviewCard,
  HealthcheckPage,
  healthcheckPlugin,
  HealthStatusBadge,
} from './index';
import { paymentsApiComponent } from './components/HealthStatusBadge/__testUtils__/fixtures';
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

  it('provides every component of its main entry as an extension of the plugin, named as exported', () => {
    const components = Object.entries(legacyExports).filter(
      ([name, value]) => typeof value === 'function' && /^[A-Z]/.test(name),
    );
    const dataOf = (Component: any, key: string) =>
      getComponentData(<Component />, key);
    const extensions = components
      .filter(([, component]) => dataOf(component, 'core.plugin'))
      .map(([name, component]) => {
        expect(dataOf(component, 'core.plugin')).toBe(healthcheckPlugin);
        expect(dataOf(component, 'core.extensionName')).toBe(name);
        return name;
      });
    // What is not an extension: the client class and the graph's node
    // renderer, which the graph calls as a function.
    expect(
      components.map(([name]) => name).filter(n => !extensions.includes(n)),
    ).toEqual(['HealthEntityNode', 'HealthcheckClient']);
  });

  it('renders its lazy and its inline extensions', async () => {
    await renderInTestApp(
      <TestApiProvider
        apis={[
          [
            healthcheckApiRef,
            {
              getSystem: async () => undefined,
              badgeUrl: async () => 'http://badge',
            },
          ],
        ]}
      >
        <EntityProvider entity={paymentsApiComponent}>
          <EntityHealthOverviewCard />
          <HealthStatusBadge status="healthy" />
        </EntityProvider>
      </TestApiProvider>,
    );
    expect(await screen.findByText('Healthy')).toBeInTheDocument();
    expect(
      await screen.findByText('No health checks yet', { exact: false }),
    ).toBeInTheDocument();
  });
});
