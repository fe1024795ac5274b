import { createApiRef } from '@backstage/core-plugin-api';
import {
  CheckDetails,
  CheckSummary,
  HealthCheckSpec,
  ListSystemsQuery,
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
  kind?: 'status' | 'uptime' | 'response-time';
  window?: '24h' | '7d' | '30d';
  environment?: string;
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
