import type { BackstageCredentials } from '@backstage/backend-plugin-api';
import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import type { JsonObject } from '@backstage/types';
import {
  canonicalEntityRef,
  HEALTHCHECK_API_VERSION,
  MAINTENANCE_WINDOW_KIND,
  SERVICE_LEVEL_OBJECTIVE_KIND,
} from '@vigil/plugin-healthcheck-common';
import type {
  HealthCheckSpecProblem,
  ProblemPath,
} from '@vigil/plugin-healthcheck-common';

/**
 * Which systems and checks an entity declared in the catalog may reach:
 * `owner`, only those its `spec.owner` owns; `any`, every one it names.
 * One rule for every kind (HealthCheck, MaintenanceWindow,
 * ServiceLevelObjective), set by {@link CATALOG_OWNERSHIP_KEY}.
 * @public
 */
export type CatalogOwnershipRule = 'owner' | 'any';

/**
 * The setting of the {@link CatalogOwnershipRule}. It was the HealthCheck
 * kind's before the others followed the same rule, hence its name.
 * @public
 */
export const CATALOG_OWNERSHIP_KEY = 'healthcheck.checks.fromCatalog';

const RULES: readonly CatalogOwnershipRule[] = ['owner', 'any'];

/**
 * Reads {@link CATALOG_OWNERSHIP_KEY}; `owner` when it is not set.
 * @throws InputError naming the key, for a value it does not know.
 * @public
 */
export function readCatalogOwnershipRule(config: Config): CatalogOwnershipRule {
  const value = config.getOptionalString(CATALOG_OWNERSHIP_KEY) ?? 'owner';
  if (!(RULES as readonly string[]).includes(value)) {
    throw new InputError(
      `Invalid ${CATALOG_OWNERSHIP_KEY} '${value}': use ${RULES.join(' or ')}`,
    );
  }
  return value as CatalogOwnershipRule;
}

/**
 * A system or a HealthCheck that an entity names, at its field.
 * @public
 */
export interface CoveredTarget {
  /** Where the entity names it, such as `['spec', 'systems', 0]`. */
  path: ProblemPath;
  /** Its canonical (lower-case) entity ref. */
  ref: string;
}

/**
 * An entity that reaches other teams' systems unless the rule stops it: a
 * MaintenanceWindow (it holds notifications and leaves time out of SLOs) or
 * a ServiceLevelObjective (it pages the system's owner).
 * @public
 */
export interface CoveringEntity {
  /** Which of the two kinds it is, for messages. */
  kind: typeof MAINTENANCE_WINDOW_KIND | typeof SERVICE_LEVEL_OBJECTIVE_KIND;
  /** Its canonical (lower-case) entity ref. */
  ref: string;
  /** The canonical ref of its `spec.owner` (kind Group by default), if any. */
  owner?: string;
  /** What it names, in the order it names them; refs that do not parse are left out. */
  targets: CoveredTarget[];
}

/**
 * A catalog entity, as much of it as ownership is judged by.
 * @public
 */
export interface CatalogEntityLike {
  /** Judged when present: only `vigil.dev/v1alpha1` kinds cover anything. */
  apiVersion?: string;
  /** The entity's kind, compared without regard to case. */
  kind: string;
  /** Its name and namespace (`default` when absent). */
  metadata: { name: string; namespace?: string };
  /** What it names, and its `owner`. */
  spec?: JsonObject;
}

const COVERING_KINDS = [
  MAINTENANCE_WINDOW_KIND,
  SERVICE_LEVEL_OBJECTIVE_KIND,
] as const;

/**
 * The owner and targets of a MaintenanceWindow or ServiceLevelObjective
 * entity; `undefined` for any other kind.
 * @public
 */
export function coveringEntityOf(
  entity: CatalogEntityLike,
): CoveringEntity | undefined {
  const kind = COVERING_KINDS.find(
    k => k.toLowerCase() === entity.kind.toLowerCase(),
  );
  if (
    !kind ||
    (entity.apiVersion !== undefined &&
      entity.apiVersion !== HEALTHCHECK_API_VERSION)
  ) {
    return undefined;
  }
  const defaultNamespace = entity.metadata.namespace ?? 'default';
  const spec = entity.spec ?? {};
  const targets: CoveredTarget[] = [];
  const add = (value: unknown, path: ProblemPath, defaultKind: string) => {
    const ref =
      typeof value === 'string'
        ? canonicalEntityRef(value, { defaultKind, defaultNamespace })
        : undefined;
    if (ref) {
      targets.push({ path, ref });
    }
  };
  if (kind === MAINTENANCE_WINDOW_KIND) {
    for (const [field, defaultKind] of [
      ['systems', 'system'],
      ['checks', 'healthcheck'],
    ] as const) {
      const list = spec[field];
      if (Array.isArray(list)) {
        list.forEach((value, index) =>
          add(value, ['spec', field, index], defaultKind),
        );
      }
    }
  } else {
    add(spec.system, ['spec', 'system'], 'system');
    add(spec.check, ['spec', 'check'], 'healthcheck');
  }
  const owner =
    typeof spec.owner === 'string'
      ? canonicalEntityRef(spec.owner, {
          defaultKind: 'group',
          defaultNamespace,
        })
      : undefined;
  return {
    kind,
    ref: `${kind.toLowerCase()}:${defaultNamespace}/${
      entity.metadata.name
    }`.toLowerCase(),
    ...(owner ? { owner } : {}),
    targets,
  };
}

