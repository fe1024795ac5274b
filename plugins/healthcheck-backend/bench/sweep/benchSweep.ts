/* eslint-disable no-console */
/*
 * Times the sweep at realistic sizes through the real code path
 * (`HealthSweep` with `DatabaseStateStore`, `EnvironmentTransitions` and
 * `RollupService`), on SQLite (in memory) and PostgreSQL (a database of its
 * own, dropped after):
 *
 *   yarn bench:sweep [--slices 10000,100000] [--runs N]
 *     [--only sqlite|postgres] [--postgres URL] [--no-analyze]
 *
 * Each system has 2 checks in 3 environments (6 slices), every slice has
 * run, and every environment status and rollup is stored as the live path
 * leaves them. Per database and size:
 *
 * 1. a quiet sweep (nothing wrong), the median of `--runs` (default 3);
 * 2. a sweep after 1% of the environments turned unhealthy with their
 *    follow-ups lost (no transition, no rollup), with what it repaired;
 * 3. a sweep right after, which must repair nothing.
 *
 * PostgreSQL's tables are analyzed after the seed, as autovacuum would
 * (`--no-analyze` leaves them as a bulk write leaves them).
 */
import { performance } from 'node:perf_hooks';
import type { AuthService } from '@backstage/backend-plugin-api';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import type { Knex } from 'knex';
import { DatabaseSliceStore } from '../../src/database/DatabaseSliceStore';
import { DatabaseStateStore } from '../../src/database/DatabaseStateStore';
import type { DesiredSlice } from '../../src/model';
import { readBenchArgs, type BenchCommand } from '../benchArgs';
import {
  BenchDatabase,
  DEFAULT_POSTGRES_URL,
  openPostgres,
  openSqlite,
} from '../benchDatabases';
import { computeRollup } from '../../src/rollup/computeRollup';
import { EnvironmentTransitions } from '../../src/rollup/EnvironmentTransitions';
import { DatabaseOutbox, OutboxDispatcher } from '../../src/outbox';
import { liveKeysUnder } from '../../src/rollup/liveKeys';
import { RollupService } from '../../src/rollup/RollupService';
import { quietLogger } from '../../src/tooling/quietLogger';
import { HealthSweep } from '../../src/sweep/HealthSweep';
import type { SweepOutcome } from '../../src/sweep/sweepMetrics';
import type { StoredSliceState } from '../../src/model';

const ENVIRONMENTS = ['production', 'staging', 'canary'];
const CHECKS = ['http-health', 'tls-expiry'];
const SLICES_PER_SYSTEM = ENVIRONMENTS.length * CHECKS.length;
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

const COMMAND: BenchCommand = {
  command: 'yarn bench:sweep',
  flags: {
    slices: { value: '10000,100000' },
    runs: { value: 'N' },
    only: { value: 'sqlite|postgres' },
    postgres: { value: 'URL' },
    'no-analyze': {},
  },
};

interface Options {
  sizes: number[];
  runs: number;
  only?: 'sqlite' | 'postgres';
  postgresUrl: string;
  /** Leave PostgreSQL's tables as a bulk write leaves them. */
  noAnalyze: boolean;
}

function parseOptions(argv: readonly string[]): Options {
  return readBenchArgs(argv, COMMAND, args => ({
    sizes: args.wholes('slices', '10000,100000'),
    runs: args.whole('runs', 3),
    only: args.oneOf('only', ['sqlite', 'postgres'] as const),
    postgresUrl: args.text('postgres', DEFAULT_POSTGRES_URL),
    noAnalyze: args.has('no-analyze'),
  }));
}

function systemRefOf(i: number) {
  return `system:default/system-${String(i).padStart(6, '0')}`;
}

function sliceOf(systemRef: string, checkId: string, environment: string) {
  const key = { checkId, systemRef, environment };
  return {
    id: encodeSliceId(key),
    ...key,
    intervalMs: 60_000,
    timeoutMs: 10_000,
    type: 'http',
    target: 'https://example.com/health',
    config: {},
    conditions: ['[STATUS] == 200'],
    thresholds: {},
    configHash: 'h',
  } satisfies DesiredSlice;
}

