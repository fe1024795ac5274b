import {
  Entity,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import {
  canonicalEnvironmentName,
  DEFAULT_ENVIRONMENT,
  ENVIRONMENT_ANNOTATION,
  ENVIRONMENTS_ANNOTATION,
} from '@vigil/plugin-healthcheck-common';

/**
 * Something odd about a system's environments. Never fatal: the environment
 * concerned is kept, so a typo shows as a warning and an extra slice rather
 * than as a slice that silently disappears.
 * @internal
 */
export interface EnvironmentProblem {
  /** The entity whose annotation is concerned. */
  entityRef: string;
  /** The canonical environment name, when one is concerned. */
  environment?: string;
  message: string;
}

/**
 * A system's effective environments, and what looked wrong on the way.
 * @internal
 */
export interface ResolvedEnvironments {
  /** Canonical (lower-case) names, never empty. */
  environments: string[];
  problems: EnvironmentProblem[];
}

const MEMBER_KINDS = new Set(['component', 'resource']);

/**
 * A system's effective environments, as DESIGN.md defines them: the names in
 * the System's `vigil.dev/environments` annotation (comma separated), plus
 * the one each member Component or Resource names in its
 * `vigil.dev/environment` annotation; `default` when there are none.
 *
 * - Names are trimmed and compared without regard to case, and reported in
 *   lower case. Lower case rather than the first spelling seen, because the
 *   catalog returns members in no fixed order: an id built from "the first
 *   spelling" could change between two passes and reschedule (and lose the
 *   history of) a slice for nothing. Spellings that differ only in case are
 *   reported as a problem.
 * - Order: the System's own list as written, then the names only members
 *   add, sorted.
 * - `members` may be a superset: only Components and Resources whose
 *   `spec.system` points at this system count; other entities are ignored.
 * - `environmentVocabulary` is the names of the catalog's `Environment`
 *   entities. When it is given and not empty, a name outside it is reported
 *   and kept: a platform team would rather see a warning than lose a slice.
 *   `default` needs no Environment entity.
 * - A member annotation is meant to name one environment; one that lists
 *   several (`production,staging`) is reported and each name counts.
 *
 * @internal
 */
export function resolveEnvironments(options: {
  system: Entity;
  members: readonly Entity[];
  environmentVocabulary?: readonly string[];
}): ResolvedEnvironments {
  const { system, members } = options;
  const systemRef = stringifyEntityRef(system);
  const problems: EnvironmentProblem[] = [];
  // canonical name -> spellings seen, with where
  const spellings = new Map<string, Map<string, string>>();
  const declared: string[] = [];
  const addedByMembers: string[] = [];

  const see = (
    written: string,
    entityRef: string,
    into: string[],
  ): string | undefined => {
    const name = canonicalEnvironmentName(written);
    if (name === '') {
      return undefined;
    }
    const trimmed = written.trim();
    let seen = spellings.get(name);
    if (!seen) {
      seen = new Map();
      spellings.set(name, seen);
      into.push(name);
    }
    if (!seen.has(trimmed)) {
      seen.set(trimmed, entityRef);
    }
    return name;
  };

  const systemAnnotation =
    system.metadata.annotations?.[ENVIRONMENTS_ANNOTATION];
  if (systemAnnotation !== undefined) {
    for (const written of systemAnnotation.split(',')) {
      see(written, systemRef, declared);
    }
  }

  const sortedMembers = members
    .filter(member => isMemberOf(member, systemRef))
    .map(member => ({ member, ref: stringifyEntityRef(member) }))
    .sort((a, b) => (a.ref < b.ref ? -1 : Number(a.ref > b.ref)));
  for (const { member, ref } of sortedMembers) {
    const annotation = member.metadata.annotations?.[ENVIRONMENT_ANNOTATION];
    if (annotation === undefined) {
      continue;
    }
    const written = annotation.split(',').filter(part => part.trim() !== '');
    if (written.length === 0) {
      problems.push({
        entityRef: ref,
        message: `${ENVIRONMENT_ANNOTATION} on ${ref} is empty; it names no environment`,
      });
      continue;
    }
    if (written.length > 1) {
      problems.push({
        entityRef: ref,
        message: `${ENVIRONMENT_ANNOTATION} on ${ref} lists ${
          written.length
        } environments (${written
          .map(w => w.trim())
          .join(
            ', ',
          )}); it names one, so each counts. A system lists several in ${ENVIRONMENTS_ANNOTATION}`,
      });
    }
    for (const name of written) {
      see(name, ref, addedByMembers);
    }
  }

  for (const [name, seen] of spellings) {
    if (seen.size > 1) {
      problems.push({
        entityRef: [...seen.values()][0],
        environment: name,
        message: `Environment ${JSON.stringify(name)} is spelled ${[
          ...seen.entries(),
        ]
          .map(([spelling, where]) => `${JSON.stringify(spelling)} on ${where}`)
          .join(' and ')}; names are compared without regard to case`,
      });
    }
  }

  const environments = [...declared, ...addedByMembers.sort()];
  const vocabulary = new Set(
    (options.environmentVocabulary ?? []).map(canonicalEnvironmentName),
  );
  if (vocabulary.size > 0) {
    for (const name of environments) {
      if (!vocabulary.has(name) && name !== DEFAULT_ENVIRONMENT) {
        const where = [...spellings.get(name)!.values()];
        problems.push({
          entityRef: where[0],
          environment: name,
          message: `Environment ${JSON.stringify(name)} (from ${where.join(
            ', ',
          )}) is not an Environment entity in the catalog; its slices run anyway`,
        });
      }
    }
  }

  return {
    environments:
      environments.length > 0 ? environments : [DEFAULT_ENVIRONMENT],
    problems,
  };
}

/**
 * Groups Components and Resources by the system their `spec.system` points
 * at (canonical refs as keys), so each system's members are found in one
 * pass over the catalog.
 * @internal
 */
export function groupMembersBySystem(
  entities: Iterable<Entity>,
): Map<string, Entity[]> {
  const bySystem = new Map<string, Entity[]>();
  for (const entity of entities) {
    const systemRef = memberSystemRef(entity);
    if (systemRef === undefined) {
      continue;
    }
    const members = bySystem.get(systemRef);
    if (members) {
      members.push(entity);
    } else {
      bySystem.set(systemRef, [entity]);
    }
  }
  return bySystem;
}

function isMemberOf(entity: Entity, systemRef: string): boolean {
  return memberSystemRef(entity) === systemRef;
}

/** The canonical ref of the system a Component or Resource belongs to. */
function memberSystemRef(entity: Entity): string | undefined {
  if (!MEMBER_KINDS.has(entity.kind.toLowerCase())) {
    return undefined;
  }
  const system = entity.spec?.system;
  if (typeof system !== 'string' || system === '') {
    return undefined;
  }
  try {
    return stringifyEntityRef(
      parseEntityRef(system, {
        defaultKind: 'system',
        defaultNamespace: entity.metadata.namespace,
      }),
    );
  } catch {
    return undefined;
  }
}
