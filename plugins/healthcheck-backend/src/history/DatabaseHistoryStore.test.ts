import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { Knex } from 'knex';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { insertPauseMarkers } from '../claims/DatabaseClaimStore';
import { DatabaseHistoryStore } from './DatabaseHistoryStore';

jest.setTimeout(120_000);

/** Midnight UTC, 1 November 2026; tests speak in hours and minutes of it. */
const DAY = Date.UTC(2026, 10, 1);
const HOUR = 3_600_000;
const MINUTE = 60_000;
/** Epoch ms of `h`:`m` on that day. */
const t = (h: number, m = 0) => DAY + h * HOUR + m * MINUTE;

const PAYMENTS = 'system:default/payments';

interface SliceSeed {
  id: string;
  systemRef?: string;
  environment?: string;
  intervalMs?: number;
  removedAt?: number;
}

interface RunSeed {
  sliceId: string;
  at: number;
  status: string;
  outcome?: 'pass' | 'degraded' | 'fail';
  durationMs?: number;
  /** When it started, if not at its tick. */
  startedAt?: number | null;
  conditions?: unknown;
  error?: { kind: string; message: string };
}

describe('DatabaseHistoryStore', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  async function setUp(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const clock = { now: t(0) };
    const store = await DatabaseHistoryStore.create({
      database: mockServices.database({ knex, migrations: { skip: false } }),
      now: () => clock.now,
    });
    return { knex, store, clock };
  }

  async function addSlices(knex: Knex, slices: SliceSeed[]) {
    const rows = slices.map(slice => ({
      id: slice.id,
      check_id: slice.id.split('|')[0],
      system_ref: slice.systemRef ?? PAYMENTS,
      environment: slice.environment ?? 'production',
      paused: false,
      removed: slice.removedAt !== undefined,
      interval_ms: slice.intervalMs ?? 10 * MINUTE,
      timeout_ms: 5_000,
      config_hash: 'h',
      definition: null,
      revision: 1,
      updated_at: slice.removedAt ?? t(0),
    }));
    for (let at = 0; at < rows.length; at += 500) {
      await knex('healthcheck_slices').insert(rows.slice(at, at + 500));
    }
  }

  async function addRuns(knex: Knex, runs: RunSeed[]) {
    const rows = runs.map(run => ({
      slice_id: run.sliceId,
      scheduled_at: run.at,
      claimed_by: 'instance-a',
      claimed_at: run.at,
      started_at: run.startedAt === undefined ? run.at : run.startedAt,
      duration_ms: run.startedAt === null ? null : run.durationMs ?? 100,
      outcome:
        run.startedAt === null
          ? null
          : run.outcome ?? (run.status === 'unhealthy' ? 'fail' : 'pass'),
      status: run.startedAt === null ? null : run.status,
      conditions:
        run.conditions === undefined ? null : JSON.stringify(run.conditions),
      error_kind: run.error?.kind ?? null,
      error_message: run.error?.message ?? null,
    }));
    for (let at = 0; at < rows.length; at += 500) {
      await knex('healthcheck_runs').insert(rows.slice(at, at + 500));
    }
  }

  async function hourRows(knex: Knex) {
    const rows = await knex('healthcheck_run_hours')
      .orderBy(['slice_id', 'hour_start'])
      .select();
    return rows.map(row => ({
      sliceId: row.slice_id,
      hour: (Number(row.hour_start) - DAY) / HOUR,
      systemRef: row.system_ref,
      environment: row.environment,
      runs: Number(row.run_count),
      failures: Number(row.failure_count),
      p50: row.latency_p50_ms === null ? null : Number(row.latency_p50_ms),
      p95: row.latency_p95_ms === null ? null : Number(row.latency_p95_ms),
      p99: row.latency_p99_ms === null ? null : Number(row.latency_p99_ms),
      up: Number(row.up_seconds),
      down: Number(row.down_seconds),
      unknown: Number(row.unknown_seconds),
      paused: Number(row.paused_seconds),
      endStatus: row.end_status,
    }));
  }

  async function countRuns(knex: Knex) {
    const row = await knex('healthcheck_runs').count({ n: '*' }).first();
    return Number(row?.n);
  }

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

  describe('up-time per slice', () => {
    /**
     * One slice per environment of payments, so each slice's up-time must
     * equal its environment's: production goes down, is not run for 70
     * minutes, comes back, is paused and resumes (as in the first test);
     * staging turns unhealthy after the last aggregated hour; qa was
     * removed at 11:00; dev never ran. Billing is another system.
     */
    async function seedSlices(databaseId: TestDatabaseId) {
      const setup = await setUp(databaseId);
      const { knex } = setup;
      await addSlices(knex, [
        { id: 'api|payments|production' },
        { id: 'api|payments|staging', environment: 'staging' },
        { id: 'api|payments|qa', environment: 'qa', removedAt: t(11) },
        { id: 'api|payments|dev', environment: 'dev' },
        { id: 'api|billing|production', systemRef: 'system:default/billing' },
      ]);
      const production = 'api|payments|production';
      await addRuns(knex, [
        { sliceId: production, at: t(10, 0), status: 'healthy' },
        { sliceId: production, at: t(10, 10), status: 'healthy' },
        { sliceId: production, at: t(10, 20), status: 'unhealthy' },
        { sliceId: production, at: t(11, 30), status: 'healthy' },
        { sliceId: 'api|payments|staging', at: t(9), status: 'healthy' },
        { sliceId: 'api|payments|staging', at: t(14, 5), status: 'unhealthy' },
        { sliceId: 'api|payments|qa', at: t(10), status: 'healthy' },
        { sliceId: 'api|billing|production', at: t(10), status: 'healthy' },
      ]);
      await insertPauseMarkers(knex, [{ sliceId: production, at: t(11, 45) }]);
      await addRuns(knex, [
        { sliceId: production, at: t(13, 15), status: 'healthy' },
      ]);
      return setup;
    }

    /** Ending now (14:20): from 10:30 (half an hour prorated), 10:00, 00:00. */
    const ranges = [
      { from: t(10, 30), to: t(14, 20) },
      { from: t(10), to: t(14, 20) },
      { from: t(0), to: t(14, 20) },
    ];

    it.each(databases.eachSupportedId())(
      'gives each slice its up-time over each range, from hour aggregates and the raw runs after them, on %p',
      async databaseId => {
        const { store, clock } = await seedSlices(databaseId);
        clock.now = t(14, 20);
        await store.aggregateHours(t(14));

        const uptimes = await store.sliceUptimes({
          systemRef: 'System:default/Payments',
          ranges,
        });

        expect([...uptimes.keys()].sort()).toEqual([
          'api|payments|dev',
          'api|payments|production',
          'api|payments|qa',
          'api|payments|staging',
        ]);
        // From 10:30: hour 10 prorated by half (up 10, down 20 of its 20
        // and 40 minutes), hour 11 up 15, down 30, paused 15; hour 12
        // paused; hour 13 up 45, paused 15; 14:00-14:20 up from raw runs.
        // The paused 90 minutes count neither way.
        expect(uptimes.get('api|payments|production')).toEqual([
          {
            uptime: 90 / 140,
            upSeconds: 90 * 60,
            downSeconds: 50 * 60,
            unknownSeconds: 0,
            pausedSeconds: 90 * 60,
          },
          {
            uptime: 100 / 170,
            upSeconds: 100 * 60,
            downSeconds: 70 * 60,
            unknownSeconds: 0,
            pausedSeconds: 90 * 60,
          },
          expect.objectContaining({ uptime: 100 / 170 }),
        ]);
        // Up until 14:05, down after: raw runs after the aggregated hours.
        expect(
          uptimes.get('api|payments|staging')!.map(u => u.downSeconds),
        ).toEqual([15 * 60, 15 * 60, 15 * 60]);
        // Removed at 11:00: half an hour, an hour, an hour (from 10:00).
        expect(uptimes.get('api|payments|qa')!.map(u => u.upSeconds)).toEqual([
          30 * 60,
          60 * 60,
          60 * 60,
        ]);
        // Never ran: its time since the last aggregated hour is unknown.
        expect(uptimes.get('api|payments|dev')).toEqual(
          ranges.map(() => ({
            uptime: undefined,
            upSeconds: 0,
            downSeconds: 0,
            unknownSeconds: 20 * 60,
            pausedSeconds: 0,
          })),
        );

        // The same semantics as the system's up-time: with one slice per
        // environment, each slice's figures are its environment's.
        for (const [sliceId, summaries] of uptimes) {
          const environment = sliceId.split('|')[2];
          for (const [index, range] of ranges.entries()) {
            expect(summaries[index]).toEqual(
              await store.uptime({
                systemRef: PAYMENTS,
                environment,
                ...range,
              }),
            );
          }
        }
      },
    );

    it.each(databases.eachSupportedId())(
      'reads raw runs alone before any aggregation, and runs as many queries for many slices as for few, on %p',
      async databaseId => {
        const { knex, store, clock } = await seedSlices(databaseId);
        clock.now = t(14, 20);

        const raw = await store.sliceUptimes({ systemRef: PAYMENTS, ranges });
        // Not prorated: 10:30 to 11:30 down, 11:30 to 11:45 and 13:15 to
        // 14:20 up, paused in between.
        expect(raw.get('api|payments|production')![0]).toEqual({
          uptime: 80 / 140,
          upSeconds: 80 * 60,
          downSeconds: 60 * 60,
          unknownSeconds: 0,
          pausedSeconds: 90 * 60,
        });
        // Before its first run, production's time is unknown.
        expect(raw.get('api|payments|production')![2]).toMatchObject({
          uptime: 100 / 170,
          unknownSeconds: 10 * 3600,
        });

        const countQueries = async () => {
          let count = 0;
          const onQuery = () => count++;
          knex.on('query', onQuery);
          try {
            const uptimes = await store.sliceUptimes({
              systemRef: PAYMENTS,
              ranges,
            });
            return { uptimes, count };
          } finally {
            knex.off('query', onQuery);
          }
        };
        await store.aggregateHours(t(14));
        const few = await countQueries();
        expect(few.uptimes.size).toBe(4);

        await addSlices(
          knex,
          Array.from({ length: 40 }, (_, i) => ({
            id: `c${i}|payments|production`,
          })),
        );
        await addRuns(
          knex,
          Array.from({ length: 40 }, (_, i) => ({
            sliceId: `c${i}|payments|production`,
            at: t(12),
            status: 'healthy',
          })),
        );
        await store.aggregateHours(t(14), { from: t(9) });
        const many = await countQueries();
        expect(many.uptimes.size).toBe(44);
        expect(many.uptimes.get('c7|payments|production')![1]).toMatchObject({
          uptime: 1,
          upSeconds: (2 * 60 + 20) * 60,
        });
        // The progress mark, a query of whole hours per range, one of the
        // partial hours of all ranges, and the raw runs after the
        // aggregated hours (shared by the ranges, which end together).
        expect(many.count).toBe(few.count);
        expect(many.count).toBeLessThanOrEqual(10);
      },
    );

    it.each(databases.eachSupportedId())(
      'gives nothing for a system without slices or for empty ranges, on %p',
      async databaseId => {
        const { store, clock } = await seedSlices(databaseId);
        clock.now = t(14, 20);
        expect(
          await store.sliceUptimes({
            systemRef: 'system:default/nothing',
            ranges,
          }),
        ).toEqual(new Map());
        expect(
          await store.sliceUptimes({
            systemRef: PAYMENTS,
            ranges: [{ from: t(15), to: t(16) }],
          }),
        ).toEqual(new Map());
        await expect(
          store.sliceUptimes({
            systemRef: PAYMENTS,
            ranges: [{ from: Number.NaN, to: t(1) }],
          }),
        ).rejects.toMatchObject({ name: 'InputError' });
      },
    );
  });

  describe('reads', () => {
    async function seedSystem(databaseId: TestDatabaseId) {
      const setup = await setUp(databaseId);
      const { knex } = setup;
      await addSlices(knex, [
        { id: 'api|payments|production' },
        { id: 'db|payments|production' },
        { id: 'api|payments|staging', environment: 'staging' },
        { id: 'api|billing|production', systemRef: 'system:default/billing' },
      ]);
      await addRuns(knex, [
        // production api: healthy all along, 100 ms.
        ...[0, 30, 60, 90, 120].map(m => ({
          sliceId: 'api|payments|production',
          at: t(10, m),
          status: 'healthy',
          durationMs: 100,
        })),
        // production db: unhealthy from 11:00 on, 300 ms.
        {
          sliceId: 'db|payments|production',
          at: t(10),
          status: 'healthy',
          durationMs: 300,
        },
        {
          sliceId: 'db|payments|production',
          at: t(11),
          status: 'unhealthy',
          durationMs: 300,
          error: { kind: 'timeout', message: 'no answer in 5s' },
        },
        // staging: paused from 10:00.
        {
          sliceId: 'api|payments|staging',
          at: t(9, 59),
          status: 'healthy',
          durationMs: 50,
        },
        // another system, always down.
        {
          sliceId: 'api|billing|production',
          at: t(10),
          status: 'unhealthy',
        },
      ]);
      await insertPauseMarkers(setup.knex, [
        { sliceId: 'api|payments|staging', at: t(10) },
      ]);
      return setup;
    }

    it.each(databases.eachSupportedId())(
      'sums up-time over all slices of a system, from aggregates for whole hours and raw runs for the current one, on %p',
      async databaseId => {
        const { store, clock } = await seedSystem(databaseId);
        clock.now = t(12, 30);
        await store.aggregateHours(t(12));

        // 10:00-12:30: api up 150 min; db up 60, down 90; staging paused.
        expect(
          await store.uptime({
            systemRef: 'System:default/Payments',
            from: t(10),
            to: t(12, 30),
          }),
        ).toEqual({
          uptime: 210 / 300,
          upSeconds: 210 * 60,
          downSeconds: 90 * 60,
          unknownSeconds: 0,
          pausedSeconds: 150 * 60,
        });
        // One environment; a `to` in the future stops at now.
        expect(
          await store.uptime({
            systemRef: PAYMENTS,
            environment: 'staging',
            from: t(10),
            to: t(30),
          }),
        ).toMatchObject({ uptime: undefined, pausedSeconds: 150 * 60 });

        // A start inside an hour prorates that hour's aggregate.
        expect(
          await store.uptime({
            systemRef: PAYMENTS,
            environment: 'production',
            from: t(10, 30),
            to: t(11, 30),
          }),
        ).toMatchObject({ upSeconds: 90 * 60, downSeconds: 30 * 60 });

        // Without any aggregation, everything comes from raw runs.
        const fresh = await seedSystem(databaseId);
        fresh.clock.now = t(12, 30);
        expect(
          await fresh.store.uptime({
            systemRef: PAYMENTS,
            from: t(10),
            to: t(12, 30),
          }),
        ).toEqual(
          await store.uptime({
            systemRef: PAYMENTS,
            from: t(10),
            to: t(12, 30),
          }),
        );
      },
    );

    it.each(databases.eachSupportedId())(
      'gives response time percentiles weighted by run count, on %p',
      async databaseId => {
        const { store, clock } = await seedSystem(databaseId);
        clock.now = t(12, 30);
        await store.aggregateHours(t(12));

        // Hours 10 and 11: api 2 runs of 100 each, db 1 of 300 each; the
        // current hour: one api run of 100.
        expect(
          await store.responseTime({
            systemRef: PAYMENTS,
            environment: 'production',
            from: t(10),
            to: t(12, 30),
          }),
        ).toEqual({
          runCount: 7,
          p50Ms: Math.round((5 * 100 + 2 * 300) / 7),
          p95Ms: Math.round((5 * 100 + 2 * 300) / 7),
          p99Ms: Math.round((5 * 100 + 2 * 300) / 7),
        });
        expect(
          await store.responseTime({
            systemRef: 'system:default/nothing',
            from: t(10),
            to: t(12),
          }),
        ).toEqual({
          runCount: 0,
          p50Ms: undefined,
          p95Ms: undefined,
          p99Ms: undefined,
        });
      },
    );

    it.each(databases.eachSupportedId())(
      'gives up-time and response time together from one read, on %p',
      async databaseId => {
        const { store, clock, knex } = await seedSystem(databaseId);
        clock.now = t(12, 30);
        await store.aggregateHours(t(12));
        const range = { systemRef: PAYMENTS, from: t(10), to: t(12, 30) };
        const count = async <T>(read: () => Promise<T>) => {
          let statements = 0;
          const onQuery = () => {
            statements += 1;
          };
          knex.on('query', onQuery);
          const value = await read();
          knex.off('query', onQuery);
          return { value, statements };
        };

        const apart = await count(async () => ({
          uptime: await store.uptime(range),
          responseTime: await store.responseTime(range),
        }));
        const together = await count(() => store.summary(range));

        expect(together.value).toEqual(apart.value);
        expect(together.statements * 2).toBe(apart.statements);
      },
    );

    it.each(databases.eachSupportedId())(
      'lists aggregated hours per environment, on %p',
      async databaseId => {
        const { store, clock } = await seedSystem(databaseId);
        clock.now = t(12, 30);
        await store.aggregateHours(t(12));

        const hours = await store.listHours({
          systemRef: PAYMENTS,
          from: t(10, 30),
          to: t(12, 30),
        });
        expect(
          hours.map(h => [
            h.environment,
            (h.hourStart - DAY) / HOUR,
            h.runCount,
            h.failureCount,
            h.upSeconds,
            h.downSeconds,
            h.pausedSeconds,
            h.uptime,
            h.latencyP50Ms,
          ]),
        ).toEqual([
          ['production', 10, 3, 0, 7200, 0, 0, 1, Math.round(500 / 3)],
          ['production', 11, 3, 1, 3600, 3600, 0, 0.5, Math.round(500 / 3)],
          ['staging', 10, 0, 0, 0, 0, 3600, undefined, undefined],
          ['staging', 11, 0, 0, 0, 0, 3600, undefined, undefined],
        ]);
      },
    );

    it.each(databases.eachSupportedId())(
      'lists runs newest first, by slice or by system and environment, a page at a time, on %p',
      async databaseId => {
        const { knex, store } = await seedSystem(databaseId);
        await addRuns(knex, [
          {
            sliceId: 'api|payments|production',
            at: t(12, 30),
            status: 'x',
            startedAt: null,
          },
          {
            sliceId: 'db|payments|production',
            at: t(11, 30),
            status: 'unhealthy',
            conditions: [{ condition: '[STATUS] == 200', success: false }],
          },
        ]);

        const bySlice = await store.listRuns({
          sliceId: 'db|payments|production',
          from: t(0),
          to: t(24),
        });
        expect(bySlice.nextCursor).toBeUndefined();
        expect(bySlice.runs).toEqual([
          {
            sliceId: 'db|payments|production',
            checkId: 'db',
            systemRef: PAYMENTS,
            environment: 'production',
            scheduledAt: t(11, 30),
            startedAt: t(11, 30),
            durationMs: 100,
            outcome: 'fail',
            status: 'unhealthy',
            conditions: [{ condition: '[STATUS] == 200', success: false }],
            error: undefined,
          },
          expect.objectContaining({
            scheduledAt: t(11),
            error: { kind: 'timeout', message: 'no answer in 5s' },
          }),
          expect.objectContaining({ scheduledAt: t(10), status: 'healthy' }),
        ]);

        // Production of payments: 5 api runs (the unfinished one left out)
        // and 3 db runs, two per page, ties at one instant by slice id.
        const seen: Array<[string, number]> = [];
        let cursor: string | undefined;
        let pages = 0;
        do {
          const page = await store.listRuns({
            systemRef: PAYMENTS,
            environment: 'production',
            from: t(10),
            to: t(13),
            limit: 2,
            cursor,
          });
          pages++;
          expect(page.runs.length).toBeLessThanOrEqual(2);
          seen.push(
            ...page.runs.map(
              run =>
                [
                  run.sliceId.split('|')[0],
                  (run.scheduledAt - DAY) / MINUTE,
                ] as [string, number],
            ),
          );
          cursor = page.nextCursor;
        } while (cursor);
        expect(pages).toBe(4);
        expect(seen).toEqual([
          ['api', 720],
          ['db', 690],
          ['api', 690],
          ['db', 660],
          ['api', 660],
          ['api', 630],
          ['db', 600],
          ['api', 600],
        ]);

        // All environments: the pause marker of staging, without outcome.
        const all = await store.listRuns({
          systemRef: PAYMENTS,
          from: t(10),
          to: t(10, 1),
        });
        expect(
          all.runs.map(run => [run.sliceId, run.status, run.outcome]),
        ).toEqual([
          ['db|payments|production', 'healthy', 'pass'],
          ['api|payments|staging', 'paused', undefined],
          ['api|payments|production', 'healthy', 'pass'],
        ]);

        await expect(
          store.listRuns({
            sliceId: 'db|payments|production',
            from: t(0),
            to: t(24),
            cursor: 'nonsense',
          }),
        ).rejects.toMatchObject({ name: 'InputError' });
        await expect(
          store.listRuns({
            sliceId: 'db|payments|production',
            from: t(0),
            to: t(24),
            limit: 0,
          }),
        ).rejects.toMatchObject({ name: 'InputError' });
      },
    );
  });
});

