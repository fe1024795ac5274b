import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import type { Knex } from 'knex';
import { setTimeout as sleep } from 'node:timers/promises';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { waitFor } from '../__testUtils__/waitFor';
import { DatabaseClaimStore } from '../claims/DatabaseClaimStore';
import { OutageJournal } from './OutageJournal';
import { type JournaledRun, OutageMode } from './OutageMode';
import type { RunRecord } from '../model';

jest.setTimeout(60_000);

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

function sliceIdOf(system: string, environment = 'production'): string {
  return encodeSliceId({
    checkId: 'ping',
    systemRef: `system:default/${system}`,
    environment,
  });
}

/** A run of the `ping` check on a system at a tick; passing unless told. */
function runOf(
  system: string,
  scheduledAt: number,
  overrides: Partial<RunRecord> = {},
): RunRecord {
  const failing = overrides.outcome === 'fail';
  const status = overrides.status ?? (failing ? 'unhealthy' : 'healthy');
  return {
    sliceId: sliceIdOf(system),
    checkId: 'ping',
    systemRef: `system:default/${system}`,
    environment: 'production',
    scheduledAt,
    startedAt: scheduledAt + 2,
    durationMs: 12,
    outcome: 'pass',
    status,
    previousStatus: status,
    statusChanged: false,
    state: {
      status,
      consecutiveFailures: failing ? 2 : 0,
      consecutiveSuccesses: failing ? 0 : 5,
      since: T0,
      lastOutcome: failing ? 'fail' : 'pass',
    },
    conditions: [],
    lane: 'normal',
    timeoutMs: 1_000,
    queueWaitMs: 1,
    probe: { ok: !failing, durationMs: 12, status: failing ? 503 : 200 },
    ...overrides,
  };
}

/** Waits, checking every 5 ms, for `done`; fails after 5 s. */
async function pollUntil(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done()) {
    if (Date.now() > deadline) {
      throw new Error('Timed out');
    }
    await sleep(5);
  }
}

