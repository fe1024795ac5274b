import express from 'express';
import request from 'supertest';
import {
  notificationsRefusal,
  REFUSAL_CONTROL_PATH,
} from './notificationsRefusal';

function appBehindRefusal() {
  const app = express();
  app.use(notificationsRefusal());
  app.use((req, res) => {
    res.status(200).send(`served ${req.path}`);
  });
  return app;
}

describe('notificationsRefusal', () => {
  it('passes everything while it accepts', async () => {
    const app = appBehindRefusal();
    const answer = await request(app).post('/api/notifications/notifications');
    expect(answer.status).toBe(200);
    expect(answer.text).toBe('served /api/notifications/notifications');
  });

  it("answers 503 to the notifications backend's requests only, until told to accept, and counts them", async () => {
    const app = appBehindRefusal();
    expect(
      (await request(app).post(`${REFUSAL_CONTROL_PATH}/refuse`)).body,
    ).toEqual({ refusing: true, refused: 0 });

    const refused = await request(app).post('/api/notifications/notifications');
    expect(refused.status).toBe(503);
    expect(refused.body.error.name).toBe('ServiceUnavailableError');
    expect((await request(app).get('/api/notifications/health')).status).toBe(
      503,
    );
    expect((await request(app).get('/api/healthcheck/v1/checks')).status).toBe(
      200,
    );

    expect(
      (await request(app).post(`${REFUSAL_CONTROL_PATH}/accept`)).body,
    ).toEqual({ refusing: false, refused: 2 });
    expect(
      (await request(app).post('/api/notifications/notifications')).status,
    ).toBe(200);
  });
});
