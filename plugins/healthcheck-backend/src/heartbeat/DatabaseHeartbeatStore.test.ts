import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { migrateDown, migrateUp } from '../database/migrations';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseHeartbeatStore } from './DatabaseHeartbeatStore';
import { hashPingToken } from './pingTokens';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: requiredTestDatabases() });

describe.each(databases.eachSupportedId())(
  'DatabaseHeartbeatStore, on %p',
  databaseId => {
    async function createStore() {
      const knex = await databases.init(databaseId);
      const database = mockServices.database({
        knex,
        migrations: { skip: false },
      });
      return { knex, store: await DatabaseHeartbeatStore.create({ database }) };
    }

    it('finds a slice by its token’s hash, and no longer by a replaced one', async () => {
      const { store } = await createStore();
      const [first] = await store.issueTokens('export', ['s1'], 1_000);
      expect(await store.findByTokenHash(hashPingToken(first.token))).toEqual({
        sliceId: 's1',
        checkId: 'export',
      });
      await store.recordPing('s1', 'success', 2_000, 'done');
      const [second] = await store.issueTokens('export', ['s1'], 3_000);
      expect(
        await store.findByTokenHash(hashPingToken(first.token)),
      ).toBeUndefined();
      expect(
        await store.findByTokenHash(hashPingToken(second.token)),
      ).toBeDefined();
      // A new token keeps what the job sent, and the first deadline's start.
      expect(await store.read('s1')).toMatchObject({
        armedAt: 1_000,
        lastPingAt: 2_000,
        tokenHint: second.tokenHint,
      });
    });

    it('measures a run from its start to its success, and only then', async () => {
      const { store } = await createStore();
      await store.issueTokens('export', ['s1'], 0);
      await store.recordPing('s1', 'success', 1_000, undefined);
      expect((await store.read('s1'))?.lastDurationMs).toBeUndefined();
      await store.recordPing('s1', 'start', 5_000, undefined);
      await store.recordPing('s1', 'success', 7_500, 'exported 10 rows');
      expect(await store.read('s1')).toMatchObject({
        lastStartAt: 5_000,
        lastPingAt: 7_500,
        lastDurationMs: 2_500,
        lastMessage: 'exported 10 rows',
      });
      // A start that ended in a failure measures nothing for a later success.
      await store.recordPing('s1', 'start', 8_000, undefined);
      await store.recordPing('s1', 'fail', 9_000, 'disk full');
      await store.recordPing('s1', 'success', 10_000, undefined);
      expect(await store.read('s1')).toMatchObject({
        lastFailAt: 9_000,
        lastPingAt: 10_000,
        lastDurationMs: undefined,
      });
    });

    it('never moves a signal back: a ping written late, older than the one kept, changes nothing', async () => {
      const { store } = await createStore();
      await store.issueTokens('export', ['s1'], 0);
      await store.recordPing('s1', 'start', 4_000, undefined);
      await store.recordPing('s1', 'success', 6_000, 'second run');
      await store.recordPing('s1', 'fail', 3_000, 'first try');
      // Written once the database came back, each at the time it came.
      await store.recordPing('s1', 'success', 2_000, 'first run');
      await store.recordPing('s1', 'start', 1_000, undefined);
      await store.recordPing('s1', 'fail', 2_500, 'older');
      expect(await store.read('s1')).toMatchObject({
        lastStartAt: 4_000,
        lastPingAt: 6_000,
        lastFailAt: 3_000,
        lastDurationMs: 2_000,
        lastMessage: 'second run',
      });
    });

    it('prunes the rows of slices gone from the slice table, and keeps the rest', async () => {
      const { knex, store } = await createStore();
      await store.issueTokens('export', ['kept', 'tombstone', 'gone'], 0);
      const slice = (id: string, removed: boolean) => ({
        id,
        check_id: 'export',
        system_ref: 'system:default/data',
        environment: id,
        paused: false,
        removed,
        interval_ms: 10_000,
        timeout_ms: 10_000,
        config_hash: 'h',
        definition: null,
        revision: 1,
        updated_at: 0,
      });
      await knex('healthcheck_slices').insert([
        slice('kept', false),
        // A tombstone still tells instances of the removal: not yet.
        slice('tombstone', true),
      ]);
      expect(await store.pruneOrphans()).toBe(1);
      expect(await store.read('gone')).toBeUndefined();
      expect(await store.read('kept')).toBeDefined();
      expect(await store.read('tombstone')).toBeDefined();
      expect(await store.pruneOrphans()).toBe(0);
    });

    it('migrates down and up again', async () => {
      const { knex } = await createStore();
      expect(await knex.schema.hasTable('healthcheck_heartbeats')).toBe(true);
      await migrateDown(knex);
      expect(await knex.schema.hasTable('healthcheck_heartbeats')).toBe(false);
      await migrateUp(knex);
      expect(await knex.schema.hasTable('healthcheck_heartbeats')).toBe(true);
    });
  },
);
