import {
  createApiFactory,
  createPlugin,
  createRoutableExtension,
  discoveryApiRef,
  fetchApiRef,
} from '@backstage/core-plugin-api';
import { healthcheckApiRef } from './api/HealthcheckApi';
import { HealthcheckClient } from './api/HealthcheckClient';
import { rootRouteRef } from './routes';

/**
 * The health-check plugin for Backstage's legacy frontend system.
 * @public
 */
export const healthcheckPlugin = createPlugin({
  id: 'healthcheck',
  apis: [
    createApiFactory({
      api: healthcheckApiRef,
      deps: { discoveryApi: discoveryApiRef, fetchApi: fetchApiRef },
      factory: deps => new HealthcheckClient(deps),
    }),
  ],
  routes: { root: rootRouteRef },
});

/**
 * The page listing every health check (legacy frontend system).
 * @public
 */
export const HealthcheckPage = healthcheckPlugin.provide(
  createRoutableExtension({
    name: 'HealthcheckPage',
    component: () => import('./components/ChecksPage').then(m => m.ChecksPage),
    mountPoint: rootRouteRef,
  }),
);
