/*
 * The read-path bench's data, seeded into a scratch PostgreSQL database:
 * the reconciler's synthetic catalog (N systems x 3 environments x 2
 * checks), its slices, their judged states, the environment states, one
 * stored rollup per system, and 30 days of hourly aggregates plus the raw
 * runs of the hour not aggregated yet for the first `historySystems`
 * systems.
 *
 * The slices go in through the real `DatabaseSliceStore.applyChanges` and
 * the slice states through the real `DatabaseStateStore.writeSliceStates`
 * (both one JSON statement per chunk); environment states and rollups
 * (computed with the real `environmentVerdict` and `computeRollup`) as JSON
 * batches, since the store only writes them one system at a time; hours and
 * runs with `generate_series`, hour by hour in time order as aggregation
 * and probing would have written them.
 */
import { performance } from 'node:perf_hooks';
import { stringifyEntityRef, type Entity } from '@backstage/catalog-model';
import {
  HealthStatus,
  resolveCheckTiming,
  type HealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import type { Knex } from 'knex';
import { DatabaseSliceStore } from '../../src/database/DatabaseSliceStore';
import { DatabaseStateStore } from '../../src/database/DatabaseStateStore';
import { HOUR_MS, hourStartOf } from '../../src/history/aggregateRuns';
import { syntheticCatalog, syntheticChecks } from '../reconciler/benchCatalog';
import {
  desiredSlices,
  type ReconcilableCheck,
  type SystemEnvironments,
} from '../../src/reconciler/desiredSlices';
import type { DesiredSlice } from '../../src/model';
import {
  groupMembersBySystem,
  resolveEnvironments,
} from '../../src/reconciler/resolveEnvironments';
import {
  computeRollup,
  environmentVerdict,
} from '../../src/rollup/computeRollup';
import type { EnvironmentSlice, StoredSliceState } from '../../src/model';

const DAY_MS = 24 * HOUR_MS;
/** Hours of aggregates each slice of a history system gets: 30 days. */
export const HISTORY_HOURS = 720;
/** Both synthetic checks run every 30 s. */
const RUN_INTERVAL_MS = 30_000;
/** Rows per JSON statement for the tables the bench fills itself. */
const JSON_CHUNK = 5_000;

/** What was seeded, and the bench clock it was seeded for. */
export interface Fixture {
  systems: number;
  historySystems: number;
  /** The System entities, for the fake catalog. */
  systemEntities: Entity[];
  slices: DesiredSlice[];
  /**
   * The bench's "now" for history reads: half past an hour, so up-time
   * reads 719 whole hours, one prorated hour and 30 minutes of raw runs
   * (aggregation runs every 10 minutes and aggregates hours 10 minutes
   * after they end, so the raw part is 10 to 80 minutes in production).
   */
  now: number;
  /** `aggregated_until`: the hour `now` falls in. */
  aggregatedUntil: number;
  /** Seeding steps and their ms. */
  steps: Array<{ step: string; ms: number; rows: number }>;
  /** Table and index sizes after seeding. */
  sizes: string;
}

/** The ref of the i-th synthetic system (lower case, as stored). */
export function systemRefAt(index: number): string {
  return `system:default/system-${index}`;
}

function statusAt(index: number): 'healthy' | 'degraded' | 'unhealthy' {
  if (index % 211 === 7) return 'unhealthy';
  if (index % 89 === 3) return 'degraded';
  return 'healthy';
}

/** Slices that never ran have no state; about one in 500. */
function hasRun(index: number): boolean {
  return index % 503 !== 11;
}

const OUTCOME_OF = {
  healthy: 'pass',
  degraded: 'degraded',
  unhealthy: 'fail',
} as const;

const REASON_OF = {
  healthy: undefined,
  degraded: '[RESPONSE_TIME] < 500 (got 812)',
  unhealthy: '[STATUS] == 200 (got 503)',
} as const;

function sliceStateOf(
  slice: DesiredSlice,
  index: number,
  now: number,
): StoredSliceState {
  const status = statusAt(index);
  const lastScheduledAt =
    Math.floor((now - RUN_INTERVAL_MS) / RUN_INTERVAL_MS) * RUN_INTERVAL_MS +
    (index % 30) * 1_000;
  return {
    sliceId: slice.id,
    checkId: slice.checkId,
    systemRef: slice.systemRef,
    environment: slice.environment,
    status,
    consecutiveFailures: status === 'unhealthy' ? 3 : 0,
    consecutiveSuccesses: status === 'unhealthy' ? 0 : 40 + (index % 500),
    since: now - (1 + (index % 240)) * HOUR_MS,
    lastOutcome: OUTCOME_OF[status],
    lastScheduledAt,
    lastRunAt: lastScheduledAt + 3,
    lastDurationMs: 20 + (index % 180),
    lastReason: REASON_OF[status],
  };
}

/** The synthetic catalog's desired slices, as the reconciler derives them. */
function deriveSlices(systemCount: number) {
  const entities = syntheticCatalog(systemCount);
  const checks: ReconcilableCheck[] = syntheticChecks(systemCount).map(
    entity => {
      const spec = entity.spec as unknown as HealthCheckSpec;
      const id = stringifyEntityRef(entity);
      return {
        id,
        source: { kind: 'gitops', entityRef: id },
        spec,
        ...resolveCheckTiming(spec),
      };
    },
  );
  const members = groupMembersBySystem(entities);
  const systemEntities = entities.filter(e => e.kind === 'System');
  const systems = systemEntities.map((system): SystemEnvironments => {
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
  const slices = desiredSlices({ checks, systems }).slices.sort((a, b) =>
    a.id < b.id ? -1 : 1,
  );
  return { systemEntities, slices };
}

/**
 * Runs `fill` with the table's indexes (its primary key included) dropped,
 * then builds them again from their own definitions: a bulk load in time
 * order is then a heap append plus one sorted build per index, instead of
 * a random B-tree insert per row and index. The indexes end up identical
 * in definition, only more compact than ones grown row by row.
 */
async function withoutIndexes<T>(
  knex: Knex,
  table: string,
  fill: () => Promise<T>,
): Promise<T> {
  const primary = (
    await knex.raw(
      `SELECT conname AS name, pg_get_constraintdef(oid) AS def
       FROM pg_constraint WHERE conrelid = ?::regclass AND contype = 'p'`,
      [table],
    )
  ).rows as Array<{ name: string; def: string }>;
  const indexes = (
    await knex.raw(
      `SELECT indexname AS name, indexdef AS def FROM pg_indexes
       WHERE tablename = ? AND schemaname = current_schema()
         AND indexname <> ALL(?::text[])`,
      [table, primary.map(p => p.name)],
    )
  ).rows as Array<{ name: string; def: string }>;
  for (const p of primary) {
    await knex.raw('ALTER TABLE ?? DROP CONSTRAINT ??', [table, p.name]);
  }
  for (const index of indexes) {
    await knex.raw('DROP INDEX ??', [index.name]);
  }
  const result = await fill();
  await knex.transaction(async tx => {
    await tx.raw("SET LOCAL maintenance_work_mem = '512MB'");
    for (const p of primary) {
      await tx.raw(`ALTER TABLE ?? ADD CONSTRAINT ?? ${p.def}`, [
        table,
        p.name,
      ]);
    }
    for (const index of indexes) {
      await tx.raw(index.def);
    }
  });
  return result;
}

async function insertJson(
  knex: Knex,
  table: string,
  rows: ReadonlyArray<Record<string, unknown>>,
): Promise<void> {
  for (let at = 0; at < rows.length; at += JSON_CHUNK) {
    await knex.raw(
      `INSERT INTO ${table}
       SELECT * FROM json_populate_recordset(NULL::${table}, ?::json)`,
      [JSON.stringify(rows.slice(at, at + JSON_CHUNK))],
    );
  }
}

/** Seeds the scratch database; `log` gets one line per step. */
export async function seedFixture(
  knex: Knex,
  options: {
    systems: number;
    historySystems: number;
    log: (line: string) => void;
  },
): Promise<Fixture> {
  const steps: Fixture['steps'] = [];
  const step = async <T>(
    name: string,
    fn: () => Promise<T> | T,
    rows: (result: T) => number,
  ): Promise<T> => {
    const start = performance.now();
    const result = await fn();
    const ms = performance.now() - start;
    const count = rows(result);
    steps.push({ step: name, ms, rows: count });
    options.log(
      `  seeded ${name}: ${count.toLocaleString('en-US')} rows in ${(
        ms / 1000
      ).toFixed(1)} s`,
    );
    return result;
  };

  const aggregatedUntil = hourStartOf(Date.now());
  const now = aggregatedUntil + 30 * 60_000;
  const { systemEntities, slices } = await step(
    'catalog and desired slices (in memory)',
    () => deriveSlices(options.systems),
    r => r.slices.length,
  );

  await step(
    'healthcheck_slices (DatabaseSliceStore.applyChanges)',
    async () => {
      const store = new DatabaseSliceStore(knex, () => now - DAY_MS);
      await store.applyChanges({
        write: slices.map(slice => ({ paused: false as const, slice })),
        remove: [],
      });
      return slices.length;
    },
    n => n,
  );

  const states = new DatabaseStateStore(knex);
  const stateBySlice = new Map<string, StoredSliceState>();
  slices.forEach((slice, index) => {
    if (hasRun(index)) {
      stateBySlice.set(slice.id, sliceStateOf(slice, index, now));
    }
  });
  await step(
    'healthcheck_slice_states (DatabaseStateStore.writeSliceStates)',
    async () => {
      await states.writeSliceStates([...stateBySlice.values()]);
      return stateBySlice.size;
    },
    n => n,
  );

  await step(
    'healthcheck_environment_states and healthcheck_rollups (computeRollup)',
    async () => {
      const bySystem = new Map<string, EnvironmentSlice[]>();
      for (const slice of slices) {
        const list = bySystem.get(slice.systemRef) ?? [];
        list.push({
          sliceId: slice.id,
          checkId: slice.checkId,
          systemRef: slice.systemRef,
          environment: slice.environment,
          paused: false,
          state: stateBySlice.get(slice.id),
        });
        bySystem.set(slice.systemRef, list);
      }
      const environmentRows: Array<Record<string, unknown>> = [];
      const rollupRows: Array<Record<string, unknown>> = [];
      for (const [systemRef, systemSlices] of bySystem) {
        const since = new Map<
          string,
          { status: HealthStatus; since: number }
        >();
        for (const environment of new Set(
          systemSlices.map(s => s.environment),
        )) {
          const verdict = environmentVerdict(
            systemSlices.filter(s => s.environment === environment),
          );
          const at = now - 3 * DAY_MS;
          since.set(environment, { status: verdict.status, since: at });
          environmentRows.push({
            system_ref: systemRef,
            environment,
            status: verdict.status,
            since: at,
          });
        }
        const rollup = computeRollup({
          systemRef,
          slices: systemSlices,
          environmentSince: since,
          upstream: [],
          now,
        });
        rollupRows.push({
          system_ref: systemRef,
          status: rollup.status,
          rollup: JSON.stringify(rollup),
          since: Date.parse(rollup.since),
          computed_at: now,
        });
      }
      await insertJson(knex, 'healthcheck_environment_states', environmentRows);
      await insertJson(knex, 'healthcheck_rollups', rollupRows);
      return environmentRows.length + rollupRows.length;
    },
    n => n,
  );

  const historyRefs = Array.from(
    { length: Math.min(options.historySystems, options.systems) },
    (_, i) => systemRefAt(i),
  );
  const historySlices = `(SELECT id, system_ref, environment,
        abs(hashtext(id)) % 1000000 AS k FROM healthcheck_slices
      WHERE system_ref = ANY(?::text[])) AS s`;
  const firstHour = aggregatedUntil - HISTORY_HOURS * HOUR_MS;
  await step(
    `healthcheck_run_hours (${HISTORY_HOURS} hours x ${historyRefs.length.toLocaleString(
      'en-US',
    )} systems' slices, generate_series)`,
    () =>
      withoutIndexes(knex, 'healthcheck_run_hours', async () => {
        let rows = 0;
        // A day per statement, hours in time order as aggregation writes them.
        for (let day = firstHour; day < aggregatedUntil; day += DAY_MS) {
          const last = Math.min(day + DAY_MS, aggregatedUntil) - HOUR_MS;
          const result = await knex.raw(
            `INSERT INTO healthcheck_run_hours (slice_id, hour_start, system_ref,
             environment, run_count, failure_count, latency_p50_ms,
             latency_p95_ms, latency_p99_ms, up_seconds, down_seconds,
             unknown_seconds, paused_seconds, end_status)
           SELECT s.id, h.hour_start, s.system_ref, s.environment, 120,
             CASE WHEN (s.k + h.n) % 151 = 0 THEN 4 ELSE 0 END,
             30 + (s.k + h.n) % 40, 90 + (s.k + 3 * h.n) % 120,
             160 + (7 * s.k + h.n) % 400,
             CASE WHEN (s.k + h.n) % 151 = 0 THEN 3480 ELSE 3600 END,
             CASE WHEN (s.k + h.n) % 151 = 0 THEN 120 ELSE 0 END,
             0, 0,
             CASE WHEN (s.k + h.n) % 151 = 0 THEN 'unhealthy' ELSE 'healthy' END
           FROM generate_series(?::bigint, ?::bigint, ?::bigint)
             WITH ORDINALITY AS h(hour_start, n)
           CROSS JOIN ${historySlices}
           ORDER BY h.hour_start, s.id`,
            [day, last, HOUR_MS, historyRefs],
          );
          rows += result.rowCount ?? 0;
        }
        await knex('healthcheck_history_state').insert({
          name: 'aggregated_until',
          value: aggregatedUntil,
        });
        return rows;
      }),
    n => n,
  );

  // The raw runs an up-time read of the last hour needs: from 30 minutes
  // before the hour (the 10-minute look-back and the run before it) to now.
  await step(
    `healthcheck_runs (every 30 s from ${
      (aggregatedUntil - 30 * 60_000 - firstHour) / HOUR_MS
    } h after the first hour to now, history systems)`,
    () =>
      withoutIndexes(knex, 'healthcheck_runs', async () => {
        const conditions = JSON.stringify([
          {
            condition: '[STATUS] == 200',
            severity: 'unhealthy',
            success: true,
            display: '[STATUS] == 200',
          },
        ]);
        const result = await knex.raw(
          `INSERT INTO healthcheck_runs (slice_id, scheduled_at, claimed_by,
           claimed_at, started_at, duration_ms, outcome, status, conditions,
           lane, timeout_ms)
         SELECT s.id, t.at + s.k % 30000, 'bench-seed', t.at + s.k % 30000,
           t.at + s.k % 30000 + 3, 20 + (s.k + t.n) % 180, 'pass', 'healthy',
           ?, 'normal', 5000
         FROM generate_series(?::bigint, ?::bigint, ?::bigint)
           WITH ORDINALITY AS t(at, n)
         CROSS JOIN ${historySlices}
         WHERE t.at + s.k % 30000 < ?
         ORDER BY 2, 1`,
          [
            conditions,
            aggregatedUntil - 30 * 60_000,
            now,
            RUN_INTERVAL_MS,
            historyRefs,
            now,
          ],
        );
        return result.rowCount ?? 0;
      }),
    n => n,
  );

  // Autovacuum would get there on its own (insert thresholds); the bench
  // does not wait for it: statistics and the visibility map, now.
  await step(
    'VACUUM (ANALYZE) of the database',
    async () => {
      await knex.raw('VACUUM (ANALYZE)');
      return 0;
    },
    () => 0,
  );

  const sizeRows = (
    await knex.raw(
      `SELECT relname AS name, pg_total_relation_size(c.oid) AS total,
              pg_relation_size(c.oid) AS heap
       FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = current_schema() AND c.relkind = 'r'
         AND relname IN ('healthcheck_run_hours', 'healthcheck_runs',
                         'healthcheck_slices', 'healthcheck_slice_states')
       ORDER BY total DESC`,
    )
  ).rows as Array<{ name: string; total: string; heap: string }>;
  const mb = (bytes: string) => `${(Number(bytes) / 2 ** 20).toFixed(0)} MB`;
  const sizes = sizeRows
    .map(r => `${r.name} ${mb(r.total)} (heap ${mb(r.heap)})`)
    .join(', ');

  return {
    systems: options.systems,
    historySystems: historyRefs.length,
    systemEntities,
    slices,
    now,
    aggregatedUntil,
    steps,
    sizes,
  };
}