function stateOf(
  slice: DesiredSlice,
  status: 'healthy' | 'unhealthy',
  at: number,
): StoredSliceState {
  return {
    sliceId: slice.id,
    checkId: slice.checkId,
    systemRef: slice.systemRef,
    environment: slice.environment,
    status,
    consecutiveFailures: status === 'healthy' ? 0 : 2,
    consecutiveSuccesses: status === 'healthy' ? 1 : 0,
    since: at,
    lastOutcome: status === 'healthy' ? 'pass' : 'fail',
    lastScheduledAt: at,
    lastRunAt: at,
    lastDurationMs: 20,
    lastReason: status === 'healthy' ? undefined : '[STATUS] (503) == 200',
  };
}

/** Every slice healthy; every environment status and rollup stored so. */
async function seed(knex: Knex, systems: number) {
  const sliceStore = new DatabaseSliceStore(knex);
  const store = new DatabaseStateStore(knex);
  const CHUNK = 500;
  for (let first = 0; first < systems; first += CHUNK) {
    const refs = Array.from(
      { length: Math.min(CHUNK, systems - first) },
      (_, i) => systemRefOf(first + i),
    );
    const slices = refs.flatMap(systemRef =>
      CHECKS.flatMap(checkId =>
        ENVIRONMENTS.map(environment =>
          sliceOf(systemRef, checkId, environment),
        ),
      ),
    );
    await sliceStore.applyChanges({
      write: slices.map(slice => ({ paused: false as const, slice })),
      remove: [],
    });
    await store.writeSliceStates(
      slices.map(slice => stateOf(slice, 'healthy', NOW)),
    );
    await knex.batchInsert(
      'healthcheck_environment_states',
      refs.flatMap(systemRef =>
        ENVIRONMENTS.map(environment => ({
          system_ref: systemRef,
          environment,
          status: 'healthy',
          since: NOW,
        })),
      ),
      CHUNK,
    );
    const environmentSince = new Map(
      ENVIRONMENTS.map(e => [e, { status: 'healthy' as const, since: NOW }]),
    );
    await knex.batchInsert(
      'healthcheck_rollups',
      refs.map(systemRef => {
        const rollup = computeRollup({
          systemRef,
          slices: slices
            .filter(slice => slice.systemRef === systemRef)
            .map(slice => ({
              sliceId: slice.id,
              checkId: slice.checkId,
              systemRef: slice.systemRef,
              environment: slice.environment,
              paused: false,
              state: stateOf(slice, 'healthy', NOW),
            })),
          environmentSince,
          upstream: [],
          now: NOW,
        });
        return {
          system_ref: systemRef,
          status: rollup.status,
          rollup: JSON.stringify(rollup),
          since: NOW,
          computed_at: NOW,
        };
      }),
      CHUNK,
    );
  }
  return { store, sliceStore };
}

/** A catalog with no upstream systems to find. */
const emptyCatalog = {
  getEntityByRef: async () => undefined,
  getEntities: async () => ({ items: [] }),
  getEntitiesByRefs: async () => ({ items: [] }),
} as unknown as CatalogService;

const benchAuth = {
  getOwnServiceCredentials: async () => ({
    $$type: '@backstage/BackstageCredentials',
    principal: { type: 'service', subject: 'bench' },
  }),
} as unknown as AuthService;

