import express from 'express';
import request from 'supertest';
import { sendJson } from './sendJson';

/*
 * An answer object handed out again unchanged is sent as the bytes it was
 * serialized to the first time, exactly as `res.json` would send it: the
 * same body, content type and ETag, and a 304 to a client that has it.
 */

const answer = {
  systemRef: 'system:default/payments',
  status: 'unhealthy',
  reasons: [{ environment: 'production', text: '[STATUS] (500) == 200' }],
  padding: 'x'.repeat(2_000),
};

function appSending(body: object, how: 'sendJson' | 'json') {
  const app = express();
  app.get('/answer', (_req, res) =>
    how === 'json' ? res.json(body) : sendJson(res, body),
  );
  return app;
}

describe('sendJson', () => {
  it('sends what res.json sends: body, content type and ETag', async () => {
    const expected = await request(appSending(answer, 'json')).get('/answer');
    const sent = await request(appSending(answer, 'sendJson')).get('/answer');
    expect(sent.status).toBe(200);
    expect(sent.text).toBe(expected.text);
    expect(sent.headers['content-type']).toBe(expected.headers['content-type']);
    expect(sent.headers.etag).toBe(expected.headers.etag);
  });

  it('answers 304 to a client that sends the ETag it has', async () => {
    const app = appSending(answer, 'sendJson');
    const first = await request(app).get('/answer');
    const again = await request(app)
      .get('/answer')
      .set('If-None-Match', first.headers.etag);
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('serializes an answer once, however often it is sent', async () => {
    const once = { ...answer };
    const app = appSending(once, 'sendJson');
    const first = await request(app).get('/answer');
    // Answers are never changed once made; this one is, to show the bytes kept.
    once.status = 'healthy';
    const second = await request(app).get('/answer');
    expect(second.text).toBe(first.text);
    expect(JSON.parse(second.text).status).toBe('unhealthy');
  });

  it('sends no ETag from an app that turned them off', async () => {
    const app = appSending(answer, 'sendJson');
    app.set('etag', false);
    const sent = await request(app).get('/answer');
    expect(sent.headers.etag).toBeUndefined();
    expect(JSON.parse(sent.text)).toEqual(answer);
  });
});
