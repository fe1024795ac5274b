import { createRouteRef } from '@backstage/core-plugin-api';

/** The overview page of all health checks. */
export const rootRouteRef = createRouteRef({ id: 'healthcheck' });
