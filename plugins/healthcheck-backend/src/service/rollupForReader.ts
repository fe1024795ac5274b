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
    answer.reasons.forEach(r => r.components?.forEach(c => refs.add(c)));
    answer.checks?.forEach(row => row.components?.forEach(c => refs.add(c)));
  }
  return [...refs];
}

/**
 * A system's answer as a caller who can read only the `readable` entities
 * may see it: upstream systems and targeted components they cannot read
 * are left out, so the health of a system they can read tells them nothing
 * of one they cannot. The status stays: it is the system's own (the worst
 * of its environments), which upstream systems only explain.
 * @internal
 */
export function forReader<T extends SystemAnswer>(
  answer: T,
  readable: ReadonlySet<string>,
): T {
  const withReadableComponents = <R extends { components?: string[] }>(
    item: R,
  ): R => {
    if (!item.components) {
      return item;
    }
    const { components, ...rest } = item;
    const kept = components.filter(ref => readable.has(ref));
    return (kept.length > 0 ? { ...rest, components: kept } : rest) as R;
  };
  return {
    ...answer,
    upstream: answer.upstream.filter(u => readable.has(u.systemRef)),
    reasons: answer.reasons.map(withReadableComponents),
    ...(answer.checks && { checks: answer.checks.map(withReadableComponents) }),
  };
}
