import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import knexFactory, { Knex } from 'knex';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseOutbox } from './DatabaseOutbox';

jest.setTimeout(60_000);

const T0 = Date.UTC(2026, 11, 8, 12, 0, 0);

function notification(stream: string, n: number) {
  return { stream, kind: 'notification', payload: { n } };
}

describe('DatabaseOutbox', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  async function setup(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const outbox = await DatabaseOutbox.create({
      database: mockServices.database({ knex, migrations: { skip: false } }),
    });
    return { knex, outbox };
  }

  async function write(
    knex: Knex,
    outbox: DatabaseOutbox,
    entries: Parameters<DatabaseOutbox['write']>[0],
    now = T0,
  ) {
    await knex.transaction(tx => outbox.write(entries, now, tx));
  }

  const claim = (outbox: DatabaseOutbox, instanceId: string, now = T0) =>
    outbox.claimDue({ instanceId, now, leaseMs: 60_000, limit: 50 });

  describe.each(databases.eachSupportedId())('on %p', databaseId => {
    it('holds entries exactly when the transaction that wrote them commits', async () => {
      const { knex, outbox } = await setup(databaseId);
      await expect(
        knex.transaction(async tx => {
          await outbox.write([notification('a', 1)], T0, tx);
          throw new Error('the state change failed');
        }),
      ).rejects.toThrow('the state change failed');
      expect(await claim(outbox, 'one')).toEqual([]);

      await write(knex, outbox, [notification('a', 1)]);
      expect(await claim(outbox, 'one')).toEqual([
        expect.objectContaining({
          stream: 'a',
          kind: 'notification',
          payload: { n: 1 },
          createdAt: T0,
          attempts: 0,
        }),
      ]);
    });

    it("delivers a stream's entries one at a time, in the order written", async () => {
      const { knex, outbox } = await setup(databaseId);
      await write(knex, outbox, [notification('a', 1), notification('b', 1)]);
      await write(knex, outbox, [notification('a', 2)]);

      const first = await claim(outbox, 'one');
      expect(first.map(e => [e.stream, e.payload])).toEqual([
        ['a', { n: 1 }],
        ['b', { n: 1 }],
      ]);
      // a/2 waits for a/1, even for another instance.
      expect(await claim(outbox, 'two')).toEqual([]);

      await outbox.delivered([first[0].id]);
      const next = await claim(outbox, 'two');
      expect(next.map(e => [e.stream, e.payload])).toEqual([['a', { n: 2 }]]);
    });

    it('keeps a claimed entry from other instances until its lease runs out', async () => {
      const { knex, outbox } = await setup(databaseId);
      await write(knex, outbox, [notification('a', 1)]);
      const [held] = await claim(outbox, 'dies');

      expect(await claim(outbox, 'lives', T0 + 59_000)).toEqual([]);
      const [taken] = await claim(outbox, 'lives', T0 + 61_000);
      expect(taken.id).toBe(held.id);
    });

    it('puts a failed delivery back, due later, counting the attempt; only for the holder', async () => {
      const { knex, outbox } = await setup(databaseId);
      await write(knex, outbox, [notification('a', 1)]);
      const [entry] = await claim(outbox, 'one');

      await outbox.retryLater(
        { id: entry.id, instanceId: 'someone-else' },
        T0 + 1,
        'ignored',
      );
      expect(await claim(outbox, 'two', T0 + 30_000)).toEqual([]);

      await outbox.retryLater(
        { id: entry.id, instanceId: 'one' },
        T0 + 5_000,
        '503 Service Unavailable',
      );
      expect(await claim(outbox, 'two', T0 + 4_999)).toEqual([]);
      expect(await outbox.measure()).toEqual({
        pending: 1,
        failing: 1,
        oldestCreatedAt: T0,
      });
      const [again] = await claim(outbox, 'two', T0 + 5_000);
      expect(again).toMatchObject({ id: entry.id, attempts: 1 });
    });

    it('gives the claims of a stopping instance back at once', async () => {
      const { knex, outbox } = await setup(databaseId);
      await write(knex, outbox, [notification('a', 1)]);
      await claim(outbox, 'stops');
      await outbox.release('stops');
      expect(await claim(outbox, 'stays')).toHaveLength(1);
    });

    it('drops entries past the delivery deadline, and the oldest over the bound', async () => {
      const { knex, outbox } = await setup(databaseId);
      await write(knex, outbox, [notification('old', 1)], T0 - 10_000);
      await write(knex, outbox, [
        notification('a', 1),
        notification('b', 1),
        notification('c', 1),
      ]);

      const dropped = await outbox.dropUndeliverable({
        writtenBefore: T0 - 5_000,
        maxPending: 2,
      });

      expect(dropped.map(d => d.stream).sort()).toEqual(['a', 'old']);
      expect((await claim(outbox, 'one')).map(e => e.stream)).toEqual([
        'b',
        'c',
      ]);
      expect(await outbox.measure()).toMatchObject({ pending: 2 });
    });

    it('measures an empty outbox as nothing waiting', async () => {
      const { outbox } = await setup(databaseId);
      expect(await outbox.measure()).toEqual({ pending: 0, failing: 0 });
    });

    it('never hands one entry to two instances claiming at once', async () => {
      const { knex, outbox } = await setup(databaseId);
      const entries = Array.from({ length: 120 }, (_, i) =>
        notification(`stream-${i}`, i),
      );
      await write(knex, outbox, entries);
      // Each instance its own pool on PostgreSQL, as another process has.
      const config = knex.client.config as Knex.Config;
      const others =
        config.client === 'pg'
          ? [0, 1, 2].map(() =>
              knexFactory({
                client: 'pg',
                connection: config.connection,
                pool: { min: 0, max: 2 },
              }),
            )
          : [knex, knex, knex];
      try {
        const claims = await Promise.all(
          others.flatMap((client, i) =>
            [0, 1, 2].map(() =>
              new DatabaseOutbox(client).claimDue({
                instanceId: `instance-${i}`,
                now: T0,
                leaseMs: 60_000,
                limit: 20,
              }),
            ),
          ),
        );
        const ids = claims.flat().map(e => e.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(ids.length).toBeGreaterThan(0);
      } finally {
        if (config.client === 'pg') {
          await Promise.all(others.map(client => client.destroy()));
        }
      }
    });
  });
});
