import { createFrontendPlugin } from '@backstage/frontend-plugin-api';
import { RiHeartPulseLine } from '@remixicon/react';
import { rootRouteRef } from '../routes';
import {
  entityHealthBadgeLink,
  entityHealthCard,
  entityHealthContent,
  entityHealthDependencyMapCard,
  entityHealthStatusLink,
  healthcheckApi,
  healthcheckPage,
} from './extensions';

export { catalogGraphHealthModule } from './catalogGraphHealthModule';

/**
 * The health-check plugin for Backstage's new frontend system.
 * @alpha
 */
export default createFrontendPlugin({
  pluginId: 'healthcheck',
  title: 'Health',
  icon: <RiHeartPulseLine />,
  info: { packageJson: () => import('../../package.json') },
  routes: { root: rootRouteRef },
  extensions: [
    healthcheckApi,
    healthcheckPage,
    entityHealthContent,
    entityHealthCard,
    entityHealthDependencyMapCard,
    entityHealthStatusLink,
    entityHealthBadgeLink,
  ],
});
