import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import knexFactory, { Knex } from 'knex';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { migrateUp } from '../database/migrations';
import { DatabaseClaimStore } from './DatabaseClaimStore';
import type { CompletedRun, TickKey } from '../model';

jest.setTimeout(60_000);

const MIGRATION = '20261130020000_runs_and_instances.js';
const MIGRATIONS_DIR = resolvePackagePath(
  '@vigil/plugin-healthcheck-backend',
  'migrations',
);
const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

/** `count` ticks of distinct slices on one grid time. */
function ticksAt(
  scheduledAt: number,
  count: number,
  prefix = 'slice',
): TickKey[] {
  return Array.from({ length: count }, (_, i) => ({
    sliceId: `healthcheck:${prefix}-${i}:system%3Adefault%2Fshop:production`,
    scheduledAt,
  }));
}

function keyOf(tick: TickKey): string {
  return `${tick.sliceId}@${tick.scheduledAt}`;
}

/** Records the SQL of every statement the knex instance sends. */
function recordStatements(knex: Knex) {
  const statements: string[] = [];
  const listener = (query: { sql: string }) => statements.push(query.sql);
  knex.on('query', listener);
  return {
    statements,
    stop: () => knex.removeListener('query', listener),
  };
}

function completedRun(
  tick: TickKey,
  overrides: Partial<CompletedRun> = {},
): CompletedRun {
  return {
    sliceId: tick.sliceId,
    scheduledAt: tick.scheduledAt,
    startedAt: tick.scheduledAt + 3,
    durationMs: 41.7,
    outcome: 'pass',
    status: 'healthy',
    conditions: [
      {
        condition: '[STATUS] == 200',
        severity: 'unhealthy',
        success: true,
        display: '[STATUS] == 200',
      },
    ],
    lane: 'normal',
    timeoutMs: 5_000,
    ...overrides,
  };
}

