import { mockServices } from '@backstage/backend-test-utils';
import knexFactory from 'knex';
import request from 'supertest';
import { appWithErrorMiddleware } from '../__testUtils__/appWithErrorMiddleware';
import { migrateUp } from '../database/migrations';
import type { DesiredSlice } from '../model';
import { DatabaseHeartbeatStore } from './DatabaseHeartbeatStore';
import { createHeartbeatRouter } from './heartbeatRouter';
import { PingJournal } from './PingJournal';
import { PingRateLimiter } from './PingRateLimiter';

describe('the ping route', () => {
  const slice = { id: 's1', checkId: 'export' } as DesiredSlice;

  /**
   * The ping routes on a database in memory, which `setAway` cuts off
   * (the token lookup and the write fail), with a ping journal.
   */
  async function setup(running: DesiredSlice[]) {
    const knex = knexFactory({
      client: 'better-sqlite3',
      connection: ':memory:',
      useNullAsDefault: true,
    });
    await migrateUp(knex);
    const database = new DatabaseHeartbeatStore(knex);
    const [{ token }, { token: unseen }] = await database.issueTokens(
      'export',
      ['s1', 's2'],
      0,
    );
    // Away: refused at once, or a connection that hangs.
    let away: boolean | 'hangs' = false;
    const cut =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      (...args: A) => {
        if (away === 'hangs') {
          return new Promise<R>(() => {});
        }
        return away
          ? Promise.reject(new Error('connect ECONNREFUSED'))
          : call(...args);
      };
    const store = Object.assign(Object.create(database), {
      findByTokenHash: cut(database.findByTokenHash.bind(database)),
      recordPing: cut(database.recordPing.bind(database)),
    }) as DatabaseHeartbeatStore;
    const pings = new PingJournal({
      store,
      logger: mockServices.logger.mock(),
      maxEntries: 100,
      retryMs: 10,
    });
    const deafSpans = { deaf: jest.fn(), heard: jest.fn(), spans: () => [] };
    let clock = 5_000;
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
        pings,
        deafSpans,
        now: () => clock,
      }),
    );
    return {
      app,
      store: database,
      token,
      unseen,
      runNow,
      deafSpans,
      setAway: (value: boolean | 'hangs') => {
        away = value;
      },
      setClock: (at: number) => {
        clock = at;
      },
      destroy: async () => {
        await pings.stop();
        await knex.destroy();
      },
    };
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

  describe('while the database is away', () => {
    it('takes the ping of a URL pinged here before (202), and writes it at its own time when the database answers', async () => {
      const {
        app,
        store,
        token,
        runNow,
        deafSpans,
        setAway,
        setClock,
        destroy,
      } = await setup([slice]);
      await request(app).post(`/v1/ping/${token}`).expect(200);
      runNow.mockClear();

      setAway(true);
      setClock(9_000);
      const during = await request(app)
        .post(`/v1/ping/${token}`)
        .set('Content-Type', 'text/plain')
        .send('exported 10 rows')
        .expect(202);
      expect(during.body).toEqual({
        ok: true,
        signal: 'success',
        journaled: true,
      });
      expect(deafSpans.deaf).toHaveBeenCalledWith(9_000);
      expect(runNow).not.toHaveBeenCalled();

      setAway(false);
      setClock(20_000);
      await new Promise(resolve => setTimeout(resolve, 100));
      expect(await store.read('s1')).toMatchObject({
        lastPingAt: 9_000,
        lastMessage: 'exported 10 rows',
      });
      // Its run follows once it is written.
      expect(runNow).toHaveBeenCalledWith(slice, 20_000);
      await destroy();
    });

    it('does not hold a ping on a database that hangs: journaled within seconds, at the time it came', async () => {
      const { app, store, token, setAway, setClock, destroy } = await setup([
        slice,
      ]);
      await request(app).post(`/v1/ping/${token}`).expect(200);
      setAway('hangs');
      setClock(9_000);
      const started = Date.now();
      await request(app).post(`/v1/ping/${token}`).expect(202);
      expect(Date.now() - started).toBeLessThan(5_000);

      setAway(false);
      setClock(11_000);
      await new Promise(resolve => setTimeout(resolve, 100));
      expect((await store.read('s1'))?.lastPingAt).toBe(9_000);
      await destroy();
    });

    it('answers 503 with Retry-After to a URL this instance has not seen, so the job tries again', async () => {
      const { app, unseen, setAway, destroy } = await setup([slice]);
      setAway(true);
      const refused = await request(app).post(`/v1/ping/${unseen}`).expect(503);
      expect(refused.headers['retry-after']).toBe('5');
      expect(refused.body.error.message).toContain(
        'has not seen this ping URL yet',
      );
      await destroy();
    });
  });
});
