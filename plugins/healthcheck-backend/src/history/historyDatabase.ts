import { InputError } from '@backstage/errors';
import { Knex } from 'knex';
import { Engine, engineOf } from '../database/engine';

/*
 * The history's tables and the statements on them that every part of the
 * history store shares: reads bounded by a statement timeout, and the mark
 * up to which hours are aggregated.
 */

export const RUNS_TABLE = 'healthcheck_runs';
export const HOURS_TABLE = 'healthcheck_run_hours';
export const SLICES_TABLE = 'healthcheck_slices';
const STATE_TABLE = 'healthcheck_history_state';
const AGGREGATED_UNTIL = 'aggregated_until';

/**
 * How long after its tick time a run may start: runs are found by their
 * tick time (the primary key), but count from their start. A run whose
 * start lags its tick by more (only a slice's very first probe between grid
 * points can) is still counted, through the carried-over run.
 */
export const RUN_START_LAG_MS = 10 * 60_000;

/** Ids per `IN (...)` list: well below both databases' parameter limits. */
export const ID_CHUNK_SIZE = 500;

/**
 * How long one statement reading the history may run. A read waiting on a
 * lock (another instance migrating the tables) or on a swamped database
 * would otherwise hold its connection, and a badge's turn to read, for as
 * long as the database takes; past this PostgreSQL cancels it and the
 * caller gets a 503.
 * @internal
 */
export const HISTORY_STATEMENT_TIMEOUT_MS = 30_000;

export type SliceRow = {
  id: string;
  check_id: string;
  system_ref: string;
  environment: string;
  removed: boolean | number;
  updated_at: number | string;
  interval_ms: number | string;
};

export type RunRow = {
  slice_id: string;
  scheduled_at: number | string;
  started_at: number | string;
  duration_ms: number | string | null;
  outcome: string | null;
  status: string | null;
};

export const RUN_COLUMNS = [
  'slice_id',
  'scheduled_at',
  'started_at',
  'duration_ms',
  'outcome',
  'status',
];

/** The history's tables on one database, with a clock. */
export class HistoryDatabase {
  readonly db: Knex;
  readonly engine: Engine;
  readonly now: () => number;
  readonly #statementTimeoutMs: number;

  constructor(
    db: Knex,
    now: () => number,
    options: { statementTimeoutMs?: number } = {},
  ) {
    this.db = db;
    this.engine = engineOf(db);
    this.now = now;
    this.#statementTimeoutMs =
      options.statementTimeoutMs ?? HISTORY_STATEMENT_TIMEOUT_MS;
  }

  /** A read of a table, under {@link HISTORY_STATEMENT_TIMEOUT_MS}. */
  select<TRecord extends {} = any>(table: string) {
    return this.#bounded(this.db<TRecord>(table));
  }

  /** A raw read, under {@link HISTORY_STATEMENT_TIMEOUT_MS}. */
  selectRaw(sql: string, bindings: readonly Knex.RawBinding[]) {
    return this.#bounded(this.db.raw(sql, bindings));
  }

  #bounded<T extends { timeout(ms: number, options: { cancel: boolean }): T }>(
    query: T,
  ): T {
    // Only PostgreSQL can stop a statement; SQLite's run to the end in the
    // same thread, so their timer never fires first.
    return query.timeout(this.#statementTimeoutMs, {
      cancel: this.engine === 'postgres',
    });
  }

  /** Every hour before this is aggregated (epoch ms); undefined if none. */
  async aggregatedUntil(): Promise<number | undefined> {
    const row = await this.select(STATE_TABLE)
      .where('name', AGGREGATED_UNTIL)
      .first<{ value: number | string } | undefined>('value');
    return row ? Number(row.value) : undefined;
  }

  /** Moves the progress mark forward (never back); returns the new mark. */
  async saveAggregatedUntil(
    value: number,
    current: number | undefined,
  ): Promise<number> {
    if (current !== undefined && current >= value) {
      return current;
    }
    await this.db(STATE_TABLE)
      .insert({ name: AGGREGATED_UNTIL, value })
      .onConflict('name')
      .merge(['value']);
    return value;
  }
}

export function requireFinite(name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InputError(`${name} must be a finite number, got ${value}`);
  }
}
