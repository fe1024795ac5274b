import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import type { Knex } from 'knex';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import type { DesiredSlice } from '../model';
import { DatabaseSliceStore } from './DatabaseSliceStore';
import type { SliceWrite } from '../model';

jest.setTimeout(120_000);

function sliceOf(system: number, environment = 'production'): DesiredSlice {
  const checkId = 'healthcheck:default/api';
  const systemRef = `system:default/system-${system}`;
  return {
    id: encodeSliceId({ checkId, systemRef, environment }),
    checkId,
    systemRef,
    environment,
    intervalMs: 30_000,
    timeoutMs: 5_000,
    type: 'http',
    target: `https://system-${system}.example.com/health`,
    config: {},
    conditions: [],
    thresholds: { failure: 3, success: 1 },
    configHash: `hash-${system}`,
  };
}

const running = (slice: DesiredSlice): SliceWrite => ({ paused: false, slice });

describe('DatabaseSliceStore', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  async function storeOn(
    databaseId: Parameters<typeof databases.init>[0],
    pageSize?: number,
  ) {
    const knex = await databases.init(databaseId);
    const database = mockServices.database({
      knex,
      migrations: { skip: false },
    });
    const store = await DatabaseSliceStore.create({ database, pageSize });
    return { store, knex };
  }

  /**
   * `count` running slices at `revision`, made by the database itself (one
   * statement): the reads are under test, and a fixture this size written
   * through applyChanges would take most of the test's time.
   */
  async function insertSlicesInBulk(
    knex: Knex,
    count: number,
    revision: number,
  ) {
    // Ids of one width, so the last in id order is slice-<1,000,000 + count>.
    const id = `'slice-' || (1000000 + i)`;
    await knex.raw(
      `INSERT INTO healthcheck_slices
         (id, check_id, system_ref, environment, paused, removed, interval_ms,
          timeout_ms, config_hash, definition, revision, updated_at)
       WITH RECURSIVE n(i) AS (
         SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
       SELECT ${id}, 'healthcheck:default/api', 'system:default/s' || i,
         'production', false, false, 30000, 5000, 'hash',
         '{"id":"' || ${id} || '"}', ${revision}, 0
       FROM n`,
    );
    await knex('healthcheck_reconcile_state')
      .where('name', 'slices')
      .update({ revision });
  }

  it.each(databases.eachSupportedId())(
    'reads 200,000 slices whole, headers and running set, on %p',
    async databaseId => {
      // More rows than a call's arguments can hold: results spread into
      // push(...) or Math.max(...) threw RangeError past about 120,000.
      const count = 200_000;
      const { store, knex } = await storeOn(databaseId);
      await insertSlicesInBulk(knex, count, 7);

      const headers = await store.listSliceHeaders();
      expect(headers).toHaveLength(count);
      expect(new Set(headers.map(h => h.id)).size).toBe(count);

      const read = await store.readRunning();
      expect(read.revision).toBe(7);
      expect(read.slices).toHaveLength(count);
      expect(read.slices[count - 1]).toEqual({
        id: `slice-${1_000_000 + count}`,
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'reads a page at a time and returns each slice once, paused and removed ones where they belong, on %p',
    async databaseId => {
      const { store, knex } = await storeOn(databaseId, 3);
      const slices = Array.from({ length: 10 }, (_, i) => sliceOf(i));
      const first = await store.applyChanges({
        write: slices.map(running),
        remove: [],
      });
      // A later revision: one removed, one paused, one changed.
      const changed = { ...slices[4], intervalMs: 60_000 };
      const second = await store.applyChanges({
        write: [
          running(changed),
          { paused: true, slice: slices[7] },
          running(sliceOf(10)),
        ],
        remove: [slices[2].id],
      });

      const headers = await store.listSliceHeaders();
      expect(headers.map(h => h.id).sort()).toEqual(
        [...slices, sliceOf(10)]
          .map(s => s.id)
          .filter(id => id !== slices[2].id)
          .sort(),
      );

      const read = await store.readRunning();
      expect(read.revision).toBe(second.revision);
      expect(read.slices.map(s => s.id).sort()).toEqual(
        [...slices, sliceOf(10)]
          .map(s => s.id)
          .filter(id => id !== slices[2].id && id !== slices[7].id)
          .sort(),
      );
      expect(read.slices.find(s => s.id === changed.id)?.intervalMs).toBe(
        60_000,
      );

      const sinceFirst = await store.readChangesSince(first.revision);
      expect(sinceFirst.revision).toBe(second.revision);
      expect(sinceFirst.upserted.map(s => s.id).sort()).toEqual(
        [changed.id, sliceOf(10).id].sort(),
      );
      expect(sinceFirst.stopped.sort()).toEqual(
        [slices[2].id, slices[7].id].sort(),
      );

      // From the start: every row once, as it is now, over four pages.
      const sinceStart = await store.readChangesSince(0);
      expect(sinceStart.upserted).toHaveLength(9);
      expect(sinceStart.stopped.sort()).toEqual(
        [slices[2].id, slices[7].id].sort(),
      );
      expect(
        sinceStart.upserted.find(s => s.id === changed.id)?.intervalMs,
      ).toBe(60_000);

      // A few changes, as a loader reads them every minute: the revision
      // and one statement.
      const third = await store.applyChanges({
        write: [running({ ...slices[5], timeoutMs: 9_000 })],
        remove: [],
      });
      const statements: string[] = [];
      const count = (query: { sql: string }) => statements.push(query.sql);
      knex.on('query', count);
      const few = await store.readChangesSince(second.revision);
      knex.off('query', count);
      expect(few).toEqual({
        revision: third.revision,
        upserted: [{ ...slices[5], timeoutMs: 9_000 }],
        stopped: [],
      });
      expect(statements).toHaveLength(2);

      const some = await store.listSliceHeaders({
        systemRefs: [slices[1].systemRef.toUpperCase(), slices[2].systemRef],
      });
      expect(some.map(h => h.id)).toEqual([slices[1].id]);
    },
  );

  it.each(databases.eachSupportedId())(
    'keeps the last catalog poll for every instance to read, apart from the slices revision, on %p',
    async databaseId => {
      const { store } = await storeOn(databaseId);
      await expect(store.readCatalogPoll()).resolves.toBeUndefined();

      await store.writeCatalogPoll({
        startedAt: 1_700_000_000_000,
        tookMs: 1804.6,
      });
      await store.writeCatalogPoll({
        startedAt: 1_700_000_180_000,
        tookMs: 950,
      });

      await expect(store.readCatalogPoll()).resolves.toEqual({
        startedAt: 1_700_000_180_000,
        tookMs: 950,
      });
      // The poll's row is not the slices': their revision is untouched.
      await expect(store.readRevision()).resolves.toBe(0);
    },
  );

  it('refuses a page size that is not a whole number above 0', async () => {
    expect(() => new DatabaseSliceStore({} as Knex, Date.now, 0)).toThrow(
      'DatabaseSliceStore: pageSize must be a whole number >= 1, not 0',
    );
  });
});
