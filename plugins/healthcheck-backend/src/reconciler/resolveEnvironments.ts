import {
  Entity,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import {
  canonicalEnvironmentName,
  DEFAULT_ENVIRONMENT,
  ENVIRONMENT_ANNOTATION,
  environmentNameProblem,
  ENVIRONMENTS_ANNOTATION,
} from '@vigil/plugin-healthcheck-common';

/**
 * Something wrong with a system's environments. Two kinds, each said in its
 * message: a name that is left out, because it is no environment name or
 * because a member that may not add environments adds it (a name from
 * another team's entity must not decide where a probe goes, nor page the
 * system's owner); and a name that is kept with a warning (spellings that
 * differ in case, a name that is not an Environment entity), where a typo
 * should rather show as an extra slice than as one that silently
 * disappears.
 * @internal
 */
export interface EnvironmentProblem {
  /** The entity whose annotation (or, for an Environment entity, name) is concerned. */
  entityRef: string;
  /** The system concerned; absent for the catalog's Environment entities. */
  systemRef?: string;
  /** The canonical environment name, when one is concerned. */
  environment?: string;
  message: string;
}

/**
 * Which members of a system may add an environment to it
 * (`healthcheck.environments.fromMembers`): `owner`, only those owned by the
 * system's owner; `any`, every member.
 * @internal
 */
export type EnvironmentsFromMembers = 'owner' | 'any';

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
 * - A name that is no environment name (see `environmentNameProblem`) is
 *   left out and reported with the entity and annotation that wrote it:
 *   names end up in targets, so `evil.example/x?` must never become one.
 * - With `fromMembers: 'owner'` (the default) only members owned by the
 *   system's owner may add environments (`spec.owner` of each, compared as
 *   canonical refs: kind `group` and the entity's own namespace when it
 *   names none). A name only other members add is left out and reported,
 *   naming the member; one the system already has is no addition and says
 *   nothing, since systems often hold other teams' components. A system
 *   without an owner takes environments from no member.
 *
 * @internal
 */
export function resolveEnvironments(options: {
  system: Entity;
  members: readonly Entity[];
  environmentVocabulary?: readonly string[];
  fromMembers?: EnvironmentsFromMembers;
}): ResolvedEnvironments {
  const { system, members } = options;
  const systemRef = stringifyEntityRef(system);
  const problems: EnvironmentProblem[] = [];
  const report = (problem: Omit<EnvironmentProblem, 'systemRef'>) =>
    problems.push({ ...problem, systemRef });
  // canonical name -> spellings seen, with where
  const spellings = new Map<string, Map<string, string>>();
  const declared: string[] = [];
  const addedByMembers: string[] = [];

  const see = (
    written: string,
    entityRef: string,
    annotation: string,
    into: string[],
  ): string | undefined => {
    const name = canonicalEnvironmentName(written);
    if (name === '') {
      return undefined;
    }
    const invalid = environmentNameProblem(written.trim());
    if (invalid) {
      report(leftOut(annotation, entityRef, invalid));
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
      see(written, systemRef, ENVIRONMENTS_ANNOTATION, declared);
    }
  }

  const systemOwner =
    options.fromMembers === 'any' ? undefined : ownerRef(system);
  const mayAdd = (member: Entity) =>
    options.fromMembers === 'any' ||
    (systemOwner !== undefined && ownerRef(member) === systemOwner);
  const fromOthers: Array<{ ref: string; member: Entity; written: string }> =
    [];

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
      report({
        entityRef: ref,
        message: `${ENVIRONMENT_ANNOTATION} on ${ref} is empty; it names no environment`,
      });
      continue;
    }
    if (written.length > 1) {
      report({
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
    const allowed = mayAdd(member);
    for (const name of written) {
      if (allowed) {
        see(name, ref, ENVIRONMENT_ANNOTATION, addedByMembers);
      } else {
        fromOthers.push({ ref, member, written: name });
      }
    }
  }

  // After every name the system and its owner's members give, so that
  // only what another team's member would add is refused.
  for (const { ref, member, written } of fromOthers) {
    const name = canonicalEnvironmentName(written);
    const invalid = environmentNameProblem(written.trim());
    if (invalid) {
      report(leftOut(ENVIRONMENT_ANNOTATION, ref, invalid));
    } else if (!spellings.has(name)) {
      report({
        entityRef: ref,
        environment: name,
        message: `${ENVIRONMENT_ANNOTATION} on ${ref} would add environment "${name}" to ${systemRef}, but ${ref} is ${describeOwner(
          member,
        )} and ${systemRef} is ${describeOwner(
          system,
        )}; only the system and members owned by its owner may add environments (healthcheck.environments.fromMembers: owner). It is left out; declare it in ${ENVIRONMENTS_ANNOTATION} on ${systemRef}, or own the member by the same team`,
      });
    }
  }

  for (const [name, seen] of spellings) {
    if (seen.size > 1) {
      report({
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
        report({
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
 * The names of the catalog's Environment entities that can be environment
 * names, canonical; the others reported, each naming its entity. They can
 * never match an environment, so leaving them out changes no verdict, and
 * the report tells their owner why.
 * @internal
 */
export function environmentVocabularyOf(entities: readonly Entity[]): {
  names: string[];
  problems: EnvironmentProblem[];
} {
  const names: string[] = [];
  const problems: EnvironmentProblem[] = [];
  for (const entity of entities) {
    const invalid = environmentNameProblem(entity.metadata.name);
    if (invalid) {
      const entityRef = stringifyEntityRef(entity);
      problems.push({
        entityRef,
        message: `Environment entity ${entityRef}: ${invalid}. No system's environment can match it`,
      });
    } else {
      names.push(canonicalEnvironmentName(entity.metadata.name));
    }
  }
  return { names, problems };
}

/** A name that is no environment name, left out, with where it is written. */
function leftOut(
  annotation: string,
  entityRef: string,
  reason: string,
): Omit<EnvironmentProblem, 'systemRef'> {
  return {
    entityRef,
    message: `${annotation} on ${entityRef}: ${reason}. It is left out`,
  };
}

/**
 * The canonical ref of an entity's `spec.owner` (kind `group` and the
 * entity's own namespace when it names none); `undefined` without one.
 * @internal
 */
export function ownerRef(entity: Entity): string | undefined {
  return specRef(entity, 'owner', 'group');
}

function describeOwner(entity: Entity): string {
  const owner = ownerRef(entity);
  return owner ? `owned by ${owner}` : 'owned by no one';
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
  return MEMBER_KINDS.has(entity.kind.toLowerCase())
    ? specRef(entity, 'system', 'system')
    : undefined;
}

/**
 * The canonical ref an entity's `spec[field]` holds, `defaultKind` and the
 * entity's own namespace filled in where it names none; `undefined` when it
 * holds none or one that does not parse.
 */
function specRef(
  entity: Entity,
  field: 'owner' | 'system',
  defaultKind: string,
): string | undefined {
  const ref = entity.spec?.[field];
  if (typeof ref !== 'string' || ref === '') {
    return undefined;
  }
  try {
    return stringifyEntityRef(
      parseEntityRef(ref, {
        defaultKind,
        defaultNamespace: entity.metadata.namespace,
      }),
    );
  } catch {
    return undefined;
  }
}