describe('DatabaseClaimStore', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const extraClients: Knex[] = [];

  afterAll(async () => {
    await Promise.all(extraClients.map(client => client.destroy()));
  });

  async function createStore(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const database = mockServices.database({
      knex,
      migrations: { skip: false },
    });
    return { knex, store: await DatabaseClaimStore.create({ database }) };
  }

  /**
   * A second instance's store: on PostgreSQL its own connection pool to the
   * same database, as another process would have; SQLite in memory has one
   * connection, so there it shares the first one's.
   */
  async function secondStore(knex: Knex) {
    const config = knex.client.config as Knex.Config;
    if (config.client !== 'pg') {
      return DatabaseClaimStore.create({
        database: mockServices.database({ knex, migrations: { skip: true } }),
      });
    }
    const other = knexFactory({
      client: 'pg',
      connection: config.connection,
      pool: { min: 0, max: 4 },
    });
    extraClients.push(other);
    return DatabaseClaimStore.create({
      database: mockServices.database({
        knex: other,
        migrations: { skip: true },
      }),
    });
  }

  async function runRows(knex: Knex) {
    const rows = await knex('healthcheck_runs').orderBy([
      'slice_id',
      'scheduled_at',
    ]);
    return rows.map(row => ({
      ...row,
      scheduled_at: Number(row.scheduled_at),
      claimed_at: Number(row.claimed_at),
      started_at: row.started_at === null ? null : Number(row.started_at),
    }));
  }

  it.each(databases.eachSupportedId())(
    'migrates the runs and instances tables down and up again, on %p',
    async databaseId => {
      const { knex } = await createStore(databaseId);
      for (const column of [
        'slice_id',
        'scheduled_at',
        'claimed_by',
        'claimed_at',
        'started_at',
        'duration_ms',
        'outcome',
        'status',
        'conditions',
        'error_kind',
        'error_message',
        'lane',
        'timeout_ms',
      ]) {
        expect(await knex.schema.hasColumn('healthcheck_runs', column)).toBe(
          true,
        );
      }
      for (const column of ['id', 'started_at', 'heartbeat_at']) {
        expect(
          await knex.schema.hasColumn('healthcheck_instances', column),
        ).toBe(true);
      }

      await knex.migrate.down({ directory: MIGRATIONS_DIR, name: MIGRATION });
      expect(await knex.schema.hasTable('healthcheck_runs')).toBe(false);
      expect(await knex.schema.hasTable('healthcheck_instances')).toBe(false);
      expect(await knex.schema.hasTable('healthcheck_checks')).toBe(true);

      await migrateUp(knex);
      expect(await knex.schema.hasTable('healthcheck_runs')).toBe(true);
      expect(await knex.schema.hasTable('healthcheck_instances')).toBe(true);
    },
  );

  it.each(databases.eachSupportedId())(
    'keeps one run per slice and tick: a second row for the pair is refused, on %p',
    async databaseId => {
      const { knex } = await createStore(databaseId);
      const row = {
        slice_id: 'healthcheck:a:b:c',
        scheduled_at: T0,
        claimed_by: 'instance-a',
        claimed_at: T0,
      };
      await knex('healthcheck_runs').insert(row);
      // Matched on the message: better-sqlite3 may raise its error from
      // another realm than Jest's, where it is not an `Error`.
      await expect(
        knex('healthcheck_runs').insert({ ...row, claimed_by: 'instance-b' }),
      ).rejects.toHaveProperty(
        'message',
        expect.stringMatching(/UNIQUE constraint failed|duplicate key value/),
      );
      await knex('healthcheck_runs').insert({
        ...row,
        scheduled_at: T0 + 60_000,
      });
      expect(await runRows(knex)).toHaveLength(2);
    },
  );

  it.each(databases.eachSupportedId())(
    'says whether instances may share the database: PostgreSQL yes, SQLite no, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      expect(store.isShared).toBe(databaseId.startsWith('POSTGRES'));
    },
  );

  it.each(databases.eachSupportedId())(
    'claims a batch of 500 ticks in one statement and none of them twice, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const batch = ticksAt(T0, 500);

      const recorder = recordStatements(knex);
      const claimed = await store.claimTicks('instance-a', batch, T0 + 2);
      recorder.stop();

      expect(recorder.statements).toHaveLength(1);
      expect(recorder.statements[0]).toMatch(
        /^\s*INSERT INTO healthcheck_runs/,
      );
      expect(claimed).toHaveLength(500);
      // The caller's own objects come back, so it can keep what rides along.
      expect(new Set(claimed)).toEqual(new Set(batch));

      expect(await store.claimTicks('instance-a', batch, T0 + 3)).toEqual([]);
      expect(await store.claimTicks('instance-b', batch, T0 + 3)).toEqual([]);

      const rows = await runRows(knex);
      expect(rows).toHaveLength(500);
      expect(rows[0]).toMatchObject({
        scheduled_at: T0,
        claimed_by: 'instance-a',
        claimed_at: T0 + 2,
        started_at: null,
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'claims only the new ticks of a batch that overlaps an earlier one, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const earlier = ticksAt(T0, 300);
      await store.claimTicks('instance-a', earlier.slice(0, 200), T0);

      const next = [...earlier.slice(100, 300), ...ticksAt(T0 + 60_000, 50)];
      const claimed = await store.claimTicks('instance-b', next, T0 + 1);

      expect(claimed.map(keyOf).sort()).toEqual(
        [...earlier.slice(200, 300), ...ticksAt(T0 + 60_000, 50)]
          .map(keyOf)
          .sort(),
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'claims a tick once even when the batch lists it twice, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const [tick] = ticksAt(T0, 1);
      const claimed = await store.claimTicks(
        'instance-a',
        [tick, { ...tick }, tick],
        T0,
      );
      expect(claimed).toEqual([tick]);
    },
  );

  it.each(databases.eachSupportedId())(
    'claims 12,000 ticks in three statements of at most 5,000, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const batch = ticksAt(T0, 12_000);

      const recorder = recordStatements(knex);
      const claimed = await store.claimTicks('instance-a', batch, T0);
      recorder.stop();

      expect(recorder.statements).toHaveLength(3);
      expect(claimed).toHaveLength(12_000);
    },
  );

  it.each(databases.eachSupportedId())(
    'splits a batch two instances race for into disjoint halves that cover it, on %p',
    async databaseId => {
      const { knex, store: storeA } = await createStore(databaseId);
      const storeB = await secondStore(knex);

      for (let round = 0; round < 10; round++) {
        const batch = ticksAt(T0 + round * 1_000, 500);
        // Opposite orders: without one global insert order, PostgreSQL would
        // deadlock the two statements now and then.
        const [wonByA, wonByB] = await Promise.all([
          storeA.claimTicks('instance-a', batch, T0),
          storeB.claimTicks('instance-b', [...batch].reverse(), T0),
        ]);

        const keysA = new Set(wonByA.map(keyOf));
        const keysB = new Set(wonByB.map(keyOf));
        expect([...keysA].filter(key => keysB.has(key))).toEqual([]);
        expect(keysA.size + keysB.size).toBe(500);
      }

      const rows = await runRows(knex);
      expect(rows).toHaveLength(5_000);
    },
  );

  it.each(databases.eachSupportedId())(
    'writes the results into the claimed runs in one statement, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const batch = ticksAt(T0, 300);
      await store.claimTicks('instance-a', batch, T0 + 1);

      const results = batch.map(tick => completedRun(tick));
      results[7] = completedRun(batch[7], {
        outcome: 'fail',
        status: 'unhealthy',
        durationMs: 5_000.4,
        conditions: [],
        error: { kind: 'timeout', message: "Timed out after 5000 ms ('GET')" },
        lane: 'suspect',
        timeoutMs: 1_500,
      });
      const recorder = recordStatements(knex);
      const updated = await store.writeRuns('instance-b', results, T0 + 2);
      recorder.stop();

      expect(recorder.statements).toHaveLength(1);
      expect(updated).toBe(300);
      const rows = await runRows(knex);
      expect(rows).toHaveLength(300);
      const bySlice = new Map(rows.map(row => [row.slice_id, row]));
      expect(bySlice.get(batch[0].sliceId)).toMatchObject({
        claimed_by: 'instance-a',
        started_at: T0 + 3,
        duration_ms: 42,
        outcome: 'pass',
        status: 'healthy',
        error_kind: null,
        error_message: null,
        lane: 'normal',
        timeout_ms: 5_000,
      });
      expect(JSON.parse(bySlice.get(batch[0].sliceId).conditions)).toEqual(
        results[0].conditions,
      );
      expect(bySlice.get(batch[7].sliceId)).toMatchObject({
        duration_ms: 5_000,
        outcome: 'fail',
        status: 'unhealthy',
        conditions: '[]',
        error_kind: 'timeout',
        error_message: "Timed out after 5000 ms ('GET')",
        lane: 'suspect',
        timeout_ms: 1_500,
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'writes runs probed without a claim: new rows, empty claims filled in, a result already there kept, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const [unclaimed, claimedEmpty, doneElsewhere] = ticksAt(T0, 3);
      await store.claimTicks('instance-a', [claimedEmpty], T0);
      await store.claimTicks('instance-b', [doneElsewhere], T0);
      await store.writeRuns(
        'instance-b',
        [completedRun(doneElsewhere, { outcome: 'fail', status: 'unhealthy' })],
        T0,
      );
      const many = ticksAt(T0 + 60_000, 1_500, 'many');

      const recorder = recordStatements(knex);
      const written = await store.writeRuns(
        'instance-a',
        [unclaimed, claimedEmpty, doneElsewhere, ...many].map(tick =>
          completedRun(tick),
        ),
        T0 + 90_000,
      );
      recorder.stop();

      // 1,000 results a statement.
      expect(recorder.statements).toHaveLength(2);
      expect(written).toBe(2 + 1_500);
      const rows = await runRows(knex);
      expect(rows).toHaveLength(3 + 1_500);
      const bySlice = new Map(
        rows
          .filter(row => row.scheduled_at === T0)
          .map(row => [row.slice_id, row]),
      );
      expect(bySlice.get(unclaimed.sliceId)).toMatchObject({
        claimed_by: 'instance-a',
        claimed_at: T0 + 90_000,
        started_at: T0 + 3,
        outcome: 'pass',
        status: 'healthy',
        lane: 'normal',
      });
      expect(bySlice.get(claimedEmpty.sliceId)).toMatchObject({
        claimed_by: 'instance-a',
        claimed_at: T0,
        started_at: T0 + 3,
        outcome: 'pass',
      });
      expect(bySlice.get(doneElsewhere.sliceId)).toMatchObject({
        claimed_by: 'instance-b',
        outcome: 'fail',
        status: 'unhealthy',
      });
      expect(rows.every(row => row.started_at !== null)).toBe(true);

      // Written twice (a retry after a failure midway), nothing changes.
      expect(
        await store.writeRuns('instance-a', [completedRun(unclaimed)], T0),
      ).toBe(0);
    },
  );

  it.each(databases.eachSupportedId())(
    'gives back only its own claims that have no result yet, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const [done, deferred, other] = ticksAt(T0, 3);
      await store.claimTicks('instance-a', [done, deferred], T0);
      await store.claimTicks('instance-b', [other], T0);
      await store.writeRuns('instance-a', [completedRun(done)], T0);

      expect(
        await store.releaseClaims('instance-a', [done, deferred, other]),
      ).toBe(1);

      expect((await runRows(knex)).map(row => row.slice_id)).toEqual(
        [done.sliceId, other.sliceId].sort(),
      );
      // The released tick can be claimed again.
      expect(await store.claimTicks('instance-a', [deferred], T0)).toEqual([
        deferred,
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'lists the instances whose heartbeat is younger than the TTL, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      await store.heartbeat('instance-b', T0);
      await store.heartbeat('instance-a', T0 + 5_000);

      expect(await store.liveInstances(T0 + 14_999, 15_000)).toEqual([
        'instance-a',
        'instance-b',
      ]);
      // Exactly one TTL of silence is dead.
      expect(await store.liveInstances(T0 + 15_000, 15_000)).toEqual([
        'instance-a',
      ]);

      await store.heartbeat('instance-b', T0 + 16_000);
      expect(await store.liveInstances(T0 + 16_000, 15_000)).toEqual([
        'instance-a',
        'instance-b',
      ]);
      const row = await knex('healthcheck_instances')
        .where('id', 'instance-b')
        .first();
      expect(Number(row.started_at)).toBe(T0);
      expect(Number(row.heartbeat_at)).toBe(T0 + 16_000);

      await store.removeInstance('instance-b');
      expect(await store.liveInstances(T0 + 16_000, 15_000)).toEqual([
        'instance-a',
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'forgets instances silent for longer than the given time, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      await store.heartbeat('crashed', T0);
      await store.heartbeat('alive', T0 + 140_000);

      expect(await store.removeExpiredInstances(T0 + 149_999, 150_000)).toBe(0);
      expect(await store.removeExpiredInstances(T0 + 150_000, 150_000)).toBe(1);
      expect(await store.liveInstances(T0 + 150_000, 150_000)).toEqual([
        'alive',
      ]);
    },
  );
});
