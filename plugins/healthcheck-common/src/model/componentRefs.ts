import { parseEntityRef, stringifyEntityRef } from '@backstage/catalog-model';

/**
 * An entity ref in canonical form: the default kind and namespace filled in
 * where it names none, all lower case (`guests` as an owner becomes
 * `group:default/guests`), so refs written differently compare equal and
 * every client can link them. `undefined` when it does not parse.
 * @public
 */
export function canonicalEntityRef(
  ref: string,
  defaults: { defaultKind: string; defaultNamespace?: string },
): string | undefined {
  try {
    return stringifyEntityRef(
      parseEntityRef(ref, {
        defaultKind: defaults.defaultKind,
        defaultNamespace: defaults.defaultNamespace ?? 'default',
      }),
    ).toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * One ref of a check's `spec.components` in canonical form: kind `component`
 * and the given namespace filled in where it names none, all lower case
 * (`payments-service` becomes `component:default/payments-service`).
 * `undefined` when it does not parse.
 * @public
 */
export function canonicalComponentRef(
  ref: string,
  defaultNamespace: string = 'default',
): string | undefined {
  return canonicalEntityRef(ref, {
    defaultKind: 'component',
    defaultNamespace,
  });
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
