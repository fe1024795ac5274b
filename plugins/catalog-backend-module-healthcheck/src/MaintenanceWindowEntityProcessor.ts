import {
  Entity,
  getCompoundEntityRef,
  parseEntityRef,
} from '@backstage/catalog-model';
import {
  CatalogProcessor,
  CatalogProcessorEmit,
  LocationSpec,
  processingResult,
} from '@backstage/plugin-catalog-node';
import {
  formatSpecProblems,
  isMaintenanceWindowEntity,
  MAINTENANCE_WINDOW_KIND,
  validateMaintenanceWindowSpec,
} from '@vigil/plugin-healthcheck-common';
import { maintenanceRecurrenceRules } from '@vigil/plugin-healthcheck-node';
import {
  emitOwnerRelations,
  OwnershipJudgeOptions,
  ownershipProblems,
  throwIfProblems,
} from './entityProblems';

/** A MaintenanceWindow covers the systems and checks it names. */
export const RELATION_COVERS = 'covers';
/** The reverse of {@link RELATION_COVERS}. */
export const RELATION_COVERED_BY = 'coveredBy';

/**
 * Options of {@link MaintenanceWindowEntityProcessor}.
 * @internal
 */
export interface MaintenanceWindowEntityProcessorOptions {
  /**
   * Judges each system and check a window covers against its owner
   * (`healthcheck.checks.fromCatalog`); without it, only the spec is judged.
   */
  ownership?: OwnershipJudgeOptions;
}

/**
 * Accepts `MaintenanceWindow` entities into the catalog and relates each to
 * its owner and to the systems and HealthChecks it covers. A malformed
 * window fails here, as a processing error on that entity alone that lists
 * every problem with its field path (see `validateMaintenanceWindowSpec`);
 * its RRULE or cron expression is read by the parser that computes its
 * occurrences. So does a window that covers a system or check its owner
 * does not own, at that field (see `ownershipProblems`).
 * @internal
 */
export class MaintenanceWindowEntityProcessor implements CatalogProcessor {
  readonly #options: MaintenanceWindowEntityProcessorOptions;

  constructor(options: MaintenanceWindowEntityProcessorOptions = {}) {
    this.#options = options;
  }

  getProcessorName(): string {
    return 'MaintenanceWindowEntityProcessor';
  }

  async validateEntityKind(entity: Entity): Promise<boolean> {
    if (!isMaintenanceWindowEntity(entity)) {
      return false;
    }
    let problems = formatSpecProblems(
      validateMaintenanceWindowSpec(entity.spec, {
        recurrence: maintenanceRecurrenceRules,
        defaultNamespace: entity.metadata.namespace,
      }),
    );
    if (problems.length === 0) {
      problems = formatSpecProblems(
        await ownershipProblems(entity, this.#options.ownership),
      );
    }
    throwIfProblems(MAINTENANCE_WINDOW_KIND, entity, problems);
    return true;
  }

  async postProcessEntity(
    entity: Entity,
    _location: LocationSpec,
    emit: CatalogProcessorEmit,
  ): Promise<Entity> {
    if (!isMaintenanceWindowEntity(entity)) {
      return entity;
    }
    emitOwnerRelations(entity, emit);
    const self = getCompoundEntityRef(entity);
    const namespace = { defaultNamespace: entity.metadata.namespace };
    const covered = [
      ...(entity.spec.systems ?? []).map(ref =>
        parseEntityRef(ref, { defaultKind: 'System', ...namespace }),
      ),
      ...(entity.spec.checks ?? []).map(ref =>
        parseEntityRef(ref, { defaultKind: 'HealthCheck', ...namespace }),
      ),
    ];
    for (const target of covered) {
      emit(
        processingResult.relation({
          source: self,
          type: RELATION_COVERS,
          target,
        }),
      );
      emit(
        processingResult.relation({
          source: target,
          type: RELATION_COVERED_BY,
          target: self,
        }),
      );
    }
    return entity;
  }
}
