import { createValidatedOpenApiRouterFromGeneratedEndpointMap } from '@backstage/backend-openapi-utils';
import { isError, ServiceUnavailableError } from '@backstage/errors';
import express from 'express';
import Router from 'express-promise-router';
import { EndpointMap, spec } from '../schema/openapi';
import { jsonBody } from './jsonBody';

const OPENAPI_DOCUMENT_PATH = '/openapi.json';

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
 * The plugin's API: the given routers behind validation against
 * `src/schema/openapi.yaml` (path and query parameters, body shapes), as
 * generated into `schema/openapi/generated/router.ts`; the document is also served
 * at `/openapi.json`. Unknown query parameters pass the validator so the
 * routes can name them with the others they refuse. The validator does not
 * check security: Backstage's httpAuth authenticates every request, while
 * the validator's check only looks for a header, and on a request that uses
 * a cookie (or a public badge) it builds and throws an Error every time.
 *
 * Each documented path gets a validator of its own, which Express reaches
 * through the path's route: a validator of the whole document compiles a
 * matcher for every path it tries, on every request, until one matches
 * (express-openapi-validator 5.6), which cost the rollup read about a fifth
 * of its throughput.
 * @internal
 */
export function createApiRouter(
  routers: readonly express.Router[],
): express.Router {
  const router = Router();
  for (const path of Object.keys(spec.paths)) {
    router.all(
      expressPathOf(path),
      validatedRouter({ [path]: spec.paths[path as keyof typeof spec.paths] }),
    );
  }
  // Serves the whole document at /openapi.json, and validates nothing else.
  router.get(OPENAPI_DOCUMENT_PATH, validatedRouter(spec.paths));
  for (const route of routers) {
    router.use(route);
  }
  router.use(databaseTimeoutsAsUnavailable);
  return router;
}

/** `/v1/systems/{namespace}/{name}` as Express writes it. */
function expressPathOf(openApiPath: string): string {
  return openApiPath.replace(/\{(\w+)\}/g, ':$1');
}

/** A router that validates requests to these paths of the document. */
function validatedRouter(paths: Partial<typeof spec.paths>): express.Router {
  return createValidatedOpenApiRouterFromGeneratedEndpointMap<EndpointMap>(
    { ...spec, paths } as typeof spec,
    {
      middleware: [jsonBody()],
      validatorOptions: {
        validateRequests: {
          coerceTypes: false,
          allowUnknownQueryParameters: true,
        },
        validateSecurity: false,
      },
    },
  );
}
