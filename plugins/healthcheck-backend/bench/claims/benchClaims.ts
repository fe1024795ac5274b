/* eslint-disable no-console */
/*
 * Claim throughput on PostgreSQL with two instances, each with its own
 * connection pool, membership and TickClaimer, sharing one database.
 *
 *   yarn bench:claims [--quick] [--runs N] [--seconds S] [--rates 1000,3000,6000,12000,24000]
 *     [--batches 1,10,100,1000] [--claims-in-flight N]
 *     [--only stream,capacity] [--scenarios split,split+complete,contested]
 *
 * Connects to VIGIL_BENCH_POSTGRES_URL, else
 * BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING, else
 * postgresql://postgres@127.0.0.1:5432, and works in a scratch database that
 * it drops at the end.
 *
 * Sections:
 * - stream: what the scheduler does. Ticks fall due at an offered rate; every
 *   2 ms each instance hands the ticks due since its last wake-up to its
 *   claimer as one coalesced batch, without waiting for earlier claims.
 * - capacity: each instance claims fixed-size batches back to back, one at a
 *   time: the cost of one claim statement by batch size.
 *
 * Scenarios:
 * - split: the instances see each other; each claims the half it owns.
 * - split+complete: as split, and each writes the results of the runs it
 *   claimed (batched the same way): a tick's whole path through the database.
 * - contested: each believes it owns every slice (views disagree while an
 *   instance joins or leaves), so every tick is fought over.
 */
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import knexFactory, { Knex } from 'knex';
import type { DueTick, ScheduledSlice } from '../../src/scheduler/types';
import { DatabaseClaimStore } from '../../src/claims/DatabaseClaimStore';
import { InstanceMembership } from '../../src/claims/InstanceMembership';
import { TickClaimer } from '../../src/claims/TickClaimer';
import { WriteCoalescer } from '../../src/claims/WriteCoalescer';
import { quietLogger } from '../../src/tooling/quietLogger';
import { readBenchArgs, type BenchCommand } from '../benchArgs';
import { DEFAULT_POSTGRES_URL } from '../benchDatabases';
import type { CompletedRun } from '../../src/model';

const SLICE_COUNT = 60_000;
const GRID_START = Date.UTC(2026, 11, 1, 12, 0, 0);
const TARGET_TICKS_PER_SECOND = 3_000;
const COALESCE_WINDOW_MS = 2;
/** Claimed at least this share of the offered ticks, with p99 under a second. */
const SUSTAINED_SHARE = 0.97;
const SUSTAINED_P99_MS = 1_000;

type Scenario = 'split' | 'split+complete' | 'contested';

interface BenchConfig {
  runs: number;
  seconds: number;
  rates: number[];
  batchSizes: number[];
  claimsInFlight: number;
  sections: Set<string>;
  scenarios: Scenario[];
  url: string;
}

interface RunResult {
  ticksPerSecond: number;
  ticksPerStatement: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  /** Share of the ticks an instance tried to claim that the other had won. */
  lostShare: number;
}

const SECTIONS = ['stream', 'capacity'];
const SCENARIOS: Scenario[] = ['split', 'split+complete', 'contested'];

const COMMAND: BenchCommand = {
  command: 'yarn bench:claims',
  flags: {
    quick: {},
    runs: { value: 'N' },
    seconds: { value: 'S' },
    rates: { value: 'PER_S,...' },
    batches: { value: 'N,...' },
    'claims-in-flight': { value: 'N' },
    only: { value: SECTIONS.join(',') },
    scenarios: { value: SCENARIOS.join(',') },
  },
};

function parseConfig(argv: string[]): BenchConfig {
  return readBenchArgs(argv, COMMAND, args => {
    const quick = args.has('quick');
    return {
      runs: args.whole('runs', quick ? 1 : 3),
      seconds: args.number('seconds', quick ? 2 : 5, { above: 0 }),
      rates: args.wholes('rates', '1000,3000,6000,12000,24000'),
      batchSizes: args.wholes('batches', '1,10,100,1000'),
      claimsInFlight: args.whole('claims-in-flight', 2),
      sections: new Set(args.someOf('only', SECTIONS, SECTIONS)),
      scenarios: args.someOf('scenarios', SCENARIOS, SCENARIOS),
      url: (
        process.env.VIGIL_BENCH_POSTGRES_URL ?? DEFAULT_POSTGRES_URL
      ).replace(/\/+$/, ''),
    };
  });
}

