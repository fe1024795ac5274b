import { parseEntityRef, stringifyEntityRef } from '@backstage/catalog-model';
import { HealthCheckSpec } from '@vigil/plugin-healthcheck-common';

/**
 * A check was created, changed or deleted through the API. `systems` are
 * those the check was assigned to before or after, as full entity refs
 * (`system:default/payments`), so a system-scoped reconcile of each converges
 * the slices of both the old and the new assignment.
 * @internal
 */
export interface ChecksChange {
  checkId: string;
  systems: string[];
}

/**
 * Every system of the given versions of a check, as full entity refs in a
 * stable order, each once (refs compare without regard to case). A ref that
 * does not parse is kept as written: it cannot name a system with slices, and
 * dropping it would hide it from whoever listens.
 * @internal
 */
export function systemsOfChange(
  ...versions: Array<Pick<HealthCheckSpec, 'systems'> | undefined>
): string[] {
  const byKey = new Map<string, string>();
  for (const version of versions) {
    for (const written of version?.systems ?? []) {
      const ref = fullSystemRef(written);
      const key = ref.toLocaleLowerCase('en-US');
      if (!byKey.has(key)) {
        byKey.set(key, ref);
      }
    }
  }
  return [...byKey.keys()].sort().map(key => byKey.get(key)!);
}

function fullSystemRef(written: string): string {
  try {
    return stringifyEntityRef(
      parseEntityRef(written, {
        defaultKind: 'system',
        defaultNamespace: 'default',
      }),
    );
  } catch {
    return written;
  }
}
