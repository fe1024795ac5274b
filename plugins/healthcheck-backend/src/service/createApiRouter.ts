import { createValidatedOpenApiRouter } from '@backstage/backend-openapi-utils';
import { isError, ServiceUnavailableError } from '@backstage/errors';
import express from 'express';
import { spec } from '../schema/openapi';
import { jsonBody } from './jsonBody';

/**
 * A statement the database did not finish in time (a history read past its
 * statement timeout, or no free connection) is the database's trouble, not
 * the request's: 503, which clients and proxies retry, rather than 500.
 */
const databaseTimeoutsAsUnavailable: express.ErrorRequestHandler = (
  error,
  _req,
  _res,
  next,
) => {
  // By name: knex's error class may come from another copy of knex.
  if (isError(error) && error.name === 'KnexTimeoutError') {
    next(
      new ServiceUnavailableError('The database did not answer in time', error),
    );
    return;
  }
  next(error);
};

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
  router.use(databaseTimeoutsAsUnavailable);
  return router;
}