/** 10,000 systems x 3 environments x 2 checks. */
const SLICES: ScheduledSlice[] = Array.from(
  { length: SLICE_COUNT },
  (_, i) => ({
    id: `healthcheck:check-${i % 2}:system%3Adefault%2Fsystem-${Math.floor(
      i / 6,
    )}:${['production', 'staging', 'canary'][Math.floor(i / 2) % 3]}`,
    intervalMs: 60_000,
  }),
);

/** Tick number `index` of the stream; every (slice, time) pair is new. */
function tickAt(index: number): DueTick {
  const slice = SLICES[index % SLICE_COUNT];
  return {
    sliceId: slice.id,
    scheduledAt: GRID_START + index,
    generation: 1,
    slice,
  };
}

function ticksFrom(first: number, count: number): DueTick[] {
  return Array.from({ length: count }, (_, i) => tickAt(first + i));
}

function completedRun(tick: DueTick): CompletedRun {
  return {
    sliceId: tick.sliceId,
    scheduledAt: tick.scheduledAt,
    startedAt: tick.scheduledAt + 2,
    durationMs: 37,
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
  };
}

function percentile(values: number[], p: number): number {
  if (values.length === 0) {
    return NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

function median(values: number[]): number {
  return percentile(values, 0.5);
}

function connect(url: string, database: string, poolMax = 5): Knex {
  return knexFactory({
    client: 'pg',
    connection: `${url}/${database}`,
    pool: { min: 1, max: poolMax },
  });
}

/** One backend instance: its pool, membership, claimer and result writer. */
class Instance {
  readonly knex: Knex;
  readonly store: DatabaseClaimStore;
  readonly membership: InstanceMembership;
  claimer!: TickClaimer;
  completer!: WriteCoalescer<CompletedRun, number>;

  static async create(
    config: BenchConfig,
    database: string,
    instanceId: string,
    mode: 'shared' | 'single',
  ): Promise<Instance> {
    const knex = connect(config.url, database);
    const store = await DatabaseClaimStore.create({
      database: { getClient: async () => knex },
    });
    const membership = await InstanceMembership.start({
      store,
      logger: quietLogger('bench'),
      options: { instanceId, mode, heartbeatMs: 1_000, ttlMs: 3_000 },
    });
    const instance = new Instance(knex, store, membership);
    instance.reset(config);
    return instance;
  }

  private constructor(
    knex: Knex,
    store: DatabaseClaimStore,
    membership: InstanceMembership,
  ) {
    this.knex = knex;
    this.store = store;
    this.membership = membership;
  }

  /** Fresh counters for the next run. */
  reset(config: BenchConfig): void {
    this.claimer = new TickClaimer({
      store: this.store,
      membership: this.membership,
      logger: quietLogger('bench'),
      maxClaimsInFlight: config.claimsInFlight,
    });
    this.completer = new WriteCoalescer(
      runs =>
        this.store.writeRuns(this.membership.instanceId, runs, Date.now()),
      {
        maxItems: 1_000,
      },
    );
  }

  async close(): Promise<void> {
    await this.membership.stop();
    await this.knex.destroy();
  }
}

/** Checks that every claimed tick has exactly one run row (and a result). */
async function verify(
  knex: Knex,
  claimedTicks: number,
  completed: boolean,
): Promise<void> {
  const [{ rows, done }] = await knex('healthcheck_runs').select(
    knex.raw('count(*) AS rows'),
    knex.raw('count(started_at) AS done'),
  );
  if (Number(rows) !== claimedTicks) {
    throw new Error(
      `${claimedTicks} ticks claimed but ${rows} run rows: a tick was claimed twice`,
    );
  }
  if (completed && Number(done) !== claimedTicks) {
    throw new Error(`${claimedTicks} ticks claimed but ${done} completed`);
  }
}

function summarize(
  instances: Instance[],
  claimedTicks: number,
  elapsedMs: number,
  latencies: number[],
): RunResult {
  let attempted = 0;
  let lost = 0;
  let statements = 0;
  for (const instance of instances) {
    const stats = instance.claimer.stats();
    attempted += stats.claimed + stats.lost;
    lost += stats.lost;
    statements += stats.statements;
  }
  return {
    ticksPerSecond: claimedTicks / (elapsedMs / 1_000),
    ticksPerStatement: attempted / Math.max(1, statements),
    latencyP50Ms: percentile(latencies, 0.5),
    latencyP99Ms: percentile(latencies, 0.99),
    lostShare: attempted === 0 ? 0 : lost / attempted,
  };
}

/**
 * Open loop, as the scheduler drives it: ticks fall due at `rate` per
 * second; every wake-up hands the ones due since the last as one batch, and
 * does not wait for the claim. Elapsed time runs until the last claim (and
 * result) is written.
 */
async function runStream(
  instances: Instance[],
  scenario: Scenario,
  rate: number,
  seconds: number,
): Promise<RunResult> {
  const latencies: number[] = [];
  let claimedTicks = 0;
  const startedAt = performance.now();
  const emitUntil = startedAt + seconds * 1_000;

  const dispatch = (instance: Instance, batch: DueTick[]) => {
    const dispatchedAt = performance.now();
    return instance.claimer.claim(batch).then(won => {
      latencies.push(performance.now() - dispatchedAt);
      claimedTicks += won.length;
      if (scenario === 'split+complete' && won.length > 0) {
        return instance.completer.submit(won.map(completedRun));
      }
      return undefined;
    });
  };

  await Promise.all(
    instances.map(async instance => {
      const work: Promise<unknown>[] = [];
      let emitted = 0;
      for (;;) {
        const now = performance.now();
        const due = Math.floor(
          ((Math.min(now, emitUntil) - startedAt) * rate) / 1_000,
        );
        if (due > emitted) {
          work.push(dispatch(instance, ticksFrom(emitted, due - emitted)));
          emitted = due;
        }
        if (now >= emitUntil) {
          break;
        }
        await sleep(COALESCE_WINDOW_MS);
      }
      await Promise.all(work);
    }),
  );
  const elapsedMs = performance.now() - startedAt;
  await verify(instances[0].knex, claimedTicks, scenario === 'split+complete');
  return summarize(instances, claimedTicks, elapsedMs, latencies);
}

/** Closed loop: each instance claims `batchSize` ticks, waits, repeats. */
async function runCapacity(
  instances: Instance[],
  scenario: Scenario,
  batchSize: number,
  seconds: number,
): Promise<RunResult> {
  const latencies: number[] = [];
  let claimedTicks = 0;
  const startedAt = performance.now();
  const deadline = startedAt + seconds * 1_000;

  await Promise.all(
    instances.map(async instance => {
      for (let next = 0; performance.now() < deadline; next += batchSize) {
        const before = performance.now();
        const won = await instance.claimer.claim(ticksFrom(next, batchSize));
        latencies.push(performance.now() - before);
        claimedTicks += won.length;
        if (scenario === 'split+complete' && won.length > 0) {
          await instance.completer.submit(won.map(completedRun));
        }
      }
    }),
  );
  const elapsedMs = performance.now() - startedAt;
  await verify(instances[0].knex, claimedTicks, scenario === 'split+complete');
  return summarize(instances, claimedTicks, elapsedMs, latencies);
}

async function withScratchDatabase<T>(
  url: string,
  fn: (database: string) => Promise<T>,
): Promise<T> {
  const admin = connect(url, 'postgres', 1);
  const database = `vigil_bench_claims_${randomBytes(6).toString('hex')}`;
  await admin.raw('CREATE DATABASE ??', [database]);
  try {
    return await fn(database);
  } finally {
    await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [database]);
    await admin.destroy();
  }
}

function formatRate(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

function printTable(header: string[], rows: string[][]): void {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map(row => row[column].length)),
  );
  const line = (cells: string[]) =>
    `| ${cells
      .map((cell, column) =>
        column === 0
          ? cell.padEnd(widths[column])
          : cell.padStart(widths[column]),
      )
      .join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map(width => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows) {
    console.log(line(row));
  }
  console.log();
}

function resultCells(results: RunResult[]): string[] {
  const rates = results.map(r => r.ticksPerSecond);
  return [
    formatRate(median(rates)),
    `${formatRate(Math.min(...rates))}–${formatRate(Math.max(...rates))}`,
    median(results.map(r => r.ticksPerStatement)).toFixed(1),
    median(results.map(r => r.latencyP50Ms)).toFixed(1),
    median(results.map(r => r.latencyP99Ms)).toFixed(1),
    `${(median(results.map(r => r.lostShare)) * 100).toFixed(0)}%`,
  ];
}

async function main(args: string[]) {
  const config = parseConfig(args);
  const streamRows: string[][] = [];
  const capacityRows: string[][] = [];

  await withScratchDatabase(config.url, async database => {
    const probe = connect(config.url, database, 1);
    const version = (await probe.raw('SHOW server_version')).rows[0]
      .server_version as string;
    await probe.destroy();
    console.log(
      `Claims on PostgreSQL ${version}, two instances (pool of 5 each, ${
        config.claimsInFlight
      } claim statement(s) in flight each), ${SLICE_COUNT} slices; median of ${
        config.runs
      } run(s) of ${config.seconds} s; Node ${process.version}, ${
        cpus().length
      } CPUs (${cpus()[0]?.model ?? 'unknown'}), database on the same host\n`,
    );

    for (const scenario of config.scenarios) {
      const mode = scenario === 'contested' ? 'single' : 'shared';
      const instances = [
        await Instance.create(config, database, 'bench-a', mode),
        await Instance.create(config, database, 'bench-b', mode),
      ];
      await Promise.all(instances.map(i => i.membership.refresh()));
      const repeat = async (
        run: () => Promise<RunResult>,
      ): Promise<RunResult[]> => {
        const results: RunResult[] = [];
        for (let i = 0; i < config.runs; i++) {
          await instances[0].knex.raw('TRUNCATE healthcheck_runs');
          instances.forEach(instance => instance.reset(config));
          results.push(await run());
          process.stderr.write('.');
        }
        return results;
      };
      try {
        if (config.sections.has('stream')) {
          for (const rate of config.rates) {
            const results = await repeat(() =>
              runStream(instances, scenario, rate, config.seconds),
            );
            const claimed = median(results.map(r => r.ticksPerSecond));
            const p99 = median(results.map(r => r.latencyP99Ms));
            streamRows.push([
              scenario,
              formatRate(rate),
              ...resultCells(results),
              claimed >= SUSTAINED_SHARE * rate && p99 < SUSTAINED_P99_MS
                ? 'yes'
                : 'no',
            ]);
          }
        }
        if (config.sections.has('capacity')) {
          for (const batchSize of config.batchSizes) {
            const results = await repeat(() =>
              runCapacity(instances, scenario, batchSize, config.seconds),
            );
            capacityRows.push([
              scenario,
              String(batchSize),
              ...resultCells(results),
              median(results.map(r => r.ticksPerSecond)) >=
              TARGET_TICKS_PER_SECOND
                ? 'yes'
                : 'no',
            ]);
          }
        }
      } finally {
        await Promise.all(instances.map(i => i.close()));
      }
    }
  });
  process.stderr.write('\n');

  const common = [
    'ticks/s claimed',
    'min–max',
    'ticks/stmt',
    'p50 ms',
    'p99 ms',
    'lost',
  ];
  if (streamRows.length > 0) {
    console.log(
      `Stream: ticks fall due at the offered rate, handed over every ${COALESCE_WINDOW_MS} ms without waiting; latency from hand-over to claim result; sustained = claimed >= ${
        SUSTAINED_SHARE * 100
      }% of offered with p99 < ${SUSTAINED_P99_MS} ms\n`,
    );
    printTable(
      ['scenario', 'offered ticks/s', ...common, 'sustained'],
      streamRows,
    );
  }
  if (capacityRows.length > 0) {
    console.log(
      'Capacity: each instance claims fixed-size batches back to back; latency per claim\n',
    );
    printTable(
      [
        'scenario',
        'batch',
        ...common,
        `>= ${formatRate(TARGET_TICKS_PER_SECOND)}/s`,
      ],
      capacityRows,
    );
  }
}

main(process.argv.slice(2)).catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
