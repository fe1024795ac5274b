import { parseEntityRef, stringifyEntityRef } from '@backstage/catalog-model';

/**
 * One ref of a check's `spec.components` in canonical form: kind `component`
 * and the given namespace filled in where it names none, all lower case
 * (`payments-service` becomes `component:default/payments-service`), so refs
 * written differently compare equal. `undefined` when it does not parse.
 * @public
 */
export function canonicalComponentRef(
  ref: string,
  defaultNamespace: string = 'default',
): string | undefined {
  try {
    return stringifyEntityRef(
      parseEntityRef(ref, { defaultKind: 'component', defaultNamespace }),
    ).toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * A check's `spec.components` in canonical form (see
 * {@link canonicalComponentRef}), each once, sorted; refs that do not parse
 * are left out, since validation reports them.
 * @public
 */
export function canonicalComponentRefs(
  refs: readonly string[] | undefined,
  defaultNamespace: string = 'default',
): string[] {
  const canonical = new Set<string>();
  for (const ref of refs ?? []) {
    const parsed = canonicalComponentRef(ref, defaultNamespace);
    if (parsed) {
      canonical.add(parsed);
    }
  }
  return [...canonical].sort();
}
