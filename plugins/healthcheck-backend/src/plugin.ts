import {
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import { healthCheckProbesExtensionPoint } from '@vigil/plugin-healthcheck-node';
import { DatabaseHealthcheckStore } from './database/DatabaseHealthcheckStore';
import { ProbeTypeRegistry } from './probes/ProbeTypeRegistry';
import { createRouter } from './service/router';

/**
 * The Vigil health-check backend plugin, served under `/api/healthcheck`.
 *
 * @public
 */
export const healthcheckPlugin = createBackendPlugin({
  pluginId: 'healthcheck',
  register(env) {
    const probeTypes = new ProbeTypeRegistry();
    env.registerExtensionPoint(healthCheckProbesExtensionPoint, {
      addProbeType: probeType => probeTypes.add(probeType),
    });

    env.registerInit({
      deps: {
        logger: coreServices.logger,
        database: coreServices.database,
        httpRouter: coreServices.httpRouter,
        httpAuth: coreServices.httpAuth,
        catalog: catalogServiceRef,
      },
      async init({ logger, database, httpRouter, httpAuth, catalog }) {
        const store = await DatabaseHealthcheckStore.create({ database });
        httpRouter.use(
          await createRouter({ httpAuth, store, catalog, probeTypes }),
        );
        httpRouter.addAuthPolicy({ path: '/health', allow: 'unauthenticated' });
        logger.info(
          `Health checks ready; probe types: ${
            probeTypes.list().join(', ') || 'none yet'
          }`,
        );
      },
    });
  },
});
