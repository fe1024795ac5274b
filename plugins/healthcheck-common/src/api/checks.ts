import { HealthCheckSpec } from '../model';

/**
 * Where a GitOps check is declared: its entity and the file it came from.
 * @public
 */
export interface GitOpsCheckSource {
  kind: 'gitops';
  entityRef: string;
  /** The entity's source location (`url:https://...`), when the catalog knows it. */
  location?: string;
}

/**
 * Who made an API-managed check and who changed it last.
 * @public
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
 * One check as `GET /v1/checks/{id}` returns it, and as POST and PUT return
 * the stored result.
 * @public
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

/**
 * A check as `GET /v1/checks` lists it, from either source.
 * @public
 */
export interface CheckSummary {
  id: string;
  title?: string;
  type: string;
  /** What the check probes; a heartbeat check has none. */
  target?: string;
  interval?: string;
  systems: string[];
  paused: boolean;
  source: Pick<ApiCheckSource, 'kind' | 'createdBy'> | GitOpsCheckSource;
}
