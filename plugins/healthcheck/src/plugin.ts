import {
  createApiFactory,
  createComponentExtension,
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
    component: () =>
      import('./components/HealthOverviewPage').then(m => m.HealthOverviewPage),
    mountPoint: rootRouteRef,
  }),
);

/**
 * The Health tab of System and Component entities (legacy frontend system):
 * `<EntityLayout.Route path="/health" title="Health" if={isHealthTabAvailable}>`.
 * @public
 */
export const EntityHealthContent = healthcheckPlugin.provide(
  createComponentExtension({
    name: 'EntityHealthContent',
    component: {
      lazy: () =>
        import('./components/HealthTab').then(m => m.EntityHealthContent),
    },
  }),
);
