import { Entity } from '@backstage/catalog-model';
import {
  CatalogProcessor,
  CatalogProcessorEmit,
  LocationSpec,
} from '@backstage/plugin-catalog-node';
import {
  formatSpecProblems,
  isServiceLevelObjectiveEntity,
  SERVICE_LEVEL_OBJECTIVE_KIND,
  validateServiceLevelObjectiveSpec,
} from '@vigil/plugin-healthcheck-common';
import {
  emitOwnerRelations,
  OwnershipJudgeOptions,
  ownershipProblems,
  throwIfProblems,
} from './entityProblems';

/**
 * Options of {@link ServiceLevelObjectiveEntityProcessor}.
 * @internal
 */
export interface ServiceLevelObjectiveEntityProcessorOptions {
  /**
   * Judges the system and check an objective names against its owner
   * (`healthcheck.checks.fromCatalog`); without it, only the spec is judged.
   */
  ownership?: OwnershipJudgeOptions;
}

/**
 * Accepts `ServiceLevelObjective` entities into the catalog and relates
 * each to its owner. A malformed objective fails here, as a processing
 * error on that entity alone that lists every problem with its field path
 * (see `validateServiceLevelObjectiveSpec`); so does an objective for a
 * system or check its owner does not own, at that field (see
 * `ownershipProblems`): its alerts would page another team.
 * @internal
 */
export class ServiceLevelObjectiveEntityProcessor implements CatalogProcessor {
  readonly #options: ServiceLevelObjectiveEntityProcessorOptions;

  constructor(options: ServiceLevelObjectiveEntityProcessorOptions = {}) {
    this.#options = options;
  }

  getProcessorName(): string {
    return 'ServiceLevelObjectiveEntityProcessor';
  }

  async validateEntityKind(entity: Entity): Promise<boolean> {
    if (!isServiceLevelObjectiveEntity(entity)) {
      return false;
    }
    let problems = formatSpecProblems(
      validateServiceLevelObjectiveSpec(entity.spec, {
        defaultNamespace: entity.metadata.namespace,
      }),
    );
    if (problems.length === 0) {
      problems = formatSpecProblems(
        await ownershipProblems(entity, this.#options.ownership),
      );
    }
    throwIfProblems(SERVICE_LEVEL_OBJECTIVE_KIND, entity, problems);
    return true;
  }

  async postProcessEntity(
    entity: Entity,
    _location: LocationSpec,
    emit: CatalogProcessorEmit,
  ): Promise<Entity> {
    if (isServiceLevelObjectiveEntity(entity)) {
      emitOwnerRelations(entity, emit);
    }
    return entity;
  }
}
