import {
  CompoundEntityRef,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import type { CheckDetails } from '@vigil/plugin-healthcheck-common';

/**
 * A health check as permission rules and visibility see it, from either
 * source.
 * @alpha
 */
export interface HealthCheckResource {
  /** The API id (`payments-http`) or the entity ref (`healthcheck:default/x`). */
  id: string;
  source: 'api' | 'gitops';
  /**
   * Who owns it, canonical and lower-case: `spec.owner` (a Group unless it
   * says otherwise), else for an API check its creator (a user ref, or a
   * service's subject). Absent for a GitOps check that names no owner.
   */
  owner?: string;
  /**
   * The systems it names, one per entry of `spec.systems`, in order: the
   * canonical lower-case System ref, or `undefined` for an entry that names
   * no System (it does not parse, or names another kind), which no caller
   * can read.
   */
  systems: Array<string | undefined>;
}

/** The ref a written one names, or `undefined` when it does not parse. */
function parsedRef(
  written: string,
  defaultKind: string,
  defaultNamespace: string,
): CompoundEntityRef | undefined {
  try {
    return parseEntityRef(written, { defaultKind, defaultNamespace });
  } catch {
    return undefined;
  }
}

/**
 * The canonical (lower-case) ref of the System a written ref names, the
 * kind defaulting to System; `undefined` when it does not parse or names
 * another kind.
 * @internal
 */
export function canonicalSystemRef(
  written: string,
  defaultNamespace: string,
): string | undefined {
  const ref = parsedRef(written, 'system', defaultNamespace);
  return ref?.kind.toLowerCase() === 'system'
    ? stringifyEntityRef(ref).toLowerCase()
    : undefined;
}

/**
 * The canonical System refs of a check's `spec.systems`, one per entry, as
 * the reconciler resolves them: the namespace defaults to the check's
 * (`default` for API checks). `undefined` for an entry that names no System.
 * @internal
 */
export function systemRefsOf(
  written: readonly string[],
  defaultNamespace: string,
): Array<string | undefined> {
  return written.map(ref => canonicalSystemRef(ref, defaultNamespace));
}

/** `group:default/team-a` from `team-a`, or undefined when it does not parse. */
function ownerRefOf(
  owner: string | undefined,
  defaultNamespace: string,
): string | undefined {
  const ref = owner ? parsedRef(owner, 'group', defaultNamespace) : undefined;
  return ref && stringifyEntityRef(ref).toLowerCase();
}

/**
 * The resource of a check as the API answers it (`GET /v1/checks/{id}`).
 * @internal
 */
export function checkResourceOf(
  check: Pick<CheckDetails, 'id' | 'source'> & {
    spec: Pick<CheckDetails['spec'], 'systems' | 'owner'>;
  },
): HealthCheckResource {
  const { source, spec } = check;
  if (source.kind === 'gitops') {
    const { namespace } = parseEntityRef(source.entityRef);
    return {
      id: check.id,
      source: 'gitops',
      owner: ownerRefOf(spec.owner, namespace),
      systems: systemRefsOf(spec.systems, namespace),
    };
  }
  return {
    id: check.id,
    source: 'api',
    owner:
      ownerRefOf(spec.owner, 'default') ??
      source.createdBy.toLocaleLowerCase('en-US'),
    systems: systemRefsOf(spec.systems, 'default'),
  };
}
