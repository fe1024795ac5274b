import { createValidatedOpenApiRouter } from '@backstage/backend-openapi-utils';
import express from 'express';
import { spec } from '../schema/openapi';
import { jsonBody } from './jsonBody';

/**
 * The plugin's API: the given routers behind validation against the OpenAPI
 * document (path and query parameters, body shapes), which is also served
 * at `/openapi.json`. Unknown query parameters pass the validator so the
 * routes can name them with the others they refuse. The validator does not
 * check security: Backstage's httpAuth authenticates every request, while
 * the validator's check only looks for a header, and on a request that uses
 * a cookie (or a public badge) it builds and throws an Error every time.
 * @internal
 */
export function createApiRouter(
  routers: readonly express.Router[],
): express.Router {
  const router = createValidatedOpenApiRouter(spec, {
    middleware: [jsonBody()],
    validatorOptions: {
      validateRequests: {
        coerceTypes: false,
        allowUnknownQueryParameters: true,
      },
      validateSecurity: false,
    },
  });
  for (const route of routers) {
    router.use(route);
  }
  return router;
}
