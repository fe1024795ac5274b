import { mockServices } from '@backstage/backend-test-utils';
import express from 'express';
import { createBadgeRouter } from '../badges';
import { createHealthRouter } from '../service/healthRouter';
import { createRouter } from '../service/router';
import { spec } from './openapi';

/** `METHOD /path/{param}` of every route an express router registers. */
function routesOf(router: express.Router): string[] {
  return router.stack
    .filter(layer => layer.route)
    .flatMap(layer =>
      Object.keys((layer.route as any).methods).map(
        method =>
          `${method.toUpperCase()} ${layer.route!.path.replace(
            /:(\w+)/g,
            '{$1}',
          )}`,
      ),
    );
}

describe('the OpenAPI document', () => {
  it('documents exactly the routes the plugin serves', async () => {
    const unused = {} as any;
    const served = [
      ...routesOf(
        await createRouter({
          logger: mockServices.logger.mock(),
          httpAuth: unused,
          permissions: unused,
          auditor: unused,
          store: unused,
          catalog: unused,
          probeTypes: unused,
        }),
      ),
      ...routesOf(
        createHealthRouter({
          httpAuth: unused,
          catalog: unused,
          permissions: unused,
          checks: unused,
          states: unused,
          history: unused,
          loadRollup: unused,
          loadRollups: unused,
          liveKeyOf: unused,
        }),
      ),
      ...routesOf(
        createBadgeRouter({
          logger: mockServices.logger.mock(),
          loadRollup: unused,
          loadEnvironments: unused,
          loadUptime: unused,
          loadResponseTime: unused,
        }),
      ),
    ]
      // The check id route also matches ids a HealthCheck ref encodes.
      .map(route => route.replace('{id(*)}', '{id}'))
      .sort();
    const documented = Object.entries(spec.paths)
      .flatMap(([path, item]) =>
        Object.keys(item)
          .filter(key => ['get', 'post', 'put', 'delete'].includes(key))
          .map(method => `${method.toUpperCase()} ${path}`),
      )
      .sort();
    expect(served).toEqual(documented);
  });

  it('names an operation and its error responses for every route', () => {
    for (const [path, item] of Object.entries(spec.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'parameters') continue;
        expect({
          path,
          method,
          operationId: (operation as any).operationId,
        }).toEqual({
          path,
          method,
          operationId: expect.stringMatching(/^[A-Z]\w+$/),
        });
      }
    }
  });
});
