import type { AggregationResult } from '../model';
import {
  HOUR_MS,
  hourStartOf,
  HourSummary,
  summarizeHours,
} from './aggregateRuns';
import {
  HistoryDatabase,
  HOURS_TABLE,
  requireFinite,
  RUN_START_LAG_MS,
  RUNS_TABLE,
  SliceRow,
  SLICES_TABLE,
} from './historyDatabase';
import {
  batchesByExpectedRuns,
  sliceEnd,
  sliceHistories,
} from './sliceHistories';

/** Hours aggregated per pass; progress is saved after each pass. */
const HOURS_PER_PASS = 6;

/** Slices read per page when aggregating. */
const SLICE_PAGE_SIZE = 1_000;

/** Hour rows per upsert: 15 columns, 7,500 parameters. */
const WRITE_CHUNK_SIZE = 500;

/** Rows per delete statement, so pruning never holds locks for long. */
const DELETE_CHUNK_SIZE = 5_000;

type HourRow = {
  slice_id: string;
  hour_start: number;
  system_ref: string;
  environment: string;
  run_count: number;
  failure_count: number;
  latency_p50_ms: number | null;
  latency_p95_ms: number | null;
  latency_p99_ms: number | null;
  up_seconds: number;
  down_seconds: number;
  unknown_seconds: number;
  paused_seconds: number;
  end_status: string | null;
};

/**
 * The write side of the history: turns raw runs into hour aggregates
 * (`healthcheck_run_hours`, progress in `healthcheck_history_state`), and
 * prunes runs and hours past their retention. See
 * {@link HistoryStore.aggregateHours}, {@link HistoryStore.pruneRuns} and
 * {@link HistoryStore.pruneHours} for the contract.
 */
export class HistoryAggregator {
  readonly #history: HistoryDatabase;

  constructor(history: HistoryDatabase) {
    this.#history = history;
  }

  // --- Aggregation -------------------------------------------------------

  async aggregateHours(
    untilHourStart: number,
    options: { from?: number; signal?: AbortSignal } = {},
  ): Promise<AggregationResult> {
    requireFinite('untilHourStart', untilHourStart);
    const limit = Math.min(
      hourStartOf(untilHourStart),
      hourStartOf(this.#history.now()),
    );
    const saved = await this.#history.aggregatedUntil();
    let start: number | undefined;
    if (options.from !== undefined) {
      requireFinite('from', options.from);
      start = hourStartOf(options.from);
    } else if (saved !== undefined) {
      start = saved;
    } else {
      const first = await this.#firstRunAt();
      if (first === undefined) {
        // Nothing ran yet: every hour before the limit is trivially done.
        await this.#history.saveAggregatedUntil(limit, saved);
        return { hours: 0, rows: 0, aggregatedUntil: limit };
      }
      start = hourStartOf(first);
    }

    let hours = 0;
    let rows = 0;
    let progress = saved;
    while (start < limit) {
      options.signal?.throwIfAborted();
      const end = Math.min(limit, start + HOURS_PER_PASS * HOUR_MS);
      rows += await this.#aggregateWindow(start, end, options.signal);
      hours += (end - start) / HOUR_MS;
      progress = await this.#history.saveAggregatedUntil(end, progress);
      start = end;
    }
    return { hours, rows, aggregatedUntil: progress };
  }

  /** Aggregates the complete hours `[from, to)` of every slice. */
  async #aggregateWindow(
    from: number,
    to: number,
    signal?: AbortSignal,
  ): Promise<number> {
    let written = 0;
    // Every slice id sorts after the empty one.
    let after = '';
    for (;;) {
      signal?.throwIfAborted();
      const page = await this.#history
        .select<SliceRow>(SLICES_TABLE)
        .where('id', '>', after)
        .andWhere(query =>
          query.where('removed', false).orWhere('updated_at', '>=', from),
        )
        .orderBy('id')
        .limit(SLICE_PAGE_SIZE)
        .select<SliceRow[]>(
          'id',
          'check_id',
          'system_ref',
          'environment',
          'removed',
          'updated_at',
          'interval_ms',
        );
      if (page.length === 0) {
        return written;
      }
      after = page[page.length - 1].id;
      for (const batch of batchesByExpectedRuns(page, to - from)) {
        const histories = await sliceHistories(
          this.#history,
          batch.map(slice => slice.id),
          from,
          to,
        );
        const rows: HourRow[] = [];
        for (const slice of batch) {
          const history = histories.get(slice.id)!;
          for (const hour of summarizeHours({
            from,
            to: sliceEnd(slice, to),
            statusAtStart: history.statusAtStart,
            runs: history.runs,
          })) {
            // A slice with no run and no status so far has no history yet.
            if (hour.runCount > 0 || hour.statusAtEnd !== undefined) {
              rows.push(toHourRow(slice, hour));
            }
          }
        }
        for (let at = 0; at < rows.length; at += WRITE_CHUNK_SIZE) {
          await this.#history
            .db(HOURS_TABLE)
            .insert(rows.slice(at, at + WRITE_CHUNK_SIZE))
            .onConflict(['slice_id', 'hour_start'])
            .merge();
        }
        written += rows.length;
      }
      if (page.length < SLICE_PAGE_SIZE) {
        return written;
      }
    }
  }

