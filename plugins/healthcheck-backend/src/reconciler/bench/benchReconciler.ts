/* eslint-disable no-console */
/*
 * Times the reconciler on a synthetic catalog (by default 10,000 systems x
 * 3 environments x 2 checks = 60,000 slices), through the real code path:
 * `Reconciler` with `DatabaseSliceStore` and the reconcile lock, on SQLite
 * (in memory) and on PostgreSQL (a database of its own, dropped after).
 *
 *   yarn bench:reconciler [--systems N] [--runs N] [--naive-runs N (0: none)]
 *     [--only sqlite|postgres] [--require-postgres] [--postgres URL]
 *
 * which is
 *
 *   node --expose-gc --require @backstage/cli/config/nodeTransform.cjs \
 *     src/reconciler/bench/benchReconciler.ts ...
 *
 * Per database, the median of `--runs` (default 3) of:
 *
 * 1. a full reconcile from empty (the slices table emptied first);
 * 2. a no-op full reconcile right after it;
 * 3. a system-scoped reconcile after one edit (one system's http
 *    HealthCheck goes from 30s to 60s; a different system each run);
 *
 * and, for comparison, a full reconcile from empty whose store writes one
 * INSERT per slice. Every outcome is checked; a wrong one fails the run.
 * The pure half (no database) and the fake catalog's own reads are timed
 * too, so the table shows what is reconciler and what is catalog.
 *
 * PostgreSQL: `--postgres URL`, else
 * BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING, else
 * postgresql://postgres@127.0.0.1:5432. Skipped with a note when it does
 * not answer, unless `--require-postgres`.
 */
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import type { AuthService, LoggerService } from '@backstage/backend-plugin-api';
import { stringifyEntityRef, type Entity } from '@backstage/catalog-model';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import {
  HEALTHCHECK_KIND,
  resolveCheckTiming,
  type HealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import { DatabaseSliceStore } from '../../database/DatabaseSliceStore';
import {
  desiredSlices,
  type ReconcilableCheck,
  type SystemEnvironments,
} from '../desiredSlices';
import { planReconcile, type HeldSlice } from '../planReconcile';
import { createReconcileLock } from '../ReconcileLock';
import { Reconciler, type ReconcileOutcome } from '../Reconciler';
import {
  groupMembersBySystem,
  resolveEnvironments,
} from '../resolveEnvironments';
import {
  httpCheckRefOf,
  IndexedCatalog,
  syntheticCatalog,
  syntheticChecks,
  systemRefOf,
} from './benchCatalog';
import {
  type BenchDatabase,
  openPostgres,
  openSqlite,
  resetSlices,
} from './benchDatabases';
import {
  NaiveSliceStore,
  Timeline,
  TimedLock,
  TimedSliceStore,
} from './benchStores';

const TARGET_FULL_MS = 5_000;
const TARGET_NOOP_MS = 1_000;
const TARGET_SCOPED_MS = 50;

const STEP_FULL = 'full reconcile from empty';
const STEP_NOOP = 'no-op full reconcile';
const STEP_SCOPED = 'system-scoped reconcile, one edit';
const STEP_NAIVE = 'naive: one INSERT per slice';

interface Options {
  systems: number;
  runs: number;
  naiveRuns: number;
  only?: 'sqlite' | 'postgres';
  requirePostgres: boolean;
  postgresUrl: string;
}

function parseOptions(args: readonly string[]): Options {
  const valueOf = (flag: string) => {
    const index = args.indexOf(flag);
    return index === -1 ? undefined : args[index + 1];
  };
  const count = (flag: string, fallback: number, least = 1) => {
    const value = valueOf(flag);
    const parsed = value === undefined ? fallback : Number(value);
    if (!Number.isInteger(parsed) || parsed < least) {
      throw new Error(`${flag} wants a whole number >= ${least}, not ${value}`);
    }
    return parsed;
  };
  const only = valueOf('--only');
  if (only !== undefined && only !== 'sqlite' && only !== 'postgres') {
    throw new Error(`--only wants sqlite or postgres, not ${only}`);
  }
  const runs = count('--runs', 3);
  return {
    systems: count('--systems', 10_000),
    runs,
    naiveRuns: count('--naive-runs', runs, 0),
    only,
    requirePostgres: args.includes('--require-postgres'),
    postgresUrl:
      valueOf('--postgres') ??
      process.env.BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING ??
      'postgresql://postgres@127.0.0.1:5432',
  };
}

/** One line of the table: a step's times on one database. */
interface Row {
  step: string;
  database: string;
  ms: number[];
  target?: number;
  /** Compared with the median of this row instead of a target. */
  versus?: Row;
  note?: string;
  /** Per phase, the times of each run. */
  phases?: Map<string, number[]>;
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
        'ratio to target',
        'breakdown, median ms',
      ],
      ...this.rows.map(row => {
        const mid = median(row.ms);
        let target = '—';
        let verdict = row.note ?? '';
        if (row.target !== undefined) {
          target = `≤ ${row.target} ms`;
          verdict = `${(mid / row.target).toFixed(2)}× ${
            mid <= row.target ? 'pass' : 'FAIL'
          }`;
        } else if (row.versus) {
          verdict = `${(mid / median(row.versus.ms)).toFixed(1)}× the ${
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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function check(condition: boolean, message: string): asserts condition {
  if (!condition) {
    throw new Error(`Bench outcome wrong: ${message}`);
  }
}

/** Collects garbage left by earlier steps, when --expose-gc allows. */
function collectGarbage() {
  (globalThis as { gc?: () => void }).gc?.();
}

async function timed<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; ms: number }> {
  collectGarbage();
  const start = performance.now();
  const result = await fn();
  return { result, ms: performance.now() - start };
}

const silentLogger: LoggerService = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  child() {
    return silentLogger;
  },
};

const benchAuth = {
  getOwnServiceCredentials: async () => ({
    $$type: '@backstage/BackstageCredentials',
    principal: { type: 'service', subject: 'bench' },
  }),
} as unknown as AuthService;

/**
 * A reconciler on the real store and lock, instrumented: `pass` runs one
 * pass and splits its time into phases.
 */
function instrumentedReconciler(
  db: BenchDatabase,
  catalog: IndexedCatalog,
  options: { naive?: boolean } = {},
) {
  const timeline = new Timeline();
  const real = new DatabaseSliceStore(db.knex);
  const reconciler = new Reconciler({
    catalog: catalog.asCatalogService(),
    auth: benchAuth,
    logger: silentLogger,
    listStoredChecks: async () => [],
    slices: new TimedSliceStore(
      options.naive ? new NaiveSliceStore(real, db.knex) : real,
      timeline,
    ),
    lock: new TimedLock(createReconcileLock(db.knex), timeline),
  });
  return async (
    run: (reconciler: Reconciler) => Promise<ReconcileOutcome>,
    row: Row,
  ): Promise<ReconcileOutcome> => {
    timeline.clear();
    const readsBefore = catalog.readMs;
    const { result, ms } = await timed(() => run(reconciler));
    const catalogMs = catalog.readMs - readsBefore;
    const load = timeline.between('passStart', 'listStart');
    const phases: Array<[string, number]> = [
      ['catalog', catalogMs],
      ['derive', load - catalogMs],
      ['list', timeline.between('listStart', 'listEnd')],
      ['plan', timeline.between('listEnd', 'applyStart')],
      ['write', timeline.between('applyStart', 'applyEnd')],
    ];
    phases.push([
      'lock+rest',
      ms - phases.reduce((sum, [, value]) => sum + value, 0),
    ]);
    row.ms.push(ms);
    row.phases ??= new Map();
    for (const [name, value] of phases) {
      row.phases.set(name, [...(row.phases.get(name) ?? []), value]);
    }
    return result;
  };
}

async function countSlices(
  db: BenchDatabase,
  where: Record<string, string | number> = {},
): Promise<number> {
  const [{ count }] = await db
    .knex('healthcheck_slices')
    .where({ removed: false, ...where })
    .count({ count: '*' });
  return Number(count);
}

/** Steps 1-3 and the naive comparison on one database. */
async function benchDatabase(
  db: BenchDatabase,
  catalog: IndexedCatalog,
  options: Options,
  table: Table,
) {
  const expected = options.systems * 3 * 2;
  const pass = instrumentedReconciler(db, catalog);
  const full = table.row(STEP_FULL, db.name, { target: TARGET_FULL_MS });
  const noop = table.row(STEP_NOOP, db.name, { target: TARGET_NOOP_MS });
  const scoped = table.row(STEP_SCOPED, db.name, {
    target: TARGET_SCOPED_MS,
  });

  for (let run = 0; run < options.runs; run++) {
    await resetSlices(db.knex);
    const fromEmpty = await pass(r => r.reconcileAll(), full);
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

    const again = await pass(r => r.reconcileAll(), noop);
    check(
      again.ran &&
        again.scheduled + again.rescheduled + again.cancelled === 0 &&
        again.revision === fromEmpty.revision,
      `${db.name} run ${run}: no-op pass changed something: ${JSON.stringify(
        again,
      )}`,
    );

    // A different system each run, spread over the catalog.
    const k = Math.floor(((run + 1) * options.systems) / (options.runs + 1));
    const original = catalog.get(httpCheckRefOf(k));
    const edited = structuredClone(original);
    (edited.spec as { interval: string }).interval = '60s';
    catalog.put(edited);
    try {
      const one = await pass(r => r.reconcileSystems([systemRefOf(k)]), scoped);
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
    } finally {
      catalog.put(original);
    }
  }

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

async function main(args: string[]) {
  const options = parseOptions(args);
  const loadBefore = loadAverage();
  const entities = syntheticCatalog(options.systems);
  const checkEntities = syntheticChecks(options.systems);
  const catalog = new IndexedCatalog([...entities, ...checkEntities]);
  const table = new Table();
  const notes: string[] = [];

  benchPurePart(entities, checkEntities, options, table);
  await benchCatalogReads(catalog, options, table);

  const opens: Array<() => Promise<BenchDatabase | undefined>> = [];
  if (options.only !== 'postgres') {
    opens.push(openSqlite);
  }
  if (options.only !== 'sqlite') {
    opens.push(async () => {
      const db = await openPostgres(options.postgresUrl);
      if ('unreachable' in db) {
        if (options.requirePostgres) {
          throw new Error(`PostgreSQL is not reachable: ${db.unreachable}`);
        }
        const note = `PostgreSQL skipped, not reachable: ${db.unreachable}`;
        console.log(`Note: ${note}`);
        notes.push(note);
        return undefined;
      }
      return db;
    });
  }
  for (const open of opens) {
    const db = await open();
    if (!db) {
      continue;
    }
    notes.push(db.description);
    try {
      await benchDatabase(db, catalog, options, table);
    } finally {
      await db.close();
    }
  }

  const expected = options.systems * 3 * 2;
  console.log(
    `\nReconciler bench: ${options.systems} systems x 3 environments x 2 checks = ${expected} slices; ` +
      `median of ${options.runs} runs (naive: ${options.naiveRuns}); ` +
      `Node ${process.version}, ${cpus().length} CPUs (${
        cpus()[0]?.model.trim() ?? 'unknown'
      })`,
  );
  console.log(
    `${notes.join(
      '; ',
    )}; load average ${loadBefore} before, ${loadAverage()} after\n`,
  );
  table.print();
  console.log(
    '\nbreakdown: catalog = time in the fake catalog; derive = the rest of loading the desired slices ' +
      '(timing, environments, desiredSlices); list = listSliceHeaders; plan = planReconcile and building ' +
      'the writes; write = applyChanges; lock+rest = the reconcile lock and what is left. ' +
      'Each phase is its own median, so they need not add up to the median.',
  );
  const missed = table.rows.filter(
    row => row.target !== undefined && median(row.ms) > row.target,
  );
  if (missed.length > 0) {
    console.log(
      `\nTargets missed: ${missed
        .map(row => `${row.step} on ${row.database}`)
        .join(', ')}`,
    );
  }
}

main(process.argv.slice(2)).catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
