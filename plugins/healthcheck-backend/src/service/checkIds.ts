import { CompoundEntityRef, parseEntityRef } from '@backstage/catalog-model';
import { HEALTHCHECK_KIND } from '@vigil/plugin-healthcheck-common';

/**
 * The id of a check created through the API: a slug that is safe in URLs,
 * slice ids and logs as it is. It has no `:`, so it never collides with the
 * id of a GitOps check, which is its entity ref (`healthcheck:default/x`).
 * @internal
 */
export const API_CHECK_ID_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;

const MAX_API_CHECK_ID_LENGTH = 63;

/**
 * Whether `id` can name a check created through the API.
 * @internal
 */
export function isApiCheckId(id: string): boolean {
  return API_CHECK_ID_PATTERN.test(id);
}

/**
 * The id a check gets from its title when the caller gives none:
 * `"Payments API (EU)"` becomes `payments-api-eu`, accents are dropped
 * (`"Zürich"` becomes `zurich`). `undefined` when nothing of the title is
 * left, as for a title in a script without Latin letters.
 * @internal
 */
export function checkIdFromTitle(title: string): string | undefined {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, MAX_API_CHECK_ID_LENGTH)
    .replace(/-+$/, '');
  return slug === '' ? undefined : slug;
}

/**
 * The `n`th candidate for an id derived from a title, for when the plain one
 * is taken: `payments-api`, `payments-api-2`, `payments-api-3`, ...; the base
 * is cut so the suffix still fits.
 * @internal
 */
export function numberedCheckId(base: string, n: number): string {
  if (n <= 1) {
    return base;
  }
  const suffix = `-${n}`;
  const head = base
    .slice(0, MAX_API_CHECK_ID_LENGTH - suffix.length)
    .replace(/-+$/, '');
  return `${head}${suffix}`;
}

/**
 * The HealthCheck entity a GitOps check id names (`healthcheck:default/x`,
 * compared without regard to case), or `undefined` when the id is not the
 * ref of a HealthCheck entity.
 * @internal
 */
export function gitOpsCheckRef(id: string): CompoundEntityRef | undefined {
  if (!id.includes(':')) {
    return undefined;
  }
  try {
    const ref = parseEntityRef(id, { defaultNamespace: 'default' });
    return ref.kind.toLowerCase() === HEALTHCHECK_KIND.toLowerCase()
      ? ref
      : undefined;
  } catch {
    return undefined;
  }
}
