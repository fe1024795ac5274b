import { parseEntityRef } from '@backstage/catalog-model';
import { humanizeEntityRef } from '@backstage/plugin-catalog-react';

/**
 * An entity ref as people read it: without its kind when it is `defaultKind`
 * and without the default namespace (`healthcheck:default/payments-api` is
 * `payments-api`). Anything that is not a ref is returned as it is.
 */
export function shortRef(ref: string, defaultKind: string): string {
  try {
    return humanizeEntityRef(parseEntityRef(ref), { defaultKind });
  } catch {
    return ref;
  }
}
