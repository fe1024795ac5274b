import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import {
  catalogProcessingExtensionPoint,
  catalogServiceRef,
} from '@backstage/plugin-catalog-node';
import { eventsServiceRef } from '@backstage/plugin-events-node';
import {
  ProbeSecrets,
  readCatalogOwnershipRule,
  readConfigDuration,
  readTargetOwners,
  secretUsesOf,
} from '@vigil/plugin-healthcheck-node';
import { CatalogChangeNotifier } from './CatalogChangeNotifier';
import { catalogProbeTypes } from './catalogProbeTypes';
import { HealthCheckEntityProcessor } from './HealthCheckEntityProcessor';
import { MaintenanceWindowEntityProcessor } from './MaintenanceWindowEntityProcessor';
import { ServiceLevelObjectiveEntityProcessor } from './ServiceLevelObjectiveEntityProcessor';

/**
 * Teaches the catalog the `HealthCheck`, `MaintenanceWindow` and
 * `ServiceLevelObjective` kinds, so checks, their planned downtime and
 * their objectives can be declared as code next to
 * `catalog-info.yaml`, and tells the health-check backend which systems
 * each change to the catalog touches. A window or an objective that names
 * a system or check its `spec.owner` does not own is a processing error at
 * that field (`healthcheck.checks.fromCatalog`).
 *
 * @public
 */
export const catalogModuleHealthCheckEntityModel = createBackendModule({
  pluginId: 'catalog',
  moduleId: 'healthcheck-entity-model',
  register(reg) {
    reg.registerInit({
      deps: {
        catalog: catalogProcessingExtensionPoint,
        catalogApi: catalogServiceRef,
        auth: coreServices.auth,
        config: coreServices.rootConfig,
        events: eventsServiceRef,
        logger: coreServices.logger,
      },
      async init({ catalog, catalogApi, auth, config, events, logger }) {
        catalog.addProcessor(
          new HealthCheckEntityProcessor({
            probeTypes: catalogProbeTypes(config),
            // Names and where they may go; the values stay unused here.
            secrets: secretUsesOf(ProbeSecrets.fromConfig(config)),
            minIntervalMs: readConfigDuration(
              config,
              'healthcheck.minimumInterval',
            ),
            allowPlaceholderHosts:
              config.getOptionalBoolean(
                'healthcheck.targets.allowPlaceholderHosts',
              ) ?? false,
          }),
        );
        // Whom a window or an objective reaches is judged against the
        // owners the catalog holds, read as this module itself.
        const ownership = {
          rule: readCatalogOwnershipRule(config),
          readOwners: async (refs: string[]) =>
            readTargetOwners(
              catalogApi,
              refs,
              await auth.getOwnServiceCredentials(),
            ),
          logger,
        };
        catalog.addProcessor(
          new MaintenanceWindowEntityProcessor({ ownership }),
        );
        catalog.addProcessor(
          new ServiceLevelObjectiveEntityProcessor({ ownership }),
        );
        // Tells the health-check backend which systems a change touches.
        catalog.addProcessor(new CatalogChangeNotifier({ events, logger }));
      },
    });
  },
});
