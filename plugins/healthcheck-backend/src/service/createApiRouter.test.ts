import Router from 'express-promise-router';
import { KnexTimeoutError } from 'knex';
import request from 'supertest';
import { appWithErrorMiddleware } from '../__testUtils__/appWithErrorMiddleware';
import { createApiRouter } from './createApiRouter';

/** The API around one route that fails as given, as the plugin mounts it. */
function appFailingWith(error: Error) {
  const route = Router();
  route.get('/v1/systems/:namespace/:name', async () => {
    throw error;
  });
  return appWithErrorMiddleware(createApiRouter([route]));
}

// The first request compiles the validator of the OpenAPI document, about
// 3 s on its own and more on a busy machine.
jest.setTimeout(30_000);

describe('createApiRouter', () => {
  it('answers 503 when the database does not finish a statement in time', async () => {
    const res = await request(
      appFailingWith(
        new KnexTimeoutError(
          'Defined query timeout of 30000ms exceeded when running query.',
        ),
      ),
    ).get('/v1/systems/default/payments');

    expect(res.status).toBe(503);
    expect(res.body.error).toMatchObject({
      name: 'ServiceUnavailableError',
      message:
        'The database did not answer in time; caused by KnexTimeoutError: Defined query timeout of 30000ms exceeded when running query.',
    });
  });

  it('leaves other failures as they are', async () => {
    const res = await request(appFailingWith(new Error('boom'))).get(
      '/v1/systems/default/payments',
    );

    expect(res.status).toBe(500);
    expect(res.body.error.message).toBe('boom');
  });

  it('validates a request against the operation of its own path, and passes undocumented paths by', async () => {
    const route = Router();
    route.get('/v1/slices/:sliceId/runs', (_req, res) => {
      res.json({ ok: true });
    });
    route.get('/v1/not-in-the-document', (_req, res) => {
      res.json({ ok: true });
    });
    const app = appWithErrorMiddleware(createApiRouter([route]));

    const bad = await request(app).get('/v1/slices/a/runs?limit=lots');
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain('limit');
    expect((await request(app).get('/v1/slices/a/runs?limit=5')).status).toBe(
      200,
    );
    expect(
      (await request(app).get('/v1/not-in-the-document?limit=lots')).status,
    ).toBe(200);
    const document = await request(app).get('/openapi.json');
    expect(Object.keys(document.body.paths)).toContain(
      '/v1/slices/{sliceId}/runs',
    );
  });

  it("takes the generated client's requests, which name JSON as their type even without a body", async () => {
    const route = Router();
    route.get('/v1/slices/:sliceId/runs', (_req, res) => {
      res.json({ ok: true });
    });
    route.post('/v1/checks/:id/run', (_req, res) => {
      res.status(202).json({ items: [] });
    });
    const app = appWithErrorMiddleware(createApiRouter([route]));

    const read = await request(app)
      .get('/v1/slices/a/runs?limit=5')
      .set('Content-Type', 'application/json');
    expect(read.status).toBe(200);
    const run = await request(app)
      .post('/v1/checks/payments-http/run')
      .set('Content-Type', 'application/json');
    expect(run.status).toBe(202);
  });
});