describe('OutageMode', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  async function setUp(
    databaseId: TestDatabaseId,
    options: {
      maxEntries?: number;
      /** Called after each write, as probes finishing meanwhile would. */
      duringWrite?: (outage: OutageMode) => void;
      writeSpacingMs?: number;
      /** What the re-derive after an outage waits for; resolved by default. */
      rederiveDone?: Promise<void>;
    } = {},
  ) {
    const knex: Knex = await databases.init(databaseId);
    const store = await DatabaseClaimStore.create({
      database: mockServices.database({ knex, migrations: { skip: false } }),
    });
    const logger = mockServices.logger.mock();
    const written: JournaledRun[][] = [];
    const rederived: Array<readonly string[] | undefined> = [];
    let back = 0;
    const outage = new OutageMode({
      instanceId: 'instance-a',
      store,
      journal: new OutageJournal({ maxEntries: options.maxEntries ?? 1_000 }),
      afterWrite: async runs => {
        written.push(runs);
        options.duringWrite?.(outage);
      },
      rederive: async ({ systemRefs } = {}) => {
        rederived.push(systemRefs);
        await options.rederiveDone;
        return undefined as never;
      },
      logger,
      retryMs: 50,
      writeSpacingMs: options.writeSpacingMs,
    });
    outage.onDatabaseBack(() => {
      back++;
    });
    const rows = async () =>
      (
        await knex('healthcheck_runs').orderBy(['scheduled_at', 'slice_id'])
      ).map(row => ({
        tick: `${row.slice_id}@${Number(row.scheduled_at)}`,
        claimedBy: row.claimed_by,
        status: row.status,
      }));
    // Away: every statement on the runs table fails, as with no database.
    const away = () =>
      knex.schema.renameTable('healthcheck_runs', 'healthcheck_runs_away');
    const returns = () =>
      knex.schema.renameTable('healthcheck_runs_away', 'healthcheck_runs');
    return {
      knex,
      store,
      logger,
      outage,
      written,
      rederived,
      backs: () => back,
      rows,
      away,
      returns,
    };
  }

  it.each(databases.eachSupportedId())(
    'goes on writing results while the re-derive after an outage runs, on %p',
    async databaseId => {
      let rederiveDone = () => {};
      const { outage, written, rederived, rows, away, returns } = await setUp(
        databaseId,
        { rederiveDone: new Promise(resolve => (rederiveDone = resolve)) },
      );
      await away();
      outage.record(runOf('alpha', T0));
      await outage.flush();
      expect(outage.isAway).toBe(true);

      await returns();
      await outage.flush();
      expect(rederived).toEqual([['system:default/alpha']]);
      // The re-derive has not finished; the next results are written anyway.
      outage.record(runOf('bravo', T0));
      await outage.flush();

      expect(written.map(batch => batch.length)).toEqual([1, 1]);
      expect(await rows()).toHaveLength(2);
      rederiveDone();
    },
  );

  it.each(databases.eachSupportedId())(
    'writes a steady stream of results a write per spacing, not a write per run, on %p',
    async databaseId => {
      const { outage, written, rows } = await setUp(databaseId, {
        writeSpacingMs: 400,
      });

      // After a quiet spell, at once.
      outage.record(runOf('alpha', T0));
      await pollUntil(() => written.length === 1);
      // Then one run every 10 ms, each after the write before has ended.
      for (const system of ['bravo', 'charlie', 'delta', 'echo', 'foxtrot']) {
        await sleep(10);
        outage.record(runOf(system, T0));
      }
      expect(written.map(batch => batch.length)).toEqual([1]);

      await pollUntil(() => written.length === 2);
      expect(written.map(batch => batch.length)).toEqual([1, 5]);
      expect(await rows()).toHaveLength(6);
      expect(outage.journaled).toBe(0);
    },
  );

  it.each(databases.eachSupportedId())(
    'writes results behind the probes: runs that finish together share one write, and a claimed run is filled in, on %p',
    async databaseId => {
      const { store, outage, written, rederived, rows } = await setUp(
        databaseId,
      );
      const [claimed] = await store.claimTicks(
        'instance-a',
        [{ sliceId: sliceIdOf('alpha'), scheduledAt: T0 }],
        T0,
      );

      outage.record(runOf('alpha', claimed.scheduledAt));
      outage.record(runOf('bravo', T0));
      outage.record(runOf('charlie', T0));
      await outage.flush();

      expect(await rows()).toEqual(
        ['alpha', 'bravo', 'charlie'].map(system => ({
          tick: `${sliceIdOf(system)}@${T0}`,
          claimedBy: 'instance-a',
          status: 'healthy',
        })),
      );
      // The first write carries one run; the two that came meanwhile, the next.
      expect(written.map(batch => batch.length)).toEqual([1, 2]);
      expect(written[0][0]).not.toHaveProperty('probe');
      expect(outage.journaled).toBe(0);
      // The database never went away: nothing to re-derive.
      expect(rederived).toEqual([]);
    },
  );

  it.each(databases.eachSupportedId())(
    'keeps results while the database is away, writes them in order when it answers, one run of a slice a batch, then re-derives their systems, on %p',
    async databaseId => {
      const { outage, written, rederived, backs, rows, away, returns, logger } =
        await setUp(databaseId);
      await away();

      const ticks = [0, 2_000, 4_000, 6_000, 8_000].map(ms => T0 + ms);
      outage.record(runOf('alpha', ticks[0]));
      outage.record(runOf('bravo', ticks[0]));
      outage.record(
        runOf('alpha', ticks[1], { outcome: 'fail', statusChanged: true }),
      );
      outage.record(runOf('alpha', ticks[2], { outcome: 'fail' }));
      outage.record(runOf('alpha', ticks[3], { statusChanged: true }));
      outage.record(runOf('alpha', ticks[4]));
      await outage.flush();

      expect(outage.isAway).toBe(true);
      expect(outage.journaled).toBe(6);
      expect(logger.warn).toHaveBeenCalledTimes(1);
      expect(logger.warn).toHaveBeenCalledWith(
        expect.stringMatching(
          /^The database cannot be reached in time; probing the slices this instance owned without claims, keeping results in memory until it answers: /,
        ),
      );

      await returns();
      outage.databaseAnswered();
      await waitFor(
        'the journal written',
        async () => outage.journaled,
        n => n === 0,
      );
      await outage.flush();

      expect(
        written.map(batch =>
          batch.map(run => `${run.systemRef.slice(-5)}@${run.scheduledAt}`),
        ),
      ).toEqual([
        [`alpha@${ticks[0]}`, `bravo@${ticks[0]}`],
        [`alpha@${ticks[1]}`],
        [`alpha@${ticks[2]}`],
        [`alpha@${ticks[3]}`],
        [`alpha@${ticks[4]}`],
      ]);
      expect((await rows()).map(row => row.status)).toEqual([
        'healthy',
        'healthy',
        'unhealthy',
        'unhealthy',
        'healthy',
        'healthy',
      ]);
      expect(outage.isAway).toBe(false);
      expect(backs()).toBe(1);
      expect(rederived).toEqual([
        ['system:default/alpha', 'system:default/bravo'],
      ]);
      expect(logger.info).toHaveBeenCalledWith(
        expect.stringMatching(
          /^The database answers again after \d+ s; wrote 6 run\(s\) probed meanwhile$/,
        ),
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'is back once what the outage kept is written, while new runs keep coming, on %p',
    async databaseId => {
      let ingest = 0;
      const { outage, written, rederived, away, returns } = await setUp(
        databaseId,
        {
          // Each write brings a new run, twenty times over: sustained ingest.
          duringWrite: mode => {
            if (ingest < 20) {
              ingest += 1;
              mode.record(runOf('delta', T0 + ingest * 2_000));
            }
          },
        },
      );
      let batchesWhenBack: number | undefined;
      outage.onDatabaseBack(() => {
        batchesWhenBack = written.length;
      });
      await away();
      for (const system of ['alpha', 'bravo', 'charlie']) {
        outage.record(runOf(system, T0));
      }
      await outage.flush();
      expect(outage.isAway).toBe(true);

      await returns();
      outage.databaseAnswered();
      await waitFor(
        'the database back',
        async () => batchesWhenBack,
        n => n !== undefined,
      );

      // Back after the one batch that held the outage's three runs, not
      // after the twenty that came behind it.
      expect(batchesWhenBack).toBe(1);
      // With the system of the run that came during that write, journaled
      // while the database still counted as away.
      expect(rederived).toEqual([
        [
          'system:default/alpha',
          'system:default/bravo',
          'system:default/charlie',
          'system:default/delta',
        ],
      ]);
      await waitFor(
        'the new runs written',
        async () => outage.journaled + (20 - ingest),
        n => n === 0,
      );
      expect(written.flat()).toHaveLength(3 + 20);
    },
  );

  it.each(databases.eachSupportedId())(
    'retries on its own while the database is away, on %p',
    async databaseId => {
      const { outage, rows, away, returns } = await setUp(databaseId);
      await away();
      outage.record(runOf('alpha', T0));
      await outage.flush();
      await sleep(200);
      expect(outage.journaled).toBe(1);

      await returns();
      await waitFor(
        'the journal written',
        async () => outage.journaled,
        n => n === 0,
      );
      expect(await rows()).toHaveLength(1);
      await outage.stop();
    },
  );

  it.each(databases.eachSupportedId())(
    'runs the ticks it could not claim, and gives back only claimed ones, on %p',
    async databaseId => {
      const { store, outage, rows } = await setUp(databaseId);
      const [claimed] = await store.claimTicks(
        'instance-a',
        [{ sliceId: sliceIdOf('alpha'), scheduledAt: T0 }],
        T0,
      );
      const unclaimed = [
        { sliceId: sliceIdOf('bravo'), scheduledAt: T0 },
        { sliceId: sliceIdOf('charlie'), scheduledAt: T0 },
      ];

      expect(
        outage.runUnclaimed(unclaimed, new Error('connection refused')),
      ).toBe(unclaimed);
      expect(outage.claimedOf([claimed, unclaimed[0]])).toEqual([claimed]);

      outage.record(runOf('charlie', T0));
      await outage.flush();
      expect(await rows()).toEqual([
        expect.objectContaining({ tick: `${sliceIdOf('alpha')}@${T0}` }),
        {
          tick: `${sliceIdOf('charlie')}@${T0}`,
          claimedBy: 'instance-a',
          status: 'healthy',
        },
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'keeps the newest results past its bound, and says at stop what the database never took, on %p',
    async databaseId => {
      const { outage, rows, away, returns, logger } = await setUp(databaseId, {
        maxEntries: 2,
      });
      await away();
      for (const ms of [0, 2_000, 4_000]) {
        outage.record(runOf('alpha', T0 + ms));
      }
      await outage.flush();
      expect(outage.journaled).toBe(2);

      await outage.stop();
      expect(logger.warn).toHaveBeenLastCalledWith(
        'Stopped with 2 run(s) the database never took; they are lost',
      );
      await returns();
      expect(await rows()).toEqual([]);
    },
  );
});
