import {
  coreServices,
  createBackendPlugin,
} from '@backstage/backend-plugin-api';
import { metricsServiceRef } from '@backstage/backend-plugin-api/alpha';
import { catalogServiceRef } from '@backstage/plugin-catalog-node';
import { healthcheckPermissions } from '@vigil/plugin-healthcheck-common';
import { healthCheckProbesExtensionPoint } from '@vigil/plugin-healthcheck-node';
import { DatabaseHealthcheckStore } from './database/DatabaseHealthcheckStore';
import { readConfigDuration } from './config';
import { createProbingInstance } from './executor/createProbingInstance';
import { createBuiltinProbeTypes } from './probes/builtinProbeTypes';
import { readNetworkPolicy } from './probes/networkGuard';
import { ProbeSecrets } from './probes/secrets';
import { ProbeTypeRegistry } from './probes/ProbeTypeRegistry';
import { DatabaseSliceStore } from './database/DatabaseSliceStore';
import {
  CatalogChangePoller,
  createReconcileLock,
  readReconcileSettings,
  Reconciler,
  scheduleReconcileTasks,
} from './reconciler';
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
        scheduler: coreServices.scheduler,
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
        scheduler,
      }) {
        for (const probeType of createBuiltinProbeTypes({
          networkPolicy: readNetworkPolicy(config),
          secrets: ProbeSecrets.fromConfig(config),
        })) {
          probeTypes.add(probeType);
        }
        const store = await DatabaseHealthcheckStore.create({ database });
        const slices = await DatabaseSliceStore.create({ database });
        const reconciler = new Reconciler({
          catalog,
          auth,
          logger: logger.child({ component: 'reconciler' }),
          listStoredChecks: () => store.listChecks(),
          slices,
          lock: createReconcileLock(slices.knex),
        });
        const probing = await createProbingInstance({
          config,
          logger,
          database,
          slices,
          probeTypes,
          metrics,
        });
        await scheduleReconcileTasks({
          scheduler,
          logger,
          settings: readReconcileSettings(config),
          reconciler,
          poller: new CatalogChangePoller({
            catalog,
            auth,
            logger: logger.child({ component: 'catalog-changes' }),
            slices,
            reconciler,
          }),
          slices,
        });
        lifecycle.addStartupHook(() => probing.start());
        lifecycle.addShutdownHook(() => probing.stop());

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
            minIntervalMs: readConfigDuration(
              config,
              'healthcheck.minimumInterval',
            ),
            // An edit through the API converges its systems at once, and
            // this instance picks the result up without waiting.
            onChecksChanged: change => {
              reconciler
                .reconcileSystems(change.systems)
                .then(() => probing.engine.scheduler.refreshDesired())
                .catch(error =>
                  logger.warn(
                    `Reconciling the systems of check ${change.checkId} failed; the next full pass will`,
                    error,
                  ),
                );
            },
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