/**
 * What the catalog holds of each target, by canonical ref: its owner's
 * canonical ref (kind Group and its own namespace by default), or no owner.
 * A ref absent from the map is not in the catalog.
 * @public
 */
export type TargetOwners = ReadonlyMap<string, { owner?: string }>;

/**
 * Why an entity may not name each of its targets under the rule, at the
 * target's field; empty when it may name them all. Under `owner` a target
 * must be in the catalog and owned by the entity's owner; a target absent
 * from `owners` is refused, unless `unknownTargets` is `allow` (for a
 * caller that cannot tell "not in the catalog" from "not stitched yet").
 * @public
 */
export function coverageOwnershipProblems(
  entity: CoveringEntity,
  owners: TargetOwners,
  rule: CatalogOwnershipRule,
  options: { unknownTargets?: 'refuse' | 'allow' } = {},
): HealthCheckSpecProblem[] {
  if (rule === 'any') {
    return [];
  }
  const ruleText = `${
    entity.kind === MAINTENANCE_WINDOW_KIND
      ? 'a MaintenanceWindow covers only systems and checks'
      : 'a ServiceLevelObjective names only a system and a check'
  } its owner owns (${CATALOG_OWNERSHIP_KEY}: owner)`;
  const problems: HealthCheckSpecProblem[] = [];
  for (const target of entity.targets) {
    const found = owners.get(target.ref);
    if (!found) {
      if (options.unknownTargets !== 'allow') {
        problems.push({
          path: target.path,
          reason: `${target.ref} is not in the catalog, so no one owns it; ${ruleText}`,
        });
      }
      continue;
    }
    if (entity.owner !== undefined && entity.owner === found.owner) {
      continue;
    }
    problems.push({
      path: target.path,
      reason: `${entity.ref} is owned by ${entity.owner ?? 'no one'} and ${
        target.ref
      } by ${found.owner ?? 'no one'}; ${ruleText}. Give it spec.owner ${
        found.owner ?? '(the target has no owner to give)'
      }, or let the owner of ${target.ref} declare it`,
    });
  }
  return problems;
}

/**
 * The part of the catalog's client that {@link readTargetOwners} uses.
 * @public
 */
export interface TargetOwnerCatalog {
  /** The entities of the refs, in their order; `undefined` for one not held. */
  getEntitiesByRefs(
    request: { entityRefs: string[]; fields?: string[] },
    options: { credentials: BackstageCredentials },
  ): Promise<{ items: Array<CatalogEntityLike | undefined> }>;
}

/** Refs per catalog request, so a request body stays small. */
const REFS_PER_REQUEST = 500;

/**
 * The owners of some entities, read from the catalog (with the caller's
 * credentials: pass the plugin's own, so what is judged does not depend on
 * who asks). Refs the catalog does not hold are absent from the answer.
 * @public
 */
export async function readTargetOwners(
  catalog: TargetOwnerCatalog,
  refs: Iterable<string>,
  credentials: BackstageCredentials,
): Promise<Map<string, { owner?: string }>> {
  const wanted = [...new Set(refs)];
  const owners = new Map<string, { owner?: string }>();
  for (let at = 0; at < wanted.length; at += REFS_PER_REQUEST) {
    const entityRefs = wanted.slice(at, at + REFS_PER_REQUEST);
    const { items } = await catalog.getEntitiesByRefs(
      {
        entityRefs,
        fields: ['kind', 'metadata.name', 'metadata.namespace', 'spec.owner'],
      },
      { credentials },
    );
    entityRefs.forEach((ref, index) => {
      const entity = items[index];
      if (!entity) {
        return;
      }
      const owner =
        typeof entity.spec?.owner === 'string'
          ? canonicalEntityRef(entity.spec.owner, {
              defaultKind: 'group',
              defaultNamespace: entity.metadata.namespace ?? 'default',
            })
          : undefined;
      owners.set(ref, owner ? { owner } : {});
    });
  }
  return owners;
}