const postgres = requiredTestDatabases().filter(id => id === 'POSTGRES_15');

(postgres.length > 0 ? describe : describe.skip)(
  'DatabaseHistoryStore when PostgreSQL does not answer',
  () => {
    const databases = TestDatabases.create({ ids: postgres });

    /** Sessions of this database waiting for a lock. */
    async function lockWaiters(knex: Knex): Promise<number> {
      const result = await knex.raw(
        `SELECT count(*) AS n FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return Number(result.rows[0].n);
    }

    it('cancels a read past its statement timeout, and reads again once the database answers', async () => {
      const knex = await databases.init('POSTGRES_15');
      // Migrated as the plugin does; then a store with a short timeout.
      await DatabaseHistoryStore.create({
        database: mockServices.database({ knex, migrations: { skip: false } }),
      });
      const store = new DatabaseHistoryStore(knex, () => t(12), {
        statementTimeoutMs: 300,
      });
      const query = { systemRef: PAYMENTS, from: t(0), to: t(12) };

      // Another session holds the history's tables, as a migration would.
      const migration = await knex.transaction();
      try {
        await migration.raw(
          'LOCK TABLE healthcheck_history_state, healthcheck_run_hours IN ACCESS EXCLUSIVE MODE',
        );
        const startedAt = Date.now();
        await expect(store.uptime(query)).rejects.toMatchObject({
          name: 'KnexTimeoutError',
        });
        expect(Date.now() - startedAt).toBeLessThan(10_000);
        // PostgreSQL stopped the statement: it no longer waits on the lock.
        const deadline = Date.now() + 5_000;
        while ((await lockWaiters(knex)) > 0 && Date.now() < deadline) {
          await new Promise(resolve => setTimeout(resolve, 25));
        }
        expect(await lockWaiters(knex)).toBe(0);
      } finally {
        await migration.rollback();
      }

      await expect(store.uptime(query)).resolves.toMatchObject({
        uptime: undefined,
        upSeconds: 0,
      });
    });
  },
);
