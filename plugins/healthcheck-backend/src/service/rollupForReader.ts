import type {
  SystemHealthDetails,
  SystemRollup,
} from '@vigil/plugin-healthcheck-common';

/** A rollup, and maybe the matrix rows of a system's details. */
type SystemAnswer = SystemRollup & Partial<Pick<SystemHealthDetails, 'checks'>>;

/**
 * The other entities a system's answer names: its unhealthy upstream
 * systems, and the Components its checks target (in the reasons and in the
 * matrix), which may belong to other systems. Canonical refs, each once.
 * @internal
 */
export function otherEntitiesNamedIn(
  answers: readonly SystemAnswer[],
): string[] {
  const refs = new Set<string>();
  for (const answer of answers) {
    answer.upstream.forEach(u => refs.add(u.systemRef));
    answer.environments.forEach(
      e => e.causedBy && refs.add(e.causedBy.toLowerCase()),
    );
    answer.reasons.forEach(r => r.components?.forEach(c => refs.add(c)));
    answer.checks?.forEach(row => row.components?.forEach(c => refs.add(c)));
  }
  return [...refs];
}

/**
 * A system's answer as a caller who can read only the `readable` entities
 * may see it: upstream systems (listed, or named as an environment's
 * cause) and targeted components they cannot read are left out, so the health of a system they can read tells them nothing
 * of one they cannot. The status stays: it is the system's own (the worst
 * of its environments), which upstream systems only explain. Whatever
 * leaves nothing out is the same object (the answer itself when nothing
 * is left out): the read of a system naming no other entity copies nothing.
 * @internal
 */
export function forReader<T extends SystemAnswer>(
  answer: T,
  readable: ReadonlySet<string>,
): T {
  const upstream = allReadable(answer.upstream, u => u.systemRef, readable)
    ? answer.upstream
    : answer.upstream.filter(u => readable.has(u.systemRef));
  const reasons = sameOrMapped(answer.reasons, item =>
    withReadableComponents(item, readable),
  );
  const checks =
    answer.checks &&
    sameOrMapped(answer.checks, item => withReadableComponents(item, readable));
  const environments = sameOrMapped(answer.environments, environment => {
    if (
      !environment.causedBy ||
      readable.has(environment.causedBy.toLowerCase())
    ) {
      return environment;
    }
    const { causedBy: _hidden, ...rest } = environment;
    return rest;
  });
  if (
    upstream === answer.upstream &&
    reasons === answer.reasons &&
    checks === answer.checks &&
    environments === answer.environments
  ) {
    return answer;
  }
  return {
    ...answer,
    upstream,
    reasons,
    environments,
    ...(checks && { checks }),
  };
}

/** An item without the components the reader cannot read (the item itself when it can read all). */
function withReadableComponents<R extends { components?: string[] }>(
  item: R,
  readable: ReadonlySet<string>,
): R {
  const { components } = item;
  if (
    !components ||
    (components.length > 0 && allReadable(components, c => c, readable))
  ) {
    return item;
  }
  const { components: _left, ...rest } = item;
  const kept = components.filter(ref => readable.has(ref));
  return (kept.length > 0 ? { ...rest, components: kept } : rest) as R;
}

function allReadable<I>(
  items: readonly I[],
  refOf: (item: I) => string,
  readable: ReadonlySet<string>,
): boolean {
  return items.every(item => readable.has(refOf(item)));
}

/** The list itself when `map` keeps every item, else the mapped copy. */
function sameOrMapped<I>(items: I[], map: (item: I) => I): I[] {
  const mapped = items.map(map);
  return mapped.every((item, index) => item === items[index]) ? items : mapped;
}
