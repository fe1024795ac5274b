import { maintenanceRecurrenceRules } from '@vigil/plugin-healthcheck-node';
import {
  formatSpecProblems,
  HealthCheckSpecValidationOptions,
  validateHealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import {
  Entity,
  getCompoundEntityRef,
  parseEntityRef,
  RELATION_DEPENDENCY_OF,
  RELATION_DEPENDS_ON,
} from '@backstage/catalog-model';
import {
  CatalogProcessor,
  CatalogProcessorEmit,
  LocationSpec,
  processingResult,
} from '@backstage/plugin-catalog-node';
import {
  HEALTHCHECK_KIND,
  isHealthCheckEntity,
} from '@vigil/plugin-healthcheck-common';
import { emitOwnerRelations, throwIfProblems } from './entityProblems';

/** A HealthCheck monitors the systems it is assigned to. */
export const RELATION_MONITORS = 'monitors';
/** The reverse of {@link RELATION_MONITORS}. */
export const RELATION_MONITORED_BY = 'monitoredBy';

/**
 * Options of {@link HealthCheckEntityProcessor}.
 * @internal
 */
export type HealthCheckEntityProcessorOptions = Pick<
  HealthCheckSpecValidationOptions,
  'probeTypes' | 'minIntervalMs' | 'secrets' | 'allowPlaceholderHosts'
>;

/**
 * Accepts `HealthCheck` entities into the catalog and relates each to its
 * owner, to the systems it monitors and to the components it targets. A malformed check fails here, as a
 * processing error on that entity alone that lists every problem with its
 * field path (see `validateHealthCheckSpec`).
 * @internal
 */
export class HealthCheckEntityProcessor implements CatalogProcessor {
  readonly #options: HealthCheckEntityProcessorOptions;

  constructor(options: HealthCheckEntityProcessorOptions = {}) {
    this.#options = options;
  }

  getProcessorName(): string {
    return 'HealthCheckEntityProcessor';
  }

  async validateEntityKind(entity: Entity): Promise<boolean> {
    if (!isHealthCheckEntity(entity)) {
      return false;
    }
    const problems = formatSpecProblems(
      validateHealthCheckSpec(entity.spec, {
        // A heartbeat's schedule is read as its deadlines are computed.
        cron: maintenanceRecurrenceRules,
        ...this.#options,
        defaultNamespace: entity.metadata.namespace,
      }),
    );
    throwIfProblems(HEALTHCHECK_KIND, entity, problems);
    return true;
  }

  async postProcessEntity(
    entity: Entity,
    _location: LocationSpec,
    emit: CatalogProcessorEmit,
  ): Promise<Entity> {
    if (!isHealthCheckEntity(entity)) {
      return entity;
    }
    const self = getCompoundEntityRef(entity);
    const relate = (
      target: ReturnType<typeof parseEntityRef>,
      forward: string,
      backward: string,
    ) => {
      emit(processingResult.relation({ source: self, type: forward, target }));
      emit(
        processingResult.relation({
          source: target,
          type: backward,
          target: self,
        }),
      );
    };
    const namespace = { defaultNamespace: entity.metadata.namespace };
    emitOwnerRelations(entity, emit);
    for (const system of entity.spec.systems) {
      const target = parseEntityRef(system, {
        defaultKind: 'System',
        ...namespace,
      });
      relate(target, RELATION_MONITORS, RELATION_MONITORED_BY);
    }
    // The check's verdict depends on the components it probes. The catalog
    // graph knows dependsOn/dependencyOf out of the box and draws the pair
    // as one edge, where a relation of our own would need configuring. It
    // misleads nothing: a system's upstream is read from the dependsOn of
    // the system and its members (a HealthCheck is neither), and the
    // dependency cards of a Component page list Components only.
    for (const component of entity.spec.components ?? []) {
      const target = parseEntityRef(component, {
        defaultKind: 'Component',
        ...namespace,
      });
      relate(target, RELATION_DEPENDS_ON, RELATION_DEPENDENCY_OF);
    }
    return entity;
  }
}