  async #firstRunAt(): Promise<number | undefined> {
    const row = await this.#history
      .select(RUNS_TABLE)
      .whereNotNull('started_at')
      .min<{ first: number | string | null }>('scheduled_at as first')
      .first();
    return row?.first === null || row?.first === undefined
      ? undefined
      : Number(row.first);
  }

  // --- Retention ---------------------------------------------------------

  async pruneRuns(before: number): Promise<number> {
    requireFinite('before', before);
    const aggregatedUntil = await this.#history.aggregatedUntil();
    if (aggregatedUntil === undefined) {
      return 0;
    }
    // Runs of hours not aggregated yet stay, whatever the retention says.
    const limit = Math.min(
      Math.floor(before),
      aggregatedUntil - RUN_START_LAG_MS,
    );
    return await this.#deleteBelow(RUNS_TABLE, 'scheduled_at', limit);
  }

  async pruneHours(before: number): Promise<number> {
    requireFinite('before', before);
    return await this.#deleteBelow(
      HOURS_TABLE,
      'hour_start',
      Math.floor(before),
    );
  }

  /**
   * Deletes the rows of a table keyed by (slice_id, `column`) whose
   * `column` is below `limit`, oldest first, one statement of at most
   * {@link DELETE_CHUNK_SIZE} rows at a time (found through the index on
   * `column`): each statement is short, and writers in between never wait
   * long.
   */
  async #deleteBelow(
    table: string,
    column: string,
    limit: number,
  ): Promise<number> {
    const db = this.#history.db;
    const key = ['slice_id', column];
    let deleted = 0;
    for (;;) {
      const count = await db(table)
        .whereIn(
          key,
          db(table)
            .select(key)
            .where(column, '<', limit)
            .orderBy(column)
            .limit(DELETE_CHUNK_SIZE),
        )
        .delete();
      deleted += count;
      if (count < DELETE_CHUNK_SIZE) {
        return deleted;
      }
    }
  }
}

function toHourRow(slice: SliceRow, hour: HourSummary): HourRow {
  const ms = (value: number | undefined) =>
    value === undefined ? null : Math.round(value);
  return {
    slice_id: slice.id,
    hour_start: hour.hourStart,
    system_ref: slice.system_ref,
    environment: slice.environment,
    run_count: hour.runCount,
    failure_count: hour.failureCount,
    latency_p50_ms: ms(hour.latencyP50Ms),
    latency_p95_ms: ms(hour.latencyP95Ms),
    latency_p99_ms: ms(hour.latencyP99Ms),
    up_seconds: hour.upSeconds,
    down_seconds: hour.downSeconds,
    unknown_seconds: hour.unknownSeconds,
    paused_seconds: hour.pausedSeconds,
    end_status: hour.statusAtEnd ?? null,
  };
}
