import {
  Entity,
  getCompoundEntityRef,
  parseEntityRef,
} from '@backstage/catalog-model';
import { InputError } from '@backstage/errors';
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

/** A MaintenanceWindow covers the systems and checks it names. */
export const RELATION_COVERS = 'covers';
/** The reverse of {@link RELATION_COVERS}. */
export const RELATION_COVERED_BY = 'coveredBy';

/**
 * Accepts `MaintenanceWindow` entities into the catalog and relates each to
 * the systems and HealthChecks it covers. A malformed window fails here,
 * as a processing error on that entity alone that lists every problem
 * with its field path (see `validateMaintenanceWindowSpec`); its RRULE or
 * cron expression is read by the parser that computes its occurrences.
 * @internal
 */
export class MaintenanceWindowEntityProcessor implements CatalogProcessor {
  getProcessorName(): string {
    return 'MaintenanceWindowEntityProcessor';
  }

  async validateEntityKind(entity: Entity): Promise<boolean> {
    if (!isMaintenanceWindowEntity(entity)) {
      return false;
    }
    const problems = formatSpecProblems(
      validateMaintenanceWindowSpec(entity.spec, {
        recurrence: maintenanceRecurrenceRules,
        defaultNamespace: entity.metadata.namespace,
      }),
    );
    const name = `${MAINTENANCE_WINDOW_KIND} '${entity.metadata.name}'`;
    if (problems.length === 1) {
      throw new InputError(`Invalid ${name}: ${problems[0]}`);
    }
    if (problems.length > 1) {
      // Reasons may hold "; " themselves, so one problem per line.
      throw new InputError(
        `Invalid ${name}, ${problems.length} problems:\n${problems
          .map(p => `- ${p}`)
          .join('\n')}`,
      );
    }
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
