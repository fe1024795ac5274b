import { Entity } from '@backstage/catalog-model';
import { InputError } from '@backstage/errors';
import { CatalogProcessor } from '@backstage/plugin-catalog-node';
import {
  formatSpecProblems,
  isServiceLevelObjectiveEntity,
  SERVICE_LEVEL_OBJECTIVE_KIND,
  validateServiceLevelObjectiveSpec,
} from '@vigil/plugin-healthcheck-common';

/**
 * Accepts `ServiceLevelObjective` entities into the catalog. A malformed
 * objective fails here, as a processing error on that entity alone that
 * lists every problem with its field path (see
 * `validateServiceLevelObjectiveSpec`).
 * @internal
 */
export class ServiceLevelObjectiveEntityProcessor implements CatalogProcessor {
  getProcessorName(): string {
    return 'ServiceLevelObjectiveEntityProcessor';
  }

  async validateEntityKind(entity: Entity): Promise<boolean> {
    if (!isServiceLevelObjectiveEntity(entity)) {
      return false;
    }
    const problems = formatSpecProblems(
      validateServiceLevelObjectiveSpec(entity.spec, {
        defaultNamespace: entity.metadata.namespace,
      }),
    );
    if (problems.length === 1) {
      throw new InputError(
        `Invalid ${SERVICE_LEVEL_OBJECTIVE_KIND} '${entity.metadata.name}': ${problems[0]}`,
      );
    }
    if (problems.length > 1) {
      throw new InputError(
        `Invalid ${SERVICE_LEVEL_OBJECTIVE_KIND} '${entity.metadata.name}', ${
          problems.length
        } problems:\n${problems.map(p => `- ${p}`).join('\n')}`,
      );
    }
    return true;
  }
}
