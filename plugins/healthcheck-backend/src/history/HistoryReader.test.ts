import { TestDatabaseId, TestDatabases } from '@backstage/backend-test-utils';
import { mockServices } from '@backstage/backend-test-utils';
import { Knex } from 'knex';
import { insertPauseMarkers } from '../claims/DatabaseClaimStore';
import { DatabaseHistoryStore } from './DatabaseHistoryStore';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import {
  addRuns,
  addSlices,
  HOUR,
  PAYMENTS,
  seedPaymentsSystem,
  setUpHistory,
  t,
  DAY,
} from './__testUtils__/historyFixtures';

jest.setTimeout(120_000);

describe('DatabaseHistoryStore: up-time and response time', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const setUp = (databaseId: TestDatabaseId) =>
    setUpHistory(databases, databaseId);
  const seedSystem = (databaseId: TestDatabaseId) =>
    seedPaymentsSystem(databases, databaseId);

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
