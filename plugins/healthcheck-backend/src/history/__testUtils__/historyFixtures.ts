import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { Knex } from 'knex';
import { insertPauseMarkers } from '../../claims/DatabaseClaimStore';
import { DatabaseHistoryStore } from '../DatabaseHistoryStore';

/** Midnight UTC, 1 November 2026; tests speak in hours and minutes of it. */
export const DAY = Date.UTC(2026, 10, 1);
export const HOUR = 3_600_000;
export const MINUTE = 60_000;
/** Epoch ms of `h`:`m` on that day. */
export const t = (h: number, m = 0) => DAY + h * HOUR + m * MINUTE;

export const PAYMENTS = 'system:default/payments';

export interface SliceSeed {
  id: string;
  systemRef?: string;
  environment?: string;
  intervalMs?: number;
  removedAt?: number;
}

export interface RunSeed {
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

/** A history store on a fresh database, with a clock the test moves. */
export async function setUpHistory(
  databases: TestDatabases,
  databaseId: TestDatabaseId,
) {
  const knex = await databases.init(databaseId);
  const clock = { now: t(0) };
  const store = await DatabaseHistoryStore.create({
    database: mockServices.database({ knex, migrations: { skip: false } }),
    now: () => clock.now,
  });
  return { knex, store, clock };
}

export async function addSlices(knex: Knex, slices: SliceSeed[]) {
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

export async function addRuns(knex: Knex, runs: RunSeed[]) {
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

export async function hourRows(knex: Knex) {
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

export async function countRuns(knex: Knex) {
  const row = await knex('healthcheck_runs').count({ n: '*' }).first();
  return Number(row?.n);
}

/**
 * Payments with three slices (production api healthy, production db down
 * from 11:00, staging paused from 10:00) and billing, always down.
 */
export async function seedPaymentsSystem(
  databases: TestDatabases,
  databaseId: TestDatabaseId,
) {
  const setup = await setUpHistory(databases, databaseId);
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
