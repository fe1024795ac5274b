/* eslint-disable no-console */
/*
 * SLOs over 30 days on PostgreSQL, from the hourly aggregates against the
 * naive way (recomputing each slice from its raw runs), in the same run.
 *
 *   yarn bench:slo [--sizes 1000,10000] [--runs 3] [--naive-slices 10]
 *     [--require-postgres] [--postgres URL]
 *
 * 1. Seeds a scratch database `vigil_bench_<pid>` (dropped at the end) with
 *    the read-path bench's fixture (../readPath/benchFixture.ts) for the
 *    largest size: N / 6 systems x 3 environments x 2 checks, 30 days of
 *    hourly aggregates per slice and the raw runs of the hour not aggregated
 *    yet. For the naive way it adds `--naive-slices` slices with 30 days of
 *    raw runs every 30 s (86,400 a slice), which is what recomputing needs.
 * 2. After one untimed pass over the smallest size, for each size
 *    computes a 30-day availability objective per system and environment
 *    (its two checks' slices) through `SloHistoryReader` and `computeSlo`:
 *    attainment, budget and the five burn rates; `--runs` times, the
 *    median kept. Time per slice is the total over the slices.
 * 3. Computes the same for each naive slice from its raw runs (same math,
 *    every hour raw), the median time per slice the baseline.
 *
 * Prints a markdown table: time per slice, the ratio to the naive time
 * (target <= 0.1x), and the growth from the smallest to the largest size
 * per slice (target <= 1.5x: linear). Skipped with a note when PostgreSQL
 * does not answer, unless `--require-postgres`.
 */
import { performance } from 'node:perf_hooks';
import type { ResolvedServiceLevelObjective } from '@vigil/plugin-healthcheck-common';
import type { Knex } from 'knex';
import { seedFixture } from '../readPath/benchFixture';
import { HOUR_MS } from '../../src/history/aggregateRuns';
import { RUN_START_LAG_MS } from '../../src/history/historyDatabase';
import { readBenchArgs, type BenchCommand } from '../benchArgs';
import { DEFAULT_POSTGRES_URL, openPostgres } from '../benchDatabases';
import { computeSlo, sloWindow } from '../../src/slo/computeSlo';
import { SloHistoryReader } from '../../src/slo/SloHistoryReader';
import type { SloSliceHistory } from '../../src/slo/measureIndicator';

const DAY_MS = 24 * HOUR_MS;
const SLICES_PER_SYSTEM = 6;
const NAIVE_INTERVAL_MS = 30_000;

const objective: ResolvedServiceLevelObjective = {
  systemRef: '',
  environment: '',
  indicator: { type: 'availability' },
  window: { type: 'rolling', durationMs: 30 * DAY_MS },
  budgetingMethod: 'Timeslices',
  target: 0.999,
};

interface Options {
  sizes: number[];
  runs: number;
  naiveSlices: number;
  requirePostgres: boolean;
  postgresUrl: string;
}

const COMMAND: BenchCommand = {
  command: 'yarn bench:slo',
  flags: {
    sizes: { value: '1000,10000' },
    runs: { value: 'N' },
    'naive-slices': { value: 'N' },
    'require-postgres': {},
    postgres: { value: 'URL' },
  },
};

