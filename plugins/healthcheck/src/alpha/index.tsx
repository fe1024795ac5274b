import {
  ApiBlueprint,
  createFrontendPlugin,
  discoveryApiRef,
  fetchApiRef,
  PageBlueprint,
} from '@backstage/frontend-plugin-api';
import { RiHeartPulseLine } from '@remixicon/react';
import { healthcheckApiRef } from '../api/HealthcheckApi';
import { HealthcheckClient } from '../api/HealthcheckClient';
import { rootRouteRef } from '../routes';

const healthcheckApi = ApiBlueprint.make({
  params: defineParams =>
    defineParams({
      api: healthcheckApiRef,
      deps: { discoveryApi: discoveryApiRef, fetchApi: fetchApiRef },
      factory: deps => new HealthcheckClient(deps),
    }),
});

const healthcheckPage = PageBlueprint.make({
  params: {
    path: '/healthcheck',
    title: 'Health',
    icon: <RiHeartPulseLine />,
    routeRef: rootRouteRef,
    loader: () =>
      import('../components/ChecksPage').then(m => <m.ChecksPage />),
  },
});

/**
 * The health-check plugin for Backstage's new frontend system.
 * @alpha
 */
export default createFrontendPlugin({
  pluginId: 'healthcheck',
  title: 'Health',
  icon: <RiHeartPulseLine />,
  routes: { root: rootRouteRef },
  extensions: [healthcheckApi, healthcheckPage],
});
