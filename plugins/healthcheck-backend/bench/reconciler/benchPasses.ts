/*
 * What the reconciler benches share: a reconciler on the real store and
 * lock that times each pass by phase, and the checks of their outcomes.
 */
import { performance } from 'node:perf_hooks';
import type { AuthService, LoggerService } from '@backstage/backend-plugin-api';
import { DatabaseSliceStore } from '../../src/database/DatabaseSliceStore';
import { createReconcileLock } from '../../src/reconciler/ReconcileLock';
import {
  Reconciler,
  type ReconcileOutcome,
} from '../../src/reconciler/Reconciler';
import {
  probeTypeLookup,
  validateHealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import {
  builtinProbeTypeDeclarations,
  ProbeSecrets,
  secretUsesOf,
} from '@vigil/plugin-healthcheck-node';
import { sliceSecretProblems } from '../../src/reconciler/sliceSecretProblems';
import type { IndexedCatalog } from './benchCatalog';
import type { BenchDatabase } from '../benchDatabases';
import {
  NaiveSliceStore,
  Timeline,
  TimedLock,
  TimedSliceStore,
} from './benchStores';

const probeTypes = probeTypeLookup(builtinProbeTypeDeclarations());
const secrets = new ProbeSecrets({});

/** The times of one step over runs, and of each of its phases. */
export interface PassTimes {
  ms: number[];
  /** Per phase, the times of each run. */
  phases?: Map<string, number[]>;
}

export function check(condition: boolean, message: string): asserts condition {
  if (!condition) {
    throw new Error(`Bench outcome wrong: ${message}`);
  }
}

/** Collects garbage left by earlier steps, when --expose-gc allows (true). */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  return gc !== undefined;
}

/**
 * How long a step waits after the collection before it, unclocked. V8
 * sweeps what a full collection freed on other threads afterwards, for a
 * time that grows with the heap: a step of a few milliseconds started at
 * once paid that (about 4 ms at 200,000 slices, none at 10,000), which no
 * step pays where nothing forces a collection.
 */
const AFTER_COLLECTION_MS = 50;

export async function timed<T>(
  fn: () => Promise<T>,
): Promise<{ result: T; ms: number }> {
  if (collectGarbage()) {
    await new Promise(resolve => setTimeout(resolve, AFTER_COLLECTION_MS));
  }
  const start = performance.now();
  const result = await fn();
  return { result, ms: performance.now() - start };
}

export const silentLogger: LoggerService = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  child() {
    return silentLogger;
  },
};

export const benchAuth = {
  getOwnServiceCredentials: async () => ({
    $$type: '@backstage/BackstageCredentials',
    principal: { type: 'service', subject: 'bench' },
  }),
} as unknown as AuthService;

/**
 * A reconciler on the real store and lock, instrumented: `pass` runs one
 * pass and splits its time into phases.
 */
export function instrumentedReconciler(
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
    // The judgements the plugin wires in, on a default configuration: they
    // are part of what a pass costs.
    validateSpec: (spec, context) =>
      validateHealthCheckSpec(spec, {
        probeTypes,
        secrets: secretUsesOf(secrets),
        ...context,
      }),
    validateSlice: slice => sliceSecretProblems(secrets, slice),
    slices: new TimedSliceStore(
      options.naive ? new NaiveSliceStore(real, db.knex) : real,
      timeline,
    ),
    lock: new TimedLock(createReconcileLock(db.knex), timeline),
  });
  return async (
    run: (reconciler: Reconciler) => Promise<ReconcileOutcome>,
    row: PassTimes,
  ): Promise<ReconcileOutcome> => {
    timeline.clear();
    const readsBefore = catalog.readMs;
    const { result, ms } = await timed(() => run(reconciler));
    const catalogMs = catalog.readMs - readsBefore;
    // A pass with nothing to compare lists, plans and writes nothing.
    const listed = timeline.marks.has('listStart');
    const load = timeline.between(
      'passStart',
      listed ? 'listStart' : 'passEnd',
    );
    const between = (from: string, to: string) =>
      listed ? timeline.between(from, to) : 0;
    const phases: Array<[string, number]> = [
      ['catalog', catalogMs],
      ['derive', load - catalogMs],
      ['list', between('listStart', 'listEnd')],
      ['plan', between('listEnd', 'applyStart')],
      ['write', between('applyStart', 'applyEnd')],
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

export async function countSlices(
  db: BenchDatabase,
  where: Record<string, string | number> = {},
): Promise<number> {
  const [{ count }] = await db
    .knex('healthcheck_slices')
    .where({ removed: false, ...where })
    .count({ count: '*' });
  return Number(count);
}
