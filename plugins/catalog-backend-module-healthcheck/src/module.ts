import {
  coreServices,
  createBackendModule,
} from '@backstage/backend-plugin-api';
import { catalogProcessingExtensionPoint } from '@backstage/plugin-catalog-node';
import { eventsServiceRef } from '@backstage/plugin-events-node';
import {
  ProbeSecrets,
  readConfigDuration,
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
 * each change to the catalog touches.
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
        config: coreServices.rootConfig,
        events: eventsServiceRef,
        logger: coreServices.logger,
      },
      async init({ catalog, config, events, logger }) {
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
        catalog.addProcessor(new MaintenanceWindowEntityProcessor());
        catalog.addProcessor(new ServiceLevelObjectiveEntityProcessor());
        // Tells the health-check backend which systems a change touches.
        catalog.addProcessor(new CatalogChangeNotifier({ events, logger }));
      },
    });
  },
});
