import {
  ANNOTATION_LOCATION,
  ANNOTATION_SOURCE_LOCATION,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import {
  CheckDetails,
  GitOpsCheckSource,
  HealthCheckEntityV1alpha1,
  HealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import { StoredCheck } from '../database/HealthcheckStore';

/** @internal */
export function apiCheckDetails(check: StoredCheck): CheckDetails {
  return {
    id: check.id,
    ...(check.title !== undefined && { title: check.title }),
    spec: check.spec,
    revision: check.revision,
    source: {
      kind: 'api',
      createdBy: check.createdBy,
      createdAt: check.createdAt.toISOString(),
      updatedBy: check.updatedBy,
      updatedAt: check.updatedAt.toISOString(),
    },
  };
}

/** @internal */
export function gitOpsCheckDetails(
  entity: HealthCheckEntityV1alpha1,
): CheckDetails {
  return {
    id: stringifyEntityRef(entity),
    ...(entity.metadata.title !== undefined && {
      title: entity.metadata.title,
    }),
    spec: entity.spec as HealthCheckSpec,
    source: gitOpsCheckSource(entity),
  };
}

/**
 * The entity ref and source file of a HealthCheck entity: the source
 * location where the catalog records one (the file's folder in Git), else
 * the location it was read from.
 * @internal
 */
export function gitOpsCheckSource(
  entity: HealthCheckEntityV1alpha1,
): GitOpsCheckSource {
  const annotations = entity.metadata.annotations ?? {};
  const location =
    annotations[ANNOTATION_SOURCE_LOCATION] ?? annotations[ANNOTATION_LOCATION];
  return {
    kind: 'gitops',
    entityRef: stringifyEntityRef(entity),
    ...(location !== undefined && { location }),
  };
}
