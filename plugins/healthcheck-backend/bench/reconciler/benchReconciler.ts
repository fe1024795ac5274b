/* eslint-disable no-console */
/*
 * Times the reconciler on a synthetic catalog (by default 10,000 systems x
 * 3 environments x 2 checks = 60,000 slices), through the real code path:
 * `Reconciler` with `DatabaseSliceStore` and the reconcile lock, on SQLite
 * (in memory) and on PostgreSQL (a database of its own, dropped after).
 *
 *   yarn bench:reconciler [--systems N] [--runs N] [--naive-runs N (0: none)]
 *     [--only sqlite|postgres] [--require-postgres] [--postgres URL]
 *     [--sizes 10000,50000,100000,200000 [--scheduler-seconds S]
 *      [--scheduler-rate FIRES_PER_S]]
 *
 * which is
 *
 *   node --expose-gc --require @backstage/cli/config/nodeTransform.cjs \
 *     bench/reconciler/benchReconciler.ts ...
 *
 * Per database, the median of `--runs` (default 3) of:
 *
 * 1. a full reconcile from empty (the slices table emptied first);
 * 2. no-op full reconciles right after it (three a run, each timed);
 * 3. a loader's full read of the stored slices, as every instance makes at
 *    start (and the memory it holds once a real scheduler runs them);
 * 4. a system-scoped reconcile after one edit (one system's http
 *    HealthCheck goes from 30s to 60s), and the loader's next read, of
 *    that edit alone: five edits a run, each of a different system, each
 *    timed (the median is over all of them);
 *
 * and, for comparison, a full reconcile from empty whose store writes one
 * INSERT per slice. Every outcome is checked; a wrong one fails the run.
 * The pure half (no database) and the fake catalog's own reads are timed
 * too, so the table shows what is reconciler and what is catalog.
 *
 * With `--sizes` (slices; `yarn bench:growth` gives 10k to 200k), the same
 * steps at each size instead, with the scheduler bench's growth rows (a
 * fresh process per size), as one cost-growth table: each figure per slice
 * or flat, against the smallest size of the same run.
 *
 * PostgreSQL: `--postgres URL`, else
 * BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING, else
 * postgresql://postgres@127.0.0.1:5432. Skipped with a note when it does
 * not answer, unless `--require-postgres`.
 */
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import { stringifyEntityRef, type Entity } from '@backstage/catalog-model';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import {
  HEALTHCHECK_KIND,
  resolveCheckTiming,
  type HealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import {
  GROWTH_LIMIT,
  renderGrowthTable,
  sizeLabel,
  type GrowthRow,
  type GrowthTarget,
} from '../costGrowthTable';
import { DatabaseSliceStore } from '../../src/database/DatabaseSliceStore';
import { SliceScheduler } from '../../src/scheduler/SliceScheduler';
import { createStoredSliceSource } from '../../src/reconciler/createStoredSliceSource';
import {
  desiredSlices,
  type ReconcilableCheck,
  type SystemEnvironments,
} from '../../src/reconciler/desiredSlices';
import type { DesiredSlice } from '../../src/model';
import {
  planReconcile,
  type HeldSlice,
} from '../../src/reconciler/planReconcile';
import {
  groupMembersBySystem,
  resolveEnvironments,
} from '../../src/reconciler/resolveEnvironments';
import {
  httpCheckRefOf,
  IndexedCatalog,
  syntheticCatalog,
  syntheticChecks,
  systemRefOf,
} from './benchCatalog';
import {
  type BenchDatabase,
  DEFAULT_POSTGRES_URL,
  openPostgres,
  openSqlite,
  resetSlices,
} from '../benchDatabases';
import { readBenchArgs, type BenchCommand } from '../benchArgs';
import {
  benchAuth,
  check,
  collectGarbage,
  countSlices,
  instrumentedReconciler,
  silentLogger,
  timed,
  type PassTimes,
} from './benchPasses';

// Targets are ratios to a step of the same run: absolute times say little
// on a shared machine. A scoped pass's cost must not grow with the catalog;
// `bench:growth` judges that across sizes.
const TARGET_NOOP_OF_FULL = 0.2;

const STEP_FULL = 'full reconcile from empty';
const STEP_NOOP = 'no-op full reconcile';
const STEP_SCOPED = 'system-scoped reconcile, one edit';
/** Scoped edits (and the loader's reads of them) timed in each run. */
const EDITS_PER_RUN = 5;
/**
 * No-op full passes timed in each run. One pass of 10,000 slices takes
 * tens of milliseconds, and the first after a pass from empty costs more
 * at every size (half again in a run of five here): one sample decided by
 * those is not the periodic pass's cost.
 */
const NOOP_PASSES_PER_RUN = 3;
const STEP_NAIVE = 'naive: one INSERT per slice';
const STEP_LOADER_FULL = "a loader's full read";
const STEP_LOADER_INCREMENTAL = "a loader's read of one edit (3 slices)";

interface Options {
  systems: number;
  runs: number;
  naiveRuns: number;
  only?: 'sqlite' | 'postgres';
  requirePostgres: boolean;
  postgresUrl: string;
  /** Slice counts of the cost-growth table; none: the one-size table. */
  sizes?: number[];
  /** Seconds the scheduler's growth rows fire at each size; 0: none. */
  schedulerSeconds: number;
  /** Fires per second the scheduler's growth rows are offered. */
  schedulerRate: number;
}

const COMMAND: BenchCommand = {
  command: 'yarn bench:reconciler',
  flags: {
    systems: { value: 'N' },
    runs: { value: 'N' },
    'naive-runs': { value: 'N' },
    only: { value: 'sqlite|postgres' },
    'require-postgres': {},
    postgres: { value: 'URL' },
    sizes: { value: '10000,50000,...' },
    'scheduler-seconds': { value: 'S' },
    'scheduler-rate': { value: 'FIRES_PER_S' },
  },
};

function parseOptions(argv: string[]): Options {
  return readBenchArgs(argv, COMMAND, args => {
    const runs = args.whole('runs', 3);
    const sizes = args.text('sizes');
    return {
      systems: args.whole('systems', 10_000),
      runs,
      naiveRuns: args.whole('naive-runs', runs, 0),
      only: args.oneOf('only', ['sqlite', 'postgres'] as const),
      requirePostgres: args.has('require-postgres'),
      postgresUrl: args.text('postgres', DEFAULT_POSTGRES_URL),
      sizes:
        sizes === undefined
          ? undefined
          : [...new Set(args.wholes('sizes', sizes))].sort((a, b) => a - b),
      schedulerSeconds: args.whole('scheduler-seconds', 10, 0),
      schedulerRate: args.whole('scheduler-rate', 2_000),
    };
  });
}

/** One line of the table: a step's times on one database. */
interface Row extends PassTimes {
  step: string;
  database: string;
  /** At most this many times the median of `of`. */
  target?: { of: Row; max: number };
  /** Compared with the median of this row, without a target. */
  versus?: Row;
  note?: string;
}

class Table {
  readonly rows: Row[] = [];

  row(step: string, database: string, extra: Partial<Row> = {}): Row {
    let row = this.rows.find(r => r.step === step && r.database === database);
    if (!row) {
      row = { step, database, ms: [], ...extra };
      this.rows.push(row);
    }
    return row;
  }

  print() {
    const lines = [
      [
        'step',
        'database',
        'median ms',
        'max ms',
        'target',
        'result',
        'breakdown, median ms',
      ],
      ...this.rows.map(row => {
        const mid = median(row.ms);
        let target = '—';
        let verdict = row.note ?? '';
        if (row.target !== undefined) {
          target = `≤ ${row.target.max}× the ${row.target.of.step}`;
          verdict = `${ratioToTarget(row).toFixed(2)}× ${
            ratioToTarget(row) <= row.target.max ? 'pass' : 'FAIL'
          }`;
        } else if (row.versus) {
          verdict = `${(mid / median(row.versus.ms)).toPrecision(2)}× the ${
            row.versus.step
          }`;
        }
        const phases = row.phases
          ? [...row.phases]
              .map(([name, values]) => `${name} ${format(median(values))}`)
              .join(' · ')
          : '';
        return [
          row.step,
          row.database,
          format(mid),
          format(Math.max(...row.ms)),
          target,
          verdict,
          phases,
        ];
      }),
    ];
    const widths = lines[0].map((_, column) =>
      Math.max(...lines.map(line => line[column].length)),
    );
    const numeric = new Set([2, 3]);
    const render = (line: string[]) =>
      `| ${line
        .map((cell, column) =>
          numeric.has(column)
            ? cell.padStart(widths[column])
            : cell.padEnd(widths[column]),
        )
        .join(' | ')} |`;
    console.log(render(lines[0]));
    console.log(
      `|${widths
        .map((width, column) =>
          numeric.has(column)
            ? `${'-'.repeat(width + 1)}:`
            : '-'.repeat(width + 2),
        )
        .join('|')}|`,
    );
    for (const line of lines.slice(1)) {
      console.log(render(line));
    }
  }
}

function format(ms: number): string {
  return ms < 100 ? ms.toFixed(1) : ms.toFixed(0);
}

/** A row's median over its target step's median. */
function ratioToTarget(row: Row): number {
  return median(row.ms) / median(row.target!.of.ms);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

type Pass = ReturnType<typeof instrumentedReconciler>;

/** What the steps of one database measured, a figure per run. */
interface StepFigures {
  full: PassTimes;
  noop: PassTimes;
  /** A no-op pass of an instance that has not passed before. */
  noopFresh: PassTimes;
  scoped: PassTimes;
  /** A loader's first read (every instance's start, and every 10 min). */
  loaderFull: number[];
  /** The same loader's next read, after the scoped pass's edit. */
  loaderIncremental: number[];
  /** Memory a loader's full read holds in a real scheduler, per slice. */
  bytesPerSlice: number[];
  /** Memory the reconciler holds between passes, per slice. */
  memoBytesPerSlice: number[];
}

/**
 * The steps on one database, `runs` times: a full reconcile from empty, a
 * no-op one, a loader's full read, the memory it holds in a scheduler, a
 * scoped reconcile after one edit, and the loader's read of that edit.
 * Every outcome is checked.
 */
async function measureSteps(
  db: BenchDatabase,
  catalog: IndexedCatalog,
  systems: number,
  runs: number,
): Promise<StepFigures> {
  const expected = systems * 3 * 2;
  const store = new DatabaseSliceStore(db.knex);
  const figures: StepFigures = {
    full: { ms: [] },
    noop: { ms: [] },
    noopFresh: { ms: [] },
    scoped: { ms: [] },
    loaderFull: [],
    loaderIncremental: [],
    bytesPerSlice: [],
    memoBytesPerSlice: [],
  };

  for (let run = 0; run < runs; run++) {
    await resetSlices(db.knex);
    // A new instance each run, as after a start: it has derived nothing.
    let pass: Pass | undefined = instrumentedReconciler(db, catalog);
    const fromEmpty = await pass(r => r.reconcileAll(), figures.full);
    check(
      fromEmpty.ran && fromEmpty.scheduled === expected,
      `${db.name} run ${run}: full from empty scheduled ${fromEmpty.scheduled}, not ${expected}`,
    );
    check(
      fromEmpty.rescheduled === 0 && fromEmpty.cancelled === 0,
      `${db.name} run ${run}: full from empty rescheduled ${fromEmpty.rescheduled} and cancelled ${fromEmpty.cancelled}`,
    );
    const stored = await countSlices(db);
    check(
      stored === expected,
      `${db.name} run ${run}: ${stored} slices stored, not ${expected}`,
    );

    // The periodic pass over an unchanged catalog, as it runs for as long
    // as the catalog stands: several a run, each timed.
    for (let noop = 0; noop < NOOP_PASSES_PER_RUN; noop++) {
      const again = await pass(r => r.reconcileAll(), figures.noop);
      check(
        again.ran &&
          again.scheduled + again.rescheduled + again.cancelled === 0 &&
          again.revision === fromEmpty.revision,
        `${db.name} run ${run}: no-op pass changed something: ${JSON.stringify(
          again,
        )}`,
      );
    }
    // What the instance keeps between passes (what it derived): the
    // memory in use with it, and without it.
    const withReconciler = memoryInUse();
    pass = undefined;
    figures.memoBytesPerSlice.push((withReconciler - memoryInUse()) / expected);
    pass = instrumentedReconciler(db, catalog);
    const fresh = await instrumentedReconciler(db, catalog)(
      r => r.reconcileAll(),
      figures.noopFresh,
    );
    check(
      fresh.scheduled + fresh.rescheduled + fresh.cancelled === 0,
      `${db.name} run ${run}: a fresh instance's pass changed something`,
    );

    await settle(db);
    const loader = createStoredSliceSource({ slices: store });
    let first: Awaited<ReturnType<typeof loader.loadChanges>> | undefined;
    const { ms: firstMs } = await timed(async () => {
      first = await loader.loadChanges();
    });
    check(
      first?.length === 1 &&
        first[0].type === 'replace' &&
        first[0].slices.length === expected,
      `${db.name} run ${run}: the loader's first read is not all ${expected} slices`,
    );
    // Not kept through the steps after it: they are timed on their own.
    first = undefined;
    figures.loaderFull.push(firstMs);
    figures.bytesPerSlice.push(await memoryPerSlice(store, expected));

    await settle(db);
    // Several edits a run, each of a different system spread over the
    // catalog: one edit is a few milliseconds, which one stray pause of the
    // machine would decide alone.
    for (let edit = 0; edit < EDITS_PER_RUN; edit++) {
      const k = Math.floor(
        ((run * EDITS_PER_RUN + edit + 1) * systems) /
          (runs * EDITS_PER_RUN + 1),
      );
      const original = catalog.get(httpCheckRefOf(k));
      const edited = structuredClone(original);
      (edited.spec as { interval: string }).interval = '60s';
      catalog.put(edited);
      try {
        const one = await pass(
          r => r.reconcileSystems([systemRefOf(k)]),
          figures.scoped,
        );
        check(
          one.ran &&
            one.rescheduled === 3 &&
            one.scheduled === 0 &&
            one.cancelled === 0,
          `${db.name} run ${run}: scoped pass for system-${k}: ${JSON.stringify(
            one,
          )}, not 3 rescheduled`,
        );
        const moved = await countSlices(db, {
          system_ref: systemRefOf(k),
          interval_ms: 60_000,
        });
        check(
          moved === 3,
          `${db.name} run ${run}: ${moved} slices of system-${k} at 60s, not 3`,
        );
        const next = await timed(() => loader.loadChanges());
        check(
          next.result.length === 1 &&
            next.result[0].type === 'upsert' &&
            next.result[0].slices.length === 3,
          `${
            db.name
          } run ${run}: the loader's next read is not the 3 edited slices: ${JSON.stringify(
            next.result.map(change => change.type),
          )}`,
        );
        figures.loaderIncremental.push(next.ms);
      } finally {
        catalog.put(original);
      }
    }
  }
  return figures;
}

/** The figures of two sets of runs as one. */
function joinSteps(
  before: StepFigures | undefined,
  more: StepFigures,
): StepFigures {
  if (!before) {
    return more;
  }
  const times = (a: PassTimes, b: PassTimes): PassTimes => {
    const phases = new Map(a.phases);
    for (const [name, values] of b.phases ?? []) {
      phases.set(name, [...(phases.get(name) ?? []), ...values]);
    }
    return { ms: [...a.ms, ...b.ms], phases };
  };
  return {
    full: times(before.full, more.full),
    noop: times(before.noop, more.noop),
    noopFresh: times(before.noopFresh, more.noopFresh),
    scoped: times(before.scoped, more.scoped),
    loaderFull: [...before.loaderFull, ...more.loaderFull],
    loaderIncremental: [...before.loaderIncremental, ...more.loaderIncremental],
    bytesPerSlice: [...before.bytesPerSlice, ...more.bytesPerSlice],
    memoBytesPerSlice: [...before.memoBytesPerSlice, ...more.memoBytesPerSlice],
  };
}

/** Heap and buffers in use after a full collection. */
function memoryInUse(): number {
  collectGarbage();
  const memory = process.memoryUsage();
  return memory.heapUsed + memory.arrayBuffers;
}

/**
 * Lets PostgreSQL write out what the steps before wrote (a pass from empty
 * leaves hundreds of MB to flush), so a step is not timed paying for the
 * I/O of the one before it.
 */
async function settle(db: BenchDatabase) {
  if (db.name === 'PostgreSQL') {
    await db.knex.raw('CHECKPOINT');
  }
}

/**
 * The memory a full read of the stored slices holds once a real scheduler
 * runs them (the slices, the scheduler's records, its heap), per slice:
 * heap and buffers after a full collection, before and after.
 */
async function memoryPerSlice(
  store: DatabaseSliceStore,
  expected: number,
): Promise<number> {
  const before = memoryInUse();
  const scheduler = SliceScheduler.create<DesiredSlice>({
    logger: silentLogger,
    executor: () => {},
  });
  scheduler.start();
  try {
    const loader = createStoredSliceSource({ slices: store });
    for (const change of await loader.loadChanges()) {
      await scheduler.submit(change);
    }
    while (scheduler.stats().liveSlices < expected) {
      await nextTurn();
    }
    return (memoryInUse() - before) / expected;
  } finally {
    await scheduler.stop({ awaitInFlightMs: 0 });
  }
}

/** The one-size table's rows of one database, and the naive comparison. */
async function benchDatabase(
  db: BenchDatabase,
  catalog: IndexedCatalog,
  options: Options,
  table: Table,
) {
  const expected = options.systems * 3 * 2;
  const steps = await measureSteps(db, catalog, options.systems, options.runs);
  const full = table.row(STEP_FULL, db.name, steps.full);
  table.row(STEP_NOOP, db.name, {
    target: { of: full, max: TARGET_NOOP_OF_FULL },
    ...steps.noop,
  });
  table.row(STEP_SCOPED, db.name, { versus: full, ...steps.scoped });
  table.row(STEP_LOADER_FULL, db.name, { ms: steps.loaderFull });
  table.row(STEP_LOADER_INCREMENTAL, db.name, { ms: steps.loaderIncremental });

  if (options.naiveRuns === 0) {
    return;
  }
  const naive = table.row(STEP_NAIVE, db.name, { versus: full });
  const naivePass = instrumentedReconciler(db, catalog, { naive: true });
  for (let run = 0; run < options.naiveRuns; run++) {
    await resetSlices(db.knex);
    const outcome = await naivePass(r => r.reconcileAll(), naive);
    const stored = await countSlices(db);
    check(
      outcome.scheduled === expected && stored === expected,
      `${db.name} naive run ${run}: scheduled ${outcome.scheduled}, stored ${stored}, not ${expected}`,
    );
  }
}

/**
 * The catalog reads a full and a scoped pass make (the queries of
 * loadDesiredSlices), on their own: what of a pass is the fake catalog.
 */
async function benchCatalogReads(
  catalog: IndexedCatalog,
  options: Options,
  table: Table,
) {
  const service = catalog.asCatalogService();
  const credentials = await benchAuth.getOwnServiceCredentials();
  const read = async (catalogService: CatalogService, writings?: string[]) => {
    const [checks, systems, members, environments] = await Promise.all([
      catalogService.getEntities(
        {
          filter: writings
            ? { kind: HEALTHCHECK_KIND, 'spec.systems': writings }
            : { kind: HEALTHCHECK_KIND },
        },
        { credentials },
      ),
      writings
        ? catalogService.getEntitiesByRefs(
            { entityRefs: [writings[0]] },
            { credentials },
          )
        : catalogService.getEntities(
            { filter: { kind: 'System' } },
            { credentials },
          ),
      catalogService.getEntities(
        {
          filter: [
            { kind: 'Component', ...(writings && { 'spec.system': writings }) },
            { kind: 'Resource', ...(writings && { 'spec.system': writings }) },
          ],
        },
        { credentials },
      ),
      catalogService.getEntities(
        { filter: { kind: 'Environment' } },
        { credentials },
      ),
    ]);
    return [checks, systems, members, environments].reduce(
      (sum, response) => sum + response.items.length,
      0,
    );
  };
  const all = table.row('fake catalog reads of a full pass', 'none (catalog)');
  const one = table.row(
    'fake catalog reads of a scoped pass',
    'none (catalog)',
  );
  for (let run = 0; run < options.runs; run++) {
    const full = await timed(() => read(service));
    all.ms.push(full.ms);
    all.note = `${full.result} entities`;
    const k = Math.floor(options.systems / 2);
    const scoped = await timed(() =>
      read(service, [systemRefOf(k), `default/system-${k}`, `system-${k}`]),
    );
    one.ms.push(scoped.ms);
    one.note = `${scoped.result} entities`;
  }
}

/** The pure half: no catalog, no database. */
function benchPurePart(
  entities: Entity[],
  checkEntities: Entity[],
  options: Options,
  table: Table,
) {
  const checks: ReconcilableCheck[] = checkEntities.map(entity => {
    const spec = entity.spec as unknown as HealthCheckSpec;
    const id = stringifyEntityRef(entity);
    return {
      id,
      source: { kind: 'gitops', entityRef: id },
      spec,
      ...resolveCheckTiming(spec),
    };
  });
  const where = 'none (pure)';
  const measure = <T>(step: string, fn: () => T, note: (r: T) => string) => {
    collectGarbage();
    const start = performance.now();
    const result = fn();
    const row = table.row(`pure: ${step}`, where);
    row.ms.push(performance.now() - start);
    row.note = note(result);
    return result;
  };
  for (let run = 0; run < options.runs; run++) {
    const systems = measure(
      'resolveEnvironments, all systems',
      () => {
        const members = groupMembersBySystem(entities);
        return entities
          .filter(e => e.kind === 'System')
          .map((system): SystemEnvironments => {
            const ref = stringifyEntityRef(system);
            return {
              ref,
              name: system.metadata.name,
              environments: resolveEnvironments({
                system,
                members: members.get(ref) ?? [],
              }).environments,
            };
          });
      },
      r => `${r.length} systems`,
    );
    const desired = measure(
      'desiredSlices, all systems',
      () => desiredSlices({ checks, systems }).slices,
      r => `${r.length} slices`,
    );
    measure(
      'planReconcile, full from empty',
      () => planReconcile({ desired, current: [] }),
      r => `${r.toSchedule.length} to schedule`,
    );
    const held: HeldSlice[] = desired.map(s => ({
      id: s.id,
      intervalMs: s.intervalMs,
      timeoutMs: s.timeoutMs,
      configHash: s.configHash,
    }));
    measure(
      'planReconcile, full no-op',
      () => planReconcile({ desired, current: held }),
      r => `${r.toReschedule.length} to reschedule`,
    );
  }
}

/** The 1-minute load average, against the CPU count: how busy the machine was. */
function loadAverage(): string {
  return loadavg()[0].toFixed(2);
}

/** The databases asked for; PostgreSQL skipped with a note when down. */
async function openDatabases(
  options: Options,
  notes: string[],
): Promise<BenchDatabase[]> {
  const databases: BenchDatabase[] = [];
  if (options.only !== 'postgres') {
    databases.push(await openSqlite());
  }
  if (options.only !== 'sqlite') {
    const db = await openPostgres(options.postgresUrl);
    if ('unreachable' in db) {
      if (options.requirePostgres) {
        throw new Error(`PostgreSQL is not reachable: ${db.unreachable}`);
      }
      const note = `PostgreSQL skipped, not reachable: ${db.unreachable}`;
      console.log(`Note: ${note}`);
      notes.push(note);
    } else {
      databases.push(db);
    }
  }
  notes.push(...databases.map(db => db.description));
  return databases;
}

async function closeAll(databases: BenchDatabase[]) {
  for (const db of databases) {
    // One that cannot be closed (its server restarted) keeps no table back.
    await db
      .close()
      .catch(error =>
        console.error(`Could not close ${db.description}: ${error.message}`),
      );
  }
}

const PHASES_NOTE =
  'catalog = time in the fake catalog; derive = the rest of loading the desired slices ' +
  '(timing, environments, desiredSlices); list = listSliceHeaders; plan = planReconcile and building ' +
  'the writes; write = applyChanges; lock+rest = the reconcile lock and what is left. ' +
  'Each phase is its own median, so they need not add up to the median.';

async function benchOneSize(options: Options) {
  const loadBefore = loadAverage();
  const entities = syntheticCatalog(options.systems);
  const checkEntities = syntheticChecks(options.systems);
  const catalog = new IndexedCatalog([...entities, ...checkEntities]);
  const table = new Table();
  const notes: string[] = [];

  benchPurePart(entities, checkEntities, options, table);
  await benchCatalogReads(catalog, options, table);

  const databases = await openDatabases(options, notes);
  try {
    for (const db of databases) {
      await benchDatabase(db, catalog, options, table);
    }
  } finally {
    await closeAll(databases);
  }

  const expected = options.systems * 3 * 2;
  console.log(
    `\nReconciler bench: ${options.systems} systems x 3 environments x 2 checks = ${expected} slices; ` +
      `median of ${options.runs} runs (naive: ${
        options.naiveRuns
      }); ${machine()}`,
  );
  console.log(
    `${notes.join(
      '; ',
    )}; load average ${loadBefore} before, ${loadAverage()} after\n`,
  );
  table.print();
  console.log(`\nbreakdown: ${PHASES_NOTE}`);
  const missed = table.rows.filter(
    row => row.target !== undefined && ratioToTarget(row) > row.target.max,
  );
  if (missed.length > 0) {
    console.log(
      `\nTargets missed: ${missed
        .map(row => `${row.step} on ${row.database}`)
        .join(', ')}`,
    );
  }
}

function machine(): string {
  return `Node ${process.version}, ${cpus().length} CPUs (${
    cpus()[0]?.model.trim() ?? 'unknown'
  })`;
}

/**
 * The cost-growth table: the steps at each size on each database, the
 * scheduler's rows from its own bench (a fresh process per size), each
 * figure per slice (or flat) with its ratio to the smallest size.
 */
async function benchGrowth(options: Options, sizes: number[]) {
  const loadBefore = loadAverage();
  const notes: string[] = [];
  const rows: GrowthRow[] = [];
  const breakdown: string[] = [];
  const put = (
    measure: string,
    where: string,
    unit: string,
    target: GrowthTarget,
    size: number,
    values: number[],
  ) => {
    let row = rows.find(r => r.measure === measure && r.where === where);
    if (!row) {
      row = { measure, where, unit, target, figures: new Map() };
      rows.push(row);
    }
    row.figures.set(size, values);
  };
  const growth: GrowthTarget = { kind: 'growth' };

  let failedRun: string | undefined;
  const databases = await openDatabases(options, notes);
  try {
    // Once unrecorded, so the first size is not the one that warms the code.
    const warmUp = Math.ceil(sizes[0] / 6);
    const warmCatalog = new IndexedCatalog([
      ...syntheticCatalog(warmUp),
      ...syntheticChecks(warmUp),
    ]);
    for (const db of databases) {
      await measureSteps(db, warmCatalog, warmUp, 1);
    }
    // Run by run, every size in each: a machine that gets busier or
    // quieter meanwhile weighs on all sizes alike.
    const measured = new Map<string, StepFigures>();
    for (let run = 0; run < options.runs && !failedRun; run++) {
      // A run counts once it has every size on every database.
      const thisRun = new Map<string, StepFigures>();
      try {
        for (const size of sizes) {
          // 3 environments x 2 checks a system.
          const systems = Math.ceil(size / 6);
          const catalog = new IndexedCatalog([
            ...syntheticCatalog(systems),
            ...syntheticChecks(systems),
          ]);
          for (const db of databases) {
            console.error(
              `  run ${run + 1}/${options.runs}: ${systems * 6} slices on ${
                db.name
              }`,
            );
            thisRun.set(
              `${db.name}\n${size}`,
              await measureSteps(db, catalog, systems, 1),
            );
          }
        }
      } catch (error) {
        if (run === 0) {
          throw error;
        }
        // A shared database server restarted under the bench, say: the
        // runs before this one still make a table.
        failedRun = `run ${run + 1} of ${
          options.runs
        } failed, so the medians are of ${run}: ${(error as Error).message}`;
        break;
      }
      for (const [key, steps] of thisRun) {
        measured.set(key, joinSteps(measured.get(key), steps));
      }
    }
    for (const size of sizes) {
      const slices = Math.ceil(size / 6) * 6;
      for (const db of databases) {
        const steps = measured.get(`${db.name}\n${size}`)!;
        const perSlice = (ms: number[]) => ms.map(v => (v * 1_000) / slices);
        put(
          'full reconcile from empty, per slice',
          db.name,
          'µs',
          growth,
          size,
          perSlice(steps.full.ms),
        );
        put(
          'no-op full reconcile, per slice',
          db.name,
          'µs',
          growth,
          size,
          perSlice(steps.noop.ms),
        );
        put(
          'no-op full reconcile of a fresh instance, per slice',
          db.name,
          'µs',
          growth,
          size,
          perSlice(steps.noopFresh.ms),
        );
        put(
          'no-op / full reconcile from empty',
          db.name,
          '×',
          { kind: 'at most', limit: 0.2 },
          size,
          steps.noop.ms.map((ms, run) => ms / steps.full.ms[run]),
        );
        put(
          'scoped reconcile, one edit (flat)',
          db.name,
          'ms',
          growth,
          size,
          steps.scoped.ms,
        );
        put(
          "loader's full read, per slice",
          db.name,
          'µs',
          growth,
          size,
          perSlice(steps.loaderFull),
        );
        put(
          "loader's read of one edit (flat)",
          db.name,
          'ms',
          growth,
          size,
          steps.loaderIncremental,
        );
        put(
          'reconciler: memory held between passes, per slice',
          db.name,
          'B',
          growth,
          size,
          steps.memoBytesPerSlice,
        );
        put(
          'loader + scheduler: memory held per slice',
          db.name,
          'B',
          growth,
          size,
          steps.bytesPerSlice,
        );
        for (const [step, times] of [
          ['full', steps.full],
          ['no-op', steps.noop],
          ['scoped', steps.scoped],
        ] as const) {
          breakdown.push(
            `${db.name}, ${sizeLabel(size)}, ${step}: ${phasesOf(times)}`,
          );
        }
      }
    }
  } finally {
    await closeAll(databases);
  }
  if (options.schedulerSeconds > 0) {
    rows.push(...schedulerGrowthRows(options, sizes));
  }

  console.log(
    `\nCost growth: ${sizes
      .map(sizeLabel)
      .join(
        ', ',
      )} slices (synthetic catalog, 3 environments x 2 checks a system); median of ${
      options.runs
    } runs; ${machine()}`,
  );
  console.log(
    `${notes.join(
      '; ',
    )}; load average ${loadBefore} before, ${loadAverage()} after\n`,
  );
  const { text, missed } = renderGrowthTable(rows, sizes);
  console.log(text);
  console.log(
    `\nEach cell: the median, and in brackets its ratio to the ${sizeLabel(
      sizes[0],
    )} column. Per-slice rows are judged on growth (linear cost: the largest size within ${GROWTH_LIMIT}× of the smallest per slice); ` +
      '(flat) rows on their time, which must not grow with the slices; the no-op ratio on ≤ 0.2 at every size. ' +
      `Scheduler rows: every size offered ${options.schedulerRate} fires/s for ${options.schedulerSeconds} s, a fresh process each, no-op executor.`,
  );
  if (failedRun) {
    console.log(`\nNote: ${failedRun}`);
  }
  console.log(`\nPhases, median ms (${PHASES_NOTE})`);
  for (const line of breakdown) {
    console.log(`  ${line}`);
  }
  if (missed.length > 0) {
    console.log(`\nTargets missed:\n${missed.map(m => `  - ${m}`).join('\n')}`);
  }
}

function phasesOf(times: PassTimes): string {
  return [...(times.phases ?? [])]
    .map(([name, values]) => `${name} ${format(median(values))}`)
    .join(' · ');
}

/** The scheduler bench's growth rows, run in its own processes. */
function schedulerGrowthRows(options: Options, sizes: number[]): GrowthRow[] {
  const script = resolvePackagePath(
    '@vigil/plugin-healthcheck-backend',
    'bench/scheduler/benchScheduler.ts',
  );
  const output = execFileSync(
    process.execPath,
    [
      '--expose-gc',
      '--disable-warning=MODULE_TYPELESS_PACKAGE_JSON',
      script,
      '--only',
      'growth',
      '--json',
      '--sizes',
      sizes.join(','),
      '--runs',
      String(options.runs),
      '--rate',
      String(options.schedulerRate),
      '--growth-seconds',
      String(options.schedulerSeconds),
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const parsed = JSON.parse(output) as Array<
    Omit<GrowthRow, 'figures'> & { figures: Array<[number, number[]]> }
  >;
  return parsed.map(row => ({ ...row, figures: new Map(row.figures) }));
}

async function main(args: string[]) {
  const options = parseOptions(args);
  if (options.sizes) {
    await benchGrowth(options, options.sizes);
  } else {
    await benchOneSize(options);
  }
}

main(process.argv.slice(2)).catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
