import { createApiRef } from '@backstage/core-plugin-api';
import {
  CheckDetails,
  CheckSummary,
  HealthCheckSpec,
  ListSystemsQuery,
  MaintenanceWindowDetails,
  ObjectiveStatus,
  SliceRunsResponse,
  SliceUptimeResponse,
  SystemHealthDetails,
  SystemHistoryResponse,
  SystemListResponse,
} from '@vigil/plugin-healthcheck-common';

export type { CheckSummary };

/**
 * What a badge shows.
 * @public
 */
export interface BadgeOptions {
  kind?: 'status' | 'uptime' | 'response-time' | 'slo';
  /** Up-time and response time only. */
  window?: '24h' | '7d' | '30d';
  environment?: string;
  /** `slo` only: the ServiceLevelObjective ref; the one with the least budget left by default. */
  objective?: string;
}

/**
 * A maintenance window to open over one system: "we are deploying now, 30
 * minutes".
 * @public
 */
export interface MaintenanceWindowRequest {
  /** Ref of the system; the kind defaults to System. */
  system: string;
  /** How long, such as `30m` or `2h`; at most 24 hours. */
  duration: string;
  environments?: string[];
  /** Check ids (API ids or HealthCheck entity refs); every check when absent. */
  checks?: string[];
  /** When it starts; now when absent. */
  start?: Date;
  reason?: string;
}

/**
 * One run that "Run now" started.
 * @public
 */
export interface StartedRun {
  runId: string;
  sliceId: string;
  systemRef: string;
  environment: string;
}

/**
 * The health-check backend, as the frontend sees it.
 * @public
 */
export interface HealthcheckApi {
  listChecks(): Promise<CheckSummary[]>;
  getCheck(id: string): Promise<CheckDetails>;
  createCheck(input: {
    id?: string;
    title?: string;
    spec: HealthCheckSpec;
  }): Promise<CheckDetails>;
  updateCheck(
    id: string,
    input: { title?: string; spec: HealthCheckSpec; revision?: number },
  ): Promise<CheckDetails>;
  runCheck(id: string): Promise<StartedRun[]>;
  listSystems(query?: ListSystemsQuery): Promise<SystemListResponse>;
  /** `undefined` for a system the backend does not know or hides. */
  getSystem(systemRef: string): Promise<SystemHealthDetails | undefined>;
  getSystemHistory(
    systemRef: string,
    query: {
      environment?: string;
      granularity?: 'hours' | 'runs';
      from?: Date;
      to?: Date;
    },
  ): Promise<SystemHistoryResponse>;
  /**
   * One page of a slice's runs whose tick time is in `[from, to)` (by
   * default the last 24 hours), newest first; pass the page's `nextCursor`
   * as `cursor` for the next one. `limit` is 1 to 1000, 100 by default.
   */
  listSliceRuns(
    sliceId: string,
    query?: { from?: Date; to?: Date; limit?: number; cursor?: string },
  ): Promise<SliceRunsResponse>;
  /**
   * The up-time of each slice of a system (each cell of its matrix) over
   * the last 24 hours, 7 days and 30 days.
   */
  getSliceUptimes(systemRef: string): Promise<SliceUptimeResponse>;
  /** The details of the checks in a system's matrix, in one request. */
  listSystemChecks(systemRef: string): Promise<CheckDetails[]>;
  /**
   * A system's service-level objectives (those the caller may read), each
   * with attainment, error budget, burn rates, the alerts that hold and the
   * budget burn-down.
   */
  listSystemObjectives(
    systemRef: string,
    query?: { environment?: string; check?: string },
  ): Promise<ObjectiveStatus[]>;
  /**
   * The maintenance windows in force or ahead, each with its current and
   * next occurrence; of one system when `system` is given.
   */
  listMaintenanceWindows(query?: {
    system?: string;
  }): Promise<MaintenanceWindowDetails[]>;
  /** Opens a maintenance window (permission healthcheck.maintenance.manage). */
  createMaintenanceWindow(
    request: MaintenanceWindowRequest,
  ): Promise<MaintenanceWindowDetails>;
  /** Ends a window made through the API now. */
  endMaintenanceWindow(id: string): Promise<MaintenanceWindowDetails>;
  /** The badge's SVG URL (loaded with Backstage's cookie; public when configured). */
  badgeUrl(systemRef: string, options?: BadgeOptions): Promise<string>;
}

/**
 * The {@link HealthcheckApi} of the app.
 * @public
 */
export const healthcheckApiRef = createApiRef<HealthcheckApi>({
  id: 'plugin.healthcheck.service',
});
