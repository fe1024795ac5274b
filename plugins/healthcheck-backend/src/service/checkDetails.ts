import {
  ANNOTATION_LOCATION,
  ANNOTATION_SOURCE_LOCATION,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import {
  HealthCheckEntityV1alpha1,
  HealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import { StoredCheck } from '../database/HealthcheckStore';

/**
 * Where a GitOps check is declared: its entity and the file it came from.
 * @internal
 */
export interface GitOpsCheckSource {
  kind: 'gitops';
  entityRef: string;
  /** The entity's source location (`url:https://...`), when the catalog knows it. */
  location?: string;
}

/**
 * Who made an API-managed check and who changed it last.
 * @internal
 */
export interface ApiCheckSource {
  kind: 'api';
  createdBy: string;
  /** ISO 8601. */
  createdAt: string;
  updatedBy: string;
  /** ISO 8601. */
  updatedAt: string;
}

/**
 * One check as `GET /v1/checks/:id` returns it, and as POST and PUT return
 * the stored result.
 * @internal
 */
export interface CheckDetails {
  /** The API id (`payments-http`) or the entity ref (`healthcheck:default/x`). */
  id: string;
  title?: string;
  spec: HealthCheckSpec;
  /** API checks only: send it back with an update to refuse a stale write. */
  revision?: number;
  source: ApiCheckSource | GitOpsCheckSource;
}

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
