import { createApiRef } from '@backstage/core-plugin-api';
import { CheckSummary } from '@vigil/plugin-healthcheck-common';

export type { CheckSummary };

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
