import { TestDatabaseId, TestDatabases } from '@backstage/backend-test-utils';
import { insertPauseMarkers } from '../claims/DatabaseClaimStore';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import {
  addRuns,
  addSlices,
  countRuns,
  hourRows,
  HOUR,
  PAYMENTS,
  RunSeed,
  setUpHistory,
  t,
} from './__testUtils__/historyFixtures';

jest.setTimeout(120_000);

describe('DatabaseHistoryStore: aggregation and retention', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const setUp = (databaseId: TestDatabaseId) =>
    setUpHistory(databases, databaseId);

  it.each(databases.eachSupportedId())(
    'aggregates hours with time-weighted up-time across a run gap and a paused interval, on %p',
    async databaseId => {
      const { knex, store, clock } = await setUp(databaseId);
      await addSlices(knex, [{ id: 'api|payments|production' }]);
      const slice = 'api|payments|production';
      await addRuns(knex, [
        { sliceId: slice, at: t(10, 0), status: 'healthy', durationMs: 100 },
        { sliceId: slice, at: t(10, 10), status: 'healthy', durationMs: 300 },
        {
          sliceId: slice,
          at: t(10, 20),
          status: 'unhealthy',
          durationMs: 5_000,
        },
        // Nothing runs from 10:20 to 11:30: unhealthy all that time.
        { sliceId: slice, at: t(11, 30), status: 'healthy', durationMs: 200 },
      ]);
      // Paused at 11:45, resumed with a run at 13:15.
      await insertPauseMarkers(knex, [{ sliceId: slice, at: t(11, 45) }]);
      await addRuns(knex, [
        { sliceId: slice, at: t(13, 15), status: 'healthy', durationMs: 150 },
      ]);
      clock.now = t(14, 20);

      const result = await store.aggregateHours(t(14));

      expect(result).toEqual({ hours: 4, rows: 4, aggregatedUntil: t(14) });
      const common = {
        sliceId: slice,
        systemRef: PAYMENTS,
        environment: 'production',
      };
      expect(await hourRows(knex)).toEqual([
        {
          ...common,
          hour: 10,
          runs: 3,
          failures: 1,
          p50: 300,
          p95: 5_000,
          p99: 5_000,
          up: 20 * 60,
          down: 40 * 60,
          unknown: 0,
          paused: 0,
          endStatus: 'unhealthy',
        },
        {
          ...common,
          hour: 11,
          runs: 1,
          failures: 0,
          p50: 200,
          p95: 200,
          p99: 200,
          up: 15 * 60,
          down: 30 * 60,
          unknown: 0,
          paused: 15 * 60,
          endStatus: 'paused',
        },
        {
          ...common,
          hour: 12,
          runs: 0,
          failures: 0,
          p50: null,
          p95: null,
          p99: null,
          up: 0,
          down: 0,
          unknown: 0,
          paused: 3600,
          endStatus: 'paused',
        },
        {
          ...common,
          hour: 13,
          runs: 1,
          failures: 0,
          p50: 150,
          p95: 150,
          p99: 150,
          up: 45 * 60,
          down: 0,
          unknown: 0,
          paused: 15 * 60,
          endStatus: 'healthy',
        },
      ]);

      // Paused time counts neither way: 80 minutes up, 70 down.
      expect(
        await store.uptime({ systemRef: PAYMENTS, from: t(10), to: t(14) }),
      ).toEqual({
        uptime: 80 / 150,
        upSeconds: 80 * 60,
        downSeconds: 70 * 60,
        unknownSeconds: 0,
        pausedSeconds: 90 * 60,
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'aggregates an hour only once it is complete, and gives the same rows when run again, on %p',
    async databaseId => {
      const { knex, store, clock } = await setUp(databaseId);
      const slice = 'api|payments|production';
      await addSlices(knex, [{ id: slice }]);
      await addRuns(knex, [
        { sliceId: slice, at: t(10, 5), status: 'healthy' },
        { sliceId: slice, at: t(11, 5), status: 'unhealthy' },
        { sliceId: slice, at: t(12, 5), status: 'healthy' },
        // Claimed but never finished: ignored.
        { sliceId: slice, at: t(12, 15), status: 'x', startedAt: null },
      ]);
      clock.now = t(12, 30);

      // Asked for more, it stops before the current hour.
      expect(await store.aggregateHours(t(20))).toEqual({
        hours: 2,
        rows: 2,
        aggregatedUntil: t(12),
      });
      const first = await hourRows(knex);
      expect(
        first.map(row => [row.hour, row.unknown, row.up, row.down]),
      ).toEqual([
        [10, 5 * 60, 55 * 60, 0],
        [11, 0, 5 * 60, 55 * 60],
      ]);

      // Nothing new to do; re-aggregating from the start replaces the rows
      // with equal ones and does not move the progress mark back.
      expect(await store.aggregateHours(t(12))).toMatchObject({
        hours: 0,
        rows: 0,
      });
      expect(await store.aggregateHours(t(12), { from: t(10) })).toEqual({
        hours: 2,
        rows: 2,
        aggregatedUntil: t(12),
      });
      expect(await hourRows(knex)).toEqual(first);

      clock.now = t(13, 1);
      expect(await store.aggregateHours(t(13))).toEqual({
        hours: 1,
        rows: 1,
        aggregatedUntil: t(13),
      });
      expect((await hourRows(knex)).slice(2)).toMatchObject([
        { hour: 12, runs: 1, down: 5 * 60, up: 55 * 60 },
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'carries the status of the last run before each hour, however long ago, and counts a late first run in the hour it started, on %p',
    async databaseId => {
      const { knex, store, clock } = await setUp(databaseId);
      await addSlices(knex, [
        { id: 'daily|payments|production', intervalMs: 24 * HOUR },
        { id: 'late|payments|staging', environment: 'staging' },
      ]);
      await addRuns(knex, [
        // One run at 02:00, then nothing: 03:00 to 06:00 stay unhealthy.
        {
          sliceId: 'daily|payments|production',
          at: t(2),
          status: 'unhealthy',
        },
        // A first probe whose grid tick (03:05) is long before its start.
        {
          sliceId: 'late|payments|staging',
          at: t(3, 5),
          startedAt: t(4, 20),
          status: 'healthy',
        },
      ]);
      clock.now = t(6, 30);

      await store.aggregateHours(t(6));

      const rows = await hourRows(knex);
      expect(
        rows
          .filter(row => row.sliceId === 'daily|payments|production')
          .map(row => [row.hour, row.runs, row.down]),
      ).toEqual([
        [2, 1, 3600],
        [3, 0, 3600],
        [4, 0, 3600],
        [5, 0, 3600],
      ]);
      expect(
        rows
          .filter(row => row.sliceId === 'late|payments|staging')
          .map(row => [row.hour, row.runs, row.unknown, row.up]),
      ).toEqual([
        [4, 1, 20 * 60, 40 * 60],
        [5, 0, 0, 3600],
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'stops counting a removed slice at its removal, on %p',
    async databaseId => {
      const { knex, store, clock } = await setUp(databaseId);
      const slice = 'gone|payments|production';
      await addSlices(knex, [{ id: slice, removedAt: t(10, 30) }]);
      await addRuns(knex, [{ sliceId: slice, at: t(9), status: 'healthy' }]);
      clock.now = t(12, 30);

      await store.aggregateHours(t(12));

      expect(
        (await hourRows(knex)).map(row => [row.hour, row.up, row.unknown]),
      ).toEqual([
        [9, 3600, 0],
        [10, 1800, 0],
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'aggregates every slice when there are more than one page of them, on %p',
    async databaseId => {
      const { knex, store, clock } = await setUp(databaseId);
      const ids = Array.from(
        { length: 1_234 },
        (_, i) => `c${String(i).padStart(4, '0')}|payments|production`,
      );
      await addSlices(
        knex,
        ids.map(id => ({ id, intervalMs: 30_000 })),
      );
      await addRuns(
        knex,
        ids.flatMap((sliceId, i) => [
          {
            sliceId,
            at: t(10, 1),
            status: i % 2 ? 'healthy' : 'unhealthy',
          },
          { sliceId, at: t(10, 31), status: 'healthy' },
        ]),
      );
      clock.now = t(11, 30);

      expect(await store.aggregateHours(t(11))).toEqual({
        hours: 1,
        rows: ids.length,
        aggregatedUntil: t(11),
      });
      const totals = await store.uptime({
        systemRef: PAYMENTS,
        from: t(10),
        to: t(11),
      });
      // Half the slices are unhealthy for 30 minutes, every slice is
      // unknown for its first minute.
      expect(totals.downSeconds).toBeCloseTo(617 * 30 * 60, 3);
      expect(totals.upSeconds).toBeCloseTo(617 * 59 * 60 + 617 * 29 * 60, 3);
      expect(totals.unknownSeconds).toBeCloseTo(1_234 * 60, 3);
    },
  );

  describe('retention', () => {
    it.each(databases.eachSupportedId())(
      'prunes old runs in chunks, but never runs that hours not aggregated yet need, on %p',
      async databaseId => {
        const { knex, store, clock } = await setUp(databaseId);
        const ids = Array.from({ length: 10 }, (_, i) => `c${i}|payments|prod`);
        await addSlices(
          knex,
          ids.map(id => ({ id, intervalMs: 5_000 })),
        );
        // 10 slices, every 5 s from 00:00 to 00:50: 6,000 old runs, more
        // than one delete chunk; then a run of each at 02:10, still recent.
        const runs: RunSeed[] = [];
        for (const sliceId of ids) {
          for (let at = t(0); at < t(0, 50); at += 5_000) {
            runs.push({ sliceId, at, status: 'healthy' });
          }
          runs.push({ sliceId, at: t(2, 10), status: 'unhealthy' });
        }
        await addRuns(knex, runs);
        expect(await countRuns(knex)).toBe(6_000 + 10);
        clock.now = t(3, 5);

        // Nothing aggregated yet: nothing may go.
        expect(await store.pruneRuns(t(3))).toBe(0);

        await store.aggregateHours(t(2));
        expect(await store.pruneRuns(t(3))).toBe(6_000);
        expect(await countRuns(knex)).toBe(10);

        // The runs of hour 2 stay until it is aggregated; then hour 2 is
        // still right, carried from hour 1's aggregate.
        clock.now = t(4, 5);
        await store.aggregateHours(t(4));
        const rows = await hourRows(knex);
        expect(
          rows
            .filter(row => row.sliceId === ids[0])
            .map(row => [row.hour, row.runs, row.up, row.down]),
        ).toEqual([
          [0, 600, 3600, 0],
          [1, 0, 3600, 0],
          [2, 1, 10 * 60, 50 * 60],
          [3, 0, 0, 3600],
        ]);
        expect(await store.pruneRuns(t(4))).toBe(10);
        expect(await countRuns(knex)).toBe(0);
      },
    );

    it.each(databases.eachSupportedId())(
      'prunes hours older than the aggregate retention, on %p',
      async databaseId => {
        const { knex, store, clock } = await setUp(databaseId);
        const ids = Array.from({ length: 3 }, (_, i) => `c${i}|payments|prod`);
        await addSlices(
          knex,
          ids.map(id => ({ id })),
        );
        await addRuns(
          knex,
          ids.map(sliceId => ({ sliceId, at: t(0), status: 'healthy' })),
        );
        clock.now = t(24, 5);
        await store.aggregateHours(t(24));
        expect(await hourRows(knex)).toHaveLength(3 * 24);

        expect(await store.pruneHours(t(20))).toBe(3 * 20);
        const left = await hourRows(knex);
        expect(new Set(left.map(row => row.hour))).toEqual(
          new Set([20, 21, 22, 23]),
        );
      },
    );
  });
});