async function timed<T>(run: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const value = await run();
  return [value, performance.now() - started];
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function repairsOf(outcome: SweepOutcome): string {
  const rollups = Object.values(outcome.rollups).reduce((a, b) => a + b, 0);
  return `${outcome.environments} environments, ${rollups} rollups`;
}

async function benchOne(
  database: BenchDatabase,
  slices: number,
  { runs, noAnalyze }: Options,
): Promise<string[]> {
  const systems = Math.ceil(slices / SLICES_PER_SYSTEM);
  const { knex } = database;
  const [{ store }, seedMs] = await timed(() => seed(knex, systems));
  if (database.name === 'PostgreSQL' && !noAnalyze) {
    // As autovacuum does within a minute of a bulk write; before it, the
    // planner guesses the fresh tables small and scans them whole.
    await knex.raw('ANALYZE');
  }
  const logger = quietLogger('sweep bench');
  const rollups = new RollupService({
    store,
    catalog: emptyCatalog,
    auth: benchAuth,
    logger,
    liveKeyOf: liveKeysUnder(Buffer.alloc(32)),
  });
  const transitions = new EnvironmentTransitions({
    store,
    logger,
    // Written as in production; nobody delivers them here.
    outbox: new OutboxDispatcher({
      outbox: new DatabaseOutbox(knex),
      instanceId: 'sweep-bench',
      logger,
    }),
  });
  const sweep = new HealthSweep({
    store,
    transitions,
    rollups,
    logger,
    rollupWindowMs: 2_000,
  });

  const quiet: number[] = [];
  for (let run = 0; run < runs; run++) {
    const [outcome, ms] = await timed(() => sweep.rederiveNow());
    if (
      outcome.slices !== systems * SLICES_PER_SYSTEM ||
      outcome.environments
    ) {
      throw new Error(
        `A quiet sweep read or repaired the wrong things: ${JSON.stringify(
          outcome,
        )}`,
      );
    }
    quiet.push(ms);
  }

  // 1% of the environments go unhealthy; their follow-ups are lost.
  const broken = Math.max(1, Math.round((systems * ENVIRONMENTS.length) / 100));
  const states: StoredSliceState[] = [];
  for (let i = 0; i < broken; i++) {
    const systemRef = systemRefOf(Math.floor((i * systems) / broken));
    states.push(
      stateOf(
        sliceOf(systemRef, CHECKS[0], ENVIRONMENTS[i % 3]),
        'unhealthy',
        NOW + 60_000,
      ),
    );
  }
  await store.writeSliceStates(states);
  const [repair, repairMs] = await timed(() => sweep.rederiveNow());
  const [after, afterMs] = await timed(() => sweep.rederiveNow());
  if (repair.environments !== broken || repair.rollups.drift !== broken) {
    throw new Error(
      `The repair sweep missed something: ${JSON.stringify(repair)}`,
    );
  }
  if (repairsOf(after) !== '0 environments, 0 rollups') {
    throw new Error(
      `The sweep after the repair repaired again: ${JSON.stringify(after)}`,
    );
  }
  return [
    database.name,
    slices.toLocaleString('en'),
    systems.toLocaleString('en'),
    `${(seedMs / 1000).toFixed(1)} s`,
    `${Math.round(median(quiet))} ms`,
    `${Math.round(repairMs)} ms (${repairsOf(repair)})`,
    `${Math.round(afterMs)} ms (${repairsOf(after)})`,
  ];
}

async function main(argv: readonly string[]) {
  const options = parseOptions(argv);
  const { only, postgresUrl } = options;
  const rows: string[][] = [];
  for (const slices of options.sizes) {
    for (const engine of ['sqlite', 'postgres']) {
      if (only && only !== engine) continue;
      const database =
        engine === 'sqlite'
          ? await openSqlite()
          : await openPostgres(postgresUrl);
      if ('unreachable' in database) {
        console.log(`PostgreSQL skipped: ${database.unreachable}`);
        continue;
      }
      try {
        console.log(`${database.description}: ${slices} slices`);
        rows.push(await benchOne(database, slices, options));
      } finally {
        await database.close();
      }
    }
  }
  const header = [
    'database',
    'slices',
    'systems',
    'seed',
    'quiet sweep (median)',
    'sweep repairing 1% of environments',
    'next sweep',
  ];
  console.log(`| ${header.join(' | ')} |`);
  console.log(`| ${header.map(() => '---').join(' | ')} |`);
  for (const row of rows) {
    console.log(`| ${row.join(' | ')} |`);
  }
}

main(process.argv.slice(2)).catch(error => {
  console.error(error);
  process.exit(1);
});
