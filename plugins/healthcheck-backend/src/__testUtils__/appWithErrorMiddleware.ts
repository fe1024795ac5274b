import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import { mockServices } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import express from 'express';

/**
 * An app serving `router` behind Backstage's error middleware, as a plugin's
 * routes are mounted: thrown errors answer with their status and JSON body.
 */
export function appWithErrorMiddleware(router: express.Router) {
  const app = express();
  app.use(router);
  app.use(
    MiddlewareFactory.create({
      config: new ConfigReader({}),
      logger: mockServices.logger.mock(),
    }).error(),
  );
  return app;
}
