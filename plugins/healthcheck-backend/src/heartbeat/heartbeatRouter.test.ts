import { mockServices } from '@backstage/backend-test-utils';
import knexFactory from 'knex';
import request from 'supertest';
import { appWithErrorMiddleware } from '../__testUtils__/appWithErrorMiddleware';
import { migrateUp } from '../database/migrations';
import type { DesiredSlice } from '../model';
import { DatabaseHeartbeatStore } from './DatabaseHeartbeatStore';
import { createHeartbeatRouter } from './heartbeatRouter';
import { PingRateLimiter } from './PingRateLimiter';

describe('the ping route', () => {
  const slice = { id: 's1', checkId: 'export' } as DesiredSlice;

  async function setup(running: DesiredSlice[]) {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: ':memory:',
      useNullAsDefault: true,
    });
    await migrateUp(knex);
    const store = new DatabaseHeartbeatStore(knex);
    const [{ token }] = await store.issueTokens('export', ['s1'], 0);
    // The first run joins one under way; the next starts its own.
    let calls = 0;
    const runNow = jest.fn(async (_slice: DesiredSlice, _at: number) => ({
      joined: ++calls === 1,
      done: Promise.resolve(undefined),
    }));
    const app = appWithErrorMiddleware(
      createHeartbeatRouter({
        logger: mockServices.logger.mock(),
        httpAuth: mockServices.httpAuth(),
        store,
        limiter: new PingRateLimiter({ pingsPerMinute: 100 }),
        checks: { authorizedCheck: jest.fn() },
        readRunningOfCheck: async () => running,
        runNow,
        redact: text => text,
        baseUrl: async () => 'http://backstage/api/healthcheck',
        now: () => 5_000,
      }),
    );
    return { app, store, token, runNow, destroy: () => knex.destroy() };
  }

  it('runs the slice once more when its ping joined a run under way', async () => {
    const { app, token, runNow, destroy } = await setup([slice]);
    await request(app).post(`/v1/ping/${token}`).expect(200);
    await new Promise(resolve => setImmediate(resolve));
    expect(runNow.mock.calls).toEqual([
      [slice, 5_000],
      [slice, 5_000],
    ]);
    await destroy();
  });

  it('records a start without a run', async () => {
    const { app, store, token, runNow, destroy } = await setup([slice]);
    await request(app).get(`/v1/ping/${token}/start`).expect(200);
    expect(runNow).not.toHaveBeenCalled();
    expect((await store.read('s1'))?.lastStartAt).toBe(5_000);
    await destroy();
  });

  it('keeps the ping of a slice that is not running, and runs nothing', async () => {
    const { app, store, token, runNow, destroy } = await setup([]);
    await request(app)
      .post(`/v1/ping/${token}`)
      .set('Content-Type', 'text/plain')
      .send('done')
      .expect(200);
    expect(runNow).not.toHaveBeenCalled();
    expect(await store.read('s1')).toMatchObject({
      lastPingAt: 5_000,
      lastMessage: 'done',
    });
    await destroy();
  });
});
