import {
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import { metricsServiceRef } from '@backstage/backend-plugin-api/alpha';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import { healthcheckPermissions } from '@vigil/plugin-healthcheck-common';
import { healthCheckProbesExtensionPoint } from '@vigil/plugin-healthcheck-node';
import {
  createTickClaims,
  DatabaseClaimStore,
  InstanceMembership,
  TickClaimer,
} from './claims';
import { DatabaseHealthcheckStore } from './database/DatabaseHealthcheckStore';
import { ProbeEngine } from './executor/ProbeEngine';
import { createBuiltinProbeTypes } from './probes/builtinProbeTypes';
import { readNetworkPolicy } from './probes/networkGuard';
import { ProbeSecrets } from './probes/secrets';
import { ProbeTypeRegistry } from './probes/ProbeTypeRegistry';
import { createCatalogSliceLoader } from './reconciler/createCatalogSliceLoader';
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
        auth: coreServices.auth,
        catalog: catalogServiceRef,
        config: coreServices.rootConfig,
        lifecycle: coreServices.lifecycle,
        metrics: metricsServiceRef,
        permissions: coreServices.permissions,
        permissionsRegistry: coreServices.permissionsRegistry,
        auditor: coreServices.auditor,
      },
      async init({
        logger,
        database,
        httpRouter,
        httpAuth,
        auth,
        catalog,
        config,
        lifecycle,
        metrics,
        permissions,
        permissionsRegistry,
        auditor,
      }) {
        for (const probeType of createBuiltinProbeTypes({
          networkPolicy: readNetworkPolicy(config),
          secrets: ProbeSecrets.fromConfig(config),
        })) {
          probeTypes.add(probeType);
        }
        const store = await DatabaseHealthcheckStore.create({ database });
        const claimStore = await DatabaseClaimStore.create({ database });
        const membership = await InstanceMembership.start({
          store: claimStore,
          logger,
        });
        const claimer = new TickClaimer({
          store: claimStore,
          membership,
          logger,
          metrics,
        });
        const engine = ProbeEngine.fromConfig({
          config,
          logger,
          probeTypes,
          metrics,
          loader: createCatalogSliceLoader({
            catalog,
            auth,
            logger,
            listStoredChecks: () => store.listChecks(),
          }),
          claims: createTickClaims({ claimer, store: claimStore, membership }),
        });
        lifecycle.addStartupHook(() => engine.start());
        lifecycle.addShutdownHook(async () => {
          await engine.stop();
          await membership.stop();
        });

        permissionsRegistry.addPermissions(healthcheckPermissions);
        httpRouter.use(
          await createRouter({
            logger,
            httpAuth,
            permissions,
            auditor,
            store,
            catalog,
            probeTypes,
            // An edit through the API shows up in the slices at once.
            onChecksChanged: () => engine.scheduler.refreshDesired(),
          }),
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
