import { createValidatedOpenApiRouter } from '@backstage/backend-openapi-utils';
import express from 'express';
import { spec } from '../schema/openapi';
import { jsonBody } from './jsonBody';

/**
 * The plugin's API: the given routers behind validation against the OpenAPI
 * document (path and query parameters, body shapes), which is also served
 * at `/openapi.json`. Unknown query parameters pass the validator so the
 * routes can name them with the others they refuse.
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
    },
  });
  for (const route of routers) {
    router.use(route);
  }
  return router;
}
