import type { LoggerService } from '@backstage/backend-plugin-api';
import {
  Entity,
  getCompoundEntityRef,
  parseEntityRef,
  RELATION_OWNED_BY,
  RELATION_OWNER_OF,
} from '@backstage/catalog-model';
import { InputError } from '@backstage/errors';
import {
  CatalogProcessorEmit,
  processingResult,
} from '@backstage/plugin-catalog-node';
import type { HealthCheckSpecProblem } from '@vigil/plugin-healthcheck-common';
import {
  CatalogOwnershipRule,
  coverageOwnershipProblems,
  coveringEntityOf,
  TargetOwners,
} from '@vigil/plugin-healthcheck-node';

/**
 * The processing error of an entity with problems, one per line when there
 * are several (a reason may hold "; " itself); nothing without problems.
 * @internal
 */
export function throwIfProblems(
  kind: string,
  entity: Entity,
  problems: readonly string[],
): void {
  const name = `${kind} '${entity.metadata.name}'`;
  if (problems.length === 1) {
    throw new InputError(`Invalid ${name}: ${problems[0]}`);
  }
  if (problems.length > 1) {
    throw new InputError(
      `Invalid ${name}, ${problems.length} problems:\n${problems
        .map(p => `- ${p}`)
        .join('\n')}`,
    );
  }
}

/**
 * Relates an entity to its `spec.owner` (a Group unless the ref names a
 * kind), both ways, as the catalog does for its own kinds.
 * @internal
 */
export function emitOwnerRelations(
  entity: Entity,
  emit: CatalogProcessorEmit,
): void {
  const owner = entity.spec?.owner;
  if (typeof owner !== 'string' || owner === '') {
    return;
  }
  const self = getCompoundEntityRef(entity);
  const target = parseEntityRef(owner, {
    defaultKind: 'Group',
    defaultNamespace: entity.metadata.namespace,
  });
  emit(
    processingResult.relation({
      source: self,
      type: RELATION_OWNED_BY,
      target,
    }),
  );
  emit(
    processingResult.relation({
      source: target,
      type: RELATION_OWNER_OF,
      target: self,
    }),
  );
}

/**
 * How a processor judges whom a MaintenanceWindow or ServiceLevelObjective
 * reaches: the rule, and a reader of its targets' owners from the catalog.
 * @internal
 */
export interface OwnershipJudgeOptions {
  rule: CatalogOwnershipRule;
  /** The owners of the refs the catalog holds (absent: not there, or not yet). */
  readOwners(refs: string[]): Promise<TargetOwners>;
  logger: Pick<LoggerService, 'warn'>;
}

/**
 * The problems of each target a MaintenanceWindow or ServiceLevelObjective
 * names that its owner does not own, at its field, judged with the owners
 * the catalog holds now. What it cannot judge passes: a target the catalog
 * does not hold (yet: the catalog processes a file's entities in no order),
 * or owners it could not read. The backend, which reads these entities,
 * judges every target again each time it reads them and refuses those.
 * @internal
 */
export async function ownershipProblems(
  entity: Entity,
  options: OwnershipJudgeOptions | undefined,
): Promise<HealthCheckSpecProblem[]> {
  const covering = coveringEntityOf(entity);
  if (!options || options.rule === 'any' || !covering) {
    return [];
  }
  let owners: TargetOwners;
  try {
    owners = await options.readOwners(covering.targets.map(t => t.ref));
  } catch (error) {
    options.logger.warn(
      `Could not read the owners of what ${covering.ref} names, so it is not judged here this time; the health-check backend judges it where it reads it: ${error}`,
    );
    return [];
  }
  return coverageOwnershipProblems(covering, owners, options.rule, {
    unknownTargets: 'allow',
  });
}
