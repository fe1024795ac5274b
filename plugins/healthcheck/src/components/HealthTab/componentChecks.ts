import { Entity, stringifyEntityRef } from '@backstage/catalog-model';
import { canonicalComponentRef } from '@vigil/plugin-healthcheck-common';

/**
 * The rows of a system's matrix whose check targets the component: its
 * `components` include the component's ref. Refs are compared in canonical
 * form, whatever case or shorthand the backend or the entity uses.
 */
export function checksTargetingComponent<
  TCheck extends { components?: readonly string[] },
>(checks: readonly TCheck[], component: Entity): TCheck[] {
  const wanted = stringifyEntityRef(component).toLowerCase();
  return checks.filter(check =>
    (check.components ?? []).some(ref => canonicalComponentRef(ref) === wanted),
  );
}
