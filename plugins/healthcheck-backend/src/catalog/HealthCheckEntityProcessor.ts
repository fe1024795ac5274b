import {
  Entity,
  getCompoundEntityRef,
  parseEntityRef,
  RELATION_OWNED_BY,
  RELATION_OWNER_OF,
} from '@backstage/catalog-model';
import { InputError } from '@backstage/errors';
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

/** A HealthCheck monitors the systems it is assigned to. */
export const RELATION_MONITORS = 'monitors';
/** The reverse of {@link RELATION_MONITORS}. */
export const RELATION_MONITORED_BY = 'monitoredBy';

/**
 * Accepts `HealthCheck` entities into the catalog and relates each to its
 * owner and to the systems it monitors. A malformed check fails here, as a
 * processing error on that entity alone.
 */
export class HealthCheckEntityProcessor implements CatalogProcessor {
  getProcessorName(): string {
    return 'HealthCheckEntityProcessor';
  }

  async validateEntityKind(entity: Entity): Promise<boolean> {
    if (!isHealthCheckEntity(entity)) {
      return false;
    }
    const problems = findSpecProblems(entity.spec);
    if (problems.length > 0) {
      throw new InputError(
        `Invalid ${HEALTHCHECK_KIND} '${entity.metadata.name}': ${problems.join(
          '; ',
        )}`,
      );
    }
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
    if (entity.spec.owner) {
      const owner = parseEntityRef(entity.spec.owner, {
        defaultKind: 'Group',
        ...namespace,
      });
      relate(owner, RELATION_OWNED_BY, RELATION_OWNER_OF);
    }
    for (const system of entity.spec.systems) {
      const target = parseEntityRef(system, {
        defaultKind: 'System',
        ...namespace,
      });
      relate(target, RELATION_MONITORS, RELATION_MONITORED_BY);
    }
    return entity;
  }
}

/** The spec fields every check needs; the full schema is checked on load. */
function findSpecProblems(spec: Record<string, unknown>): string[] {
  const problems: string[] = [];
  if (typeof spec.type !== 'string' || spec.type === '') {
    problems.push('spec.type is required and must be a string such as "http"');
  }
  if (typeof spec.target !== 'string' || spec.target === '') {
    problems.push('spec.target is required and must be a string');
  }
  const systems = spec.systems;
  if (
    !Array.isArray(systems) ||
    systems.length === 0 ||
    systems.some(s => typeof s !== 'string' || s === '')
  ) {
    problems.push(
      'spec.systems is required and must list at least one system entity ref',
    );
  }
  if (spec.owner !== undefined && typeof spec.owner !== 'string') {
    problems.push('spec.owner must be an entity ref string');
  }
  return problems;
}
