import type { TypedRouter } from '@backstage/backend-openapi-utils';
import Router from 'express-promise-router';
import type { EndpointMap } from './openapi';

/**
 * A router whose routes are typed by `openapi.yaml`, through the generated
 * `EndpointMap`: only documented paths, and their parameters, query, body
 * and answers as documented. Requests are validated before they reach it,
 * by `createApiRouter`, one validator per path.
 * @internal
 */
export function createTypedRouter(): TypedRouter<EndpointMap> {
  return Router() as unknown as TypedRouter<EndpointMap>;
}
