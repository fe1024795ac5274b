import { rowsOf } from '../database/engine';
import { HOUR_MS } from './aggregateRuns';
import {
  HistoryDatabase,
  HOURS_TABLE,
  ID_CHUNK_SIZE,
  RUN_COLUMNS,
  RUN_START_LAG_MS,
  RUNS_TABLE,
  RunRow,
  SliceRow,
} from './historyDatabase';
import { HistoryRun } from './timeWeightedUptime';

/*
 * Slices' runs around a window, loaded in batches of bounded size: what
 * aggregation and the reads past the aggregated hours both start from.
 */

/** Runs one aggregation batch may load, estimated from slice intervals. */
const RUNS_PER_BATCH = 50_000;

/** A slice's runs around a window and the status carried into it. */
export interface SliceHistory {
  statusAtStart?: string;
  runs: HistoryRun[];
}

/**
 * For each slice: its runs that start before `to` and may matter for
 * `[from, to)` (the last run before the window and every run of it), and
 * the status the previous hour's aggregate ended with, for a slice whose
 * earlier runs are pruned.
 */
export async function sliceHistories(
  history: HistoryDatabase,
  ids: readonly string[],
  from: number,
  to: number,
): Promise<Map<string, SliceHistory>> {
  const histories = new Map<string, SliceHistory>(
    ids.map(id => [id, { runs: [] }]),
  );
  const lookBackTo = from - RUN_START_LAG_MS;
  for (let at = 0; at < ids.length; at += ID_CHUNK_SIZE) {
    const chunk = ids.slice(at, at + ID_CHUNK_SIZE);
    const carried = new Set<string>();
    for (const row of await lastRunsBefore(history, chunk, lookBackTo)) {
      histories.get(row.slice_id)?.runs.push(toHistoryRun(row));
      carried.add(row.slice_id);
    }
    const rows = await history
      .select<RunRow>(RUNS_TABLE)
      .whereIn('slice_id', chunk)
      .andWhere('scheduled_at', '>=', lookBackTo)
      .andWhere('scheduled_at', '<', to)
      .whereNotNull('started_at')
      .select<RunRow[]>(RUN_COLUMNS);
    for (const row of rows) {
      histories.get(row.slice_id)?.runs.push(toHistoryRun(row));
    }
    const uncarried = chunk.filter(id => !carried.has(id));
    if (uncarried.length > 0 && from % HOUR_MS === 0) {
      const ends = await history
        .select(HOURS_TABLE)
        .whereIn('slice_id', uncarried)
        .andWhere('hour_start', from - HOUR_MS)
        .whereNotNull('end_status')
        .select<{ slice_id: string; end_status: string }[]>(
          'slice_id',
          'end_status',
        );
      for (const row of ends) {
        histories.get(row.slice_id)!.statusAtStart = row.end_status;
      }
    }
  }
  return histories;
}

/** The last completed run of each slice whose tick is before `before`. */
async function lastRunsBefore(
  history: HistoryDatabase,
  ids: readonly string[],
  before: number,
): Promise<RunRow[]> {
  if (history.engine === 'postgres') {
    return rowsOf<RunRow>(
      await history.selectRaw(
        `SELECT r.slice_id, r.scheduled_at, r.started_at, r.duration_ms,
                r.outcome, r.status
         FROM unnest(?::text[]) AS s(id)
         CROSS JOIN LATERAL (
           SELECT * FROM healthcheck_runs
           WHERE slice_id = s.id
             AND scheduled_at < CAST(? AS BIGINT)
             AND started_at IS NOT NULL
           ORDER BY scheduled_at DESC
           LIMIT 1
         ) AS r`,
        [[...ids], Math.floor(before)],
      ),
    );
  }
  return rowsOf<RunRow>(
    await history.selectRaw(
      `SELECT r.slice_id, r.scheduled_at, r.started_at, r.duration_ms,
              r.outcome, r.status
       FROM (
         SELECT s.value AS id, (
           SELECT scheduled_at FROM healthcheck_runs
           WHERE slice_id = s.value
             AND scheduled_at < ?
             AND started_at IS NOT NULL
           ORDER BY scheduled_at DESC
           LIMIT 1
         ) AS at
         FROM json_each(?) AS s
       ) AS last
       JOIN healthcheck_runs AS r
         ON r.slice_id = last.id AND r.scheduled_at = last.at`,
      [Math.floor(before), JSON.stringify(ids)],
    ),
  );
}

/** The end of a slice's history within a window: its removal, if removed. */
export function sliceEnd(
  slice: Pick<SliceRow, 'removed' | 'updated_at'>,
  to: number,
) {
  return slice.removed ? Math.min(to, Number(slice.updated_at)) : to;
}

/**
 * Splits slices into batches whose runs over a window of `spanMs` (plus the
 * look-back) add up to about {@link RUNS_PER_BATCH}, going by each slice's
 * interval: memory stays bounded however the intervals mix.
 */
export function batchesByExpectedRuns<T extends Pick<SliceRow, 'interval_ms'>>(
  slices: readonly T[],
  spanMs: number,
): T[][] {
  const batches: T[][] = [];
  let batch: T[] = [];
  let expected = 0;
  for (const slice of slices) {
    const interval = Math.max(1_000, Number(slice.interval_ms) || 1_000);
    const runs = Math.ceil((spanMs + RUN_START_LAG_MS) / interval) + 1;
    if (
      batch.length > 0 &&
      (expected + runs > RUNS_PER_BATCH || batch.length >= ID_CHUNK_SIZE)
    ) {
      batches.push(batch);
      batch = [];
      expected = 0;
    }
    batch.push(slice);
    expected += runs;
  }
  if (batch.length > 0) {
    batches.push(batch);
  }
  return batches;
}

function toHistoryRun(row: RunRow): HistoryRun {
  return {
    startedAt: Number(row.started_at),
    status: row.status,
    outcome: row.outcome,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
  };
}
