import { createApiRef } from '@backstage/core-plugin-api';

/**
 * A health check as the backend lists it.
 * @public
 */
export interface CheckSummary {
  id: string;
  title?: string;
  type: string;
  target: string;
  interval?: string;
  systems: string[];
  paused: boolean;
  source:
    | { kind: 'api'; createdBy: string }
    | { kind: 'gitops'; entityRef: string; location?: string };
}

/**
 * The health-check backend, as the frontend sees it.
 * @public
 */
export interface HealthcheckApi {
  listChecks(): Promise<CheckSummary[]>;
}

/**
 * The {@link HealthcheckApi} of the app.
 * @public
 */
export const healthcheckApiRef = createApiRef<HealthcheckApi>({
  id: 'plugin.healthcheck.service',
});