function parseOptions(argv: readonly string[]): Options {
  return readBenchArgs(argv, COMMAND, args => ({
    sizes: args
      .wholes('sizes', '1000,10000', SLICES_PER_SYSTEM)
      .sort((a, b) => a - b),
    runs: args.whole('runs', 3),
    naiveSlices: args.whole('naive-slices', 10),
    requirePostgres: args.has('require-postgres'),
    postgresUrl: args.text('postgres', DEFAULT_POSTGRES_URL),
  }));
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? sorted[middle]
    : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** The (system, environment) objectives of the first `slices` slices. */
async function objectivesFor(knex: Knex, slices: number) {
  const rows: Array<{ system_ref: string; environment: string; n: string }> = (
    await knex.raw(
      `SELECT system_ref, environment, count(*) AS n FROM healthcheck_slices
       GROUP BY system_ref, environment ORDER BY system_ref, environment`,
    )
  ).rows;
  const chosen: Array<{ systemRef: string; environment: string }> = [];
  let covered = 0;
  for (const row of rows) {
    if (covered >= slices) {
      break;
    }
    chosen.push({ systemRef: row.system_ref, environment: row.environment });
    covered += Number(row.n);
  }
  return { objectives: chosen, slices: covered };
}

/** 30 days of raw runs every 30 s for each naive slice, 1 in 97 failing. */
async function seedNaiveRuns(knex: Knex, sliceIds: string[], now: number) {
  const from = now - 30 * DAY_MS - HOUR_MS;
  for (const sliceId of sliceIds) {
    await knex.raw(
      `INSERT INTO healthcheck_runs (slice_id, scheduled_at, claimed_by,
         claimed_at, started_at, duration_ms, outcome, status, lane, timeout_ms)
       SELECT ?, t.at, 'bench-seed', t.at, t.at + 3, 20 + t.n % 180,
         CASE WHEN t.n % 97 = 0 THEN 'fail' ELSE 'pass' END,
         CASE WHEN t.n % 97 = 0 THEN 'unhealthy' ELSE 'healthy' END,
         'normal', 5000
       FROM generate_series(?::bigint, ?::bigint, ?::bigint)
         WITH ORDINALITY AS t(at, n)`,
      [sliceId, from, now - 1, NAIVE_INTERVAL_MS],
    );
  }
  await knex.raw('VACUUM (ANALYZE) healthcheck_runs');
}

/** The naive way: every run of the window read and summed, no aggregates. */
async function naiveSlo(knex: Knex, sliceId: string, now: number) {
  const window = sloWindow(objective.window, now);
  const rows = await knex('healthcheck_runs')
    .where('slice_id', sliceId)
    .andWhere('scheduled_at', '>=', window.from - RUN_START_LAG_MS)
    .andWhere('scheduled_at', '<', now)
    .select('started_at', 'duration_ms', 'outcome', 'status');
  const history: SloSliceHistory = {
    hours: [],
    rawRanges: [
      {
        from: Math.floor(window.from / HOUR_MS) * HOUR_MS,
        to: Math.ceil(now / HOUR_MS) * HOUR_MS,
      },
    ],
    runs: rows.map(row => ({
      startedAt: Number(row.started_at),
      durationMs: row.duration_ms,
      outcome: row.outcome,
      status: row.status,
    })),
  };
  return computeSlo(objective, [history], now);
}

async function main(args: string[]) {
  const options = parseOptions(args);
  const db = await openPostgres(options.postgresUrl);
  if ('unreachable' in db) {
    if (options.requirePostgres) {
      throw new Error(`PostgreSQL is not reachable: ${db.unreachable}`);
    }
    console.log(
      `Note: SLO bench skipped, PostgreSQL not reachable: ${db.unreachable}`,
    );
    return;
  }
  try {
    const largest = options.sizes[options.sizes.length - 1];
    const systems = Math.ceil(largest / SLICES_PER_SYSTEM);
    console.log(`Seeding ${db.description}`);
    const fixture = await seedFixture(db.knex, {
      systems,
      historySystems: systems,
      log: line => console.log(line),
    });
    const now = fixture.now;
    const naiveIds = Array.from(
      { length: options.naiveSlices },
      (_, index) => `bench-naive-${index}`,
    );
    const seedStart = performance.now();
    await seedNaiveRuns(db.knex, naiveIds, now);
    console.log(
      `  seeded ${naiveIds.length} naive slices x 30 days of raw runs in ${(
        (performance.now() - seedStart) /
        1000
      ).toFixed(1)} s`,
    );

    const reader = new SloHistoryReader(db.knex, {
      rawRetentionMs: 14 * DAY_MS,
    });
    const naivePerSlice: number[] = [];
    let naiveAttainment: number | undefined;
    for (let run = 0; run < options.runs; run++) {
      for (const sliceId of naiveIds) {
        const start = performance.now();
        naiveAttainment = (await naiveSlo(db.knex, sliceId, now)).attainment;
        naivePerSlice.push(performance.now() - start);
      }
    }
    const naiveMs = median(naivePerSlice);

    const rows: Array<{
      size: number;
      slices: number;
      objectives: number;
      perSliceMs: number;
      totalMs: number;
    }> = [];
    let sampleAttainment: number | undefined;
    // One untimed pass over the smallest size first: without it the first
    // size measured also pays for cold caches and the JIT, and growth per
    // slice reads better than it is.
    const warmUp = await objectivesFor(db.knex, options.sizes[0]);
    for (const scope of warmUp.objectives) {
      const window = sloWindow(objective.window, now);
      const histories = await reader.read(
        { ...scope, from: window.from, to: now },
        now,
      );
      computeSlo({ ...objective, ...scope }, [...histories.values()], now);
    }
    for (const size of options.sizes) {
      const chosen = await objectivesFor(db.knex, size);
      const totals: number[] = [];
      for (let run = 0; run < options.runs; run++) {
        const start = performance.now();
        for (const scope of chosen.objectives) {
          const window = sloWindow(objective.window, now);
          const histories = await reader.read(
            { ...scope, from: window.from, to: now },
            now,
          );
          sampleAttainment = computeSlo(
            { ...objective, ...scope },
            [...histories.values()],
            now,
          ).attainment;
        }
        totals.push(performance.now() - start);
      }
      const totalMs = median(totals);
      rows.push({
        size,
        slices: chosen.slices,
        objectives: chosen.objectives.length,
        totalMs,
        perSliceMs: totalMs / chosen.slices,
      });
    }

    console.log('');
    console.log(
      `SLOs over 30 days (availability, 5 burn-rate windows), median of ${
        options.runs
      } runs; naive: ${naiveIds.length} slices of ${(
        (30 * DAY_MS) /
        NAIVE_INTERVAL_MS
      ).toLocaleString(
        'en-US',
      )} raw runs each (attainment ${naiveAttainment?.toFixed(
        5,
      )}; aggregates, last objective: ${sampleAttainment?.toFixed(5)})`,
    );
    console.log('');
    console.log(
      '| way | slices | objectives | total | per slice | vs naive | target | |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---|---|');
    console.log(
      `| naive (raw runs) | ${naiveIds.length} | ${naiveIds.length} | ${(
        naiveMs * naiveIds.length
      ).toFixed(0)} ms | ${naiveMs.toFixed(2)} ms | 1x | baseline | |`,
    );
    for (const row of rows) {
      const ratio = row.perSliceMs / naiveMs;
      console.log(
        `| hourly aggregates | ${row.slices.toLocaleString(
          'en-US',
        )} | ${row.objectives.toLocaleString('en-US')} | ${(
          row.totalMs / 1000
        ).toFixed(2)} s | ${row.perSliceMs.toFixed(3)} ms | ${ratio.toFixed(
          4,
        )}x | <= 0.1x | ${ratio <= 0.1 ? 'PASS' : 'MISS'} |`,
      );
    }
    if (rows.length > 1) {
      const first = rows[0];
      const last = rows[rows.length - 1];
      const growth = last.perSliceMs / first.perSliceMs;
      console.log(
        `| growth per slice, ${first.slices.toLocaleString(
          'en-US',
        )} -> ${last.slices.toLocaleString('en-US')} | | | | | ${growth.toFixed(
          2,
        )}x | <= 1.5x (linear) | ${growth <= 1.5 ? 'PASS' : 'MISS'} |`,
      );
    }
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).catch(error => {
  console.error(error);
  process.exitCode = 1;
});
