import type { ResolvedServiceLevelObjective } from '@vigil/plugin-healthcheck-common';
import { Knex } from 'knex';
import { HOUR_MS, hourStartOf } from '../history/aggregateRuns';
import { RUN_START_LAG_MS } from '../history/historyDatabase';
import type { HistoryRun } from '../history/timeWeightedUptime';
import type { MaintenanceCalendar } from '../maintenance/MaintenanceCalendar';
import { sloWindow } from './computeSlo';
import { Interval, mergeIntervals } from './intervals';
import { SloHour, SloSliceHistory } from './measureIndicator';

const SLICES_TABLE = 'healthcheck_slices';
const HOURS_TABLE = 'healthcheck_run_hours';
const RUNS_TABLE = 'healthcheck_runs';
const STATE_TABLE = 'healthcheck_history_state';

/** Ids per `IN (...)` list, well below both databases' parameter limits. */
const ID_CHUNK_SIZE = 500;

/**
 * The slices an objective covers over a time range: all of a system's in
 * one environment, or those of one check.
 *
 * @internal
 */
export interface SloHistoryQuery {
  /** Canonical (lower-case) system ref. */
  readonly systemRef: string;
  readonly environment: string;
  /** Only this check's slice (compared lower-case); all when left out. */
  readonly checkId?: string;
  readonly from: number;
  readonly to: number;
  /**
   * Time left out for every slice, besides each slice's own maintenance
   * (read from the reader's calendar).
   */
  readonly excluded?: readonly Interval[];
}

/**
 * Reads what the SLO math needs of the slices of an objective: the hourly
 * aggregates of the range, and raw runs only for the hours not aggregated
 * yet and for the hours that excluded time covers in part while their runs
 * are still kept (older ones count in proportion). A 30-day objective is
 * then about 720 hour rows and an hour of runs per slice, not 30 days of
 * runs. Reads only; the history store owns these tables.
 *
 * @internal
 */
export class SloHistoryReader {
  readonly #db: Knex;
  readonly #rawRetentionMs: number;
  readonly #maintenance?: Pick<MaintenanceCalendar, 'spansBetween'>;

  constructor(
    db: Knex,
    options: {
      rawRetentionMs: number;
      /** Where each slice's maintenance comes from, left out like pauses. */
      maintenance?: Pick<MaintenanceCalendar, 'spansBetween'>;
    },
  ) {
    this.#db = db;
    this.#rawRetentionMs = options.rawRetentionMs;
    this.#maintenance = options.maintenance;
  }

  async read(
    query: SloHistoryQuery,
    now: number,
  ): Promise<Map<string, SloSliceHistory>> {
    const slices = await this.#slices(query);
    if (slices.length === 0) {
      return new Map();
    }
    const sliceIds = slices.map(slice => slice.id);
    const excludedOf = await this.#excludedOf(query);
    const excluded = new Map(
      slices.map(slice => [slice.id, excludedOf(slice.checkId)]),
    );
    const aggregatedUntil = await this.#aggregatedUntil();
    // Raw runs are read for the hours any slice's excluded time cuts.
    const rawRanges = rawRangesFor(
      { ...query, excluded: [...excluded.values()].flat() },
      { aggregatedUntil, rawKeptFrom: now - this.#rawRetentionMs },
    );
    const hours = await this.#hours(query, sliceIds, aggregatedUntil);
    const runs = await this.#runs(sliceIds, rawRanges);
    return new Map(
      sliceIds.map(id => [
        id,
        {
          hours: hours.get(id) ?? [],
          rawRanges,
          runs: runs.get(id) ?? [],
          excluded: excluded.get(id) ?? [],
        },
      ]),
    );
  }

  /** Each check's excluded time: the query's, and its maintenance. */
  async #excludedOf(
    query: SloHistoryQuery,
  ): Promise<(checkId: string) => Interval[]> {
    const maintenanceOf = await this.#maintenance?.spansBetween(
      { systemRef: query.systemRef, environment: query.environment },
      query.from,
      query.to,
    );
    return checkId =>
      mergeIntervals([
        ...(query.excluded ?? []),
        ...(maintenanceOf?.(checkId) ?? []).map(span => ({
          from: span.startMs,
          to: span.endMs,
        })),
      ]);
  }

  async #slices(
    query: SloHistoryQuery,
  ): Promise<Array<{ id: string; checkId: string }>> {
    const rows: Array<{ id: string; check_id: string }> = await this.#db(
      SLICES_TABLE,
    )
      .where({ system_ref: query.systemRef, environment: query.environment })
      .select('id', 'check_id');
    const checkId = query.checkId?.toLowerCase();
    return rows
      .filter(row => !checkId || row.check_id.toLowerCase() === checkId)
      .map(row => ({ id: row.id, checkId: row.check_id }))
      .sort((a, b) => Number(a.id > b.id) - Number(a.id < b.id));
  }

  async #aggregatedUntil(): Promise<number> {
    const row = await this.#db(STATE_TABLE)
      .where({ name: 'aggregated_until' })
      .first('value');
    return row ? Number(row.value) : 0;
  }

  async #hours(
    query: SloHistoryQuery,
    sliceIds: readonly string[],
    aggregatedUntil: number,
  ): Promise<Map<string, SloHour[]>> {
    const wanted = new Set(sliceIds);
    const rows = await this.#db(HOURS_TABLE)
      .where({ system_ref: query.systemRef, environment: query.environment })
      .andWhere('hour_start', '>=', hourStartOf(query.from))
      .andWhere('hour_start', '<', Math.min(query.to, aggregatedUntil))
      .select(
        'slice_id',
        'hour_start',
        'up_seconds',
        'down_seconds',
        'run_count',
        'failure_count',
        'latency_p50_ms',
        'latency_p95_ms',
        'latency_p99_ms',
        'end_status',
      );
    const bySlice = new Map<string, SloHour[]>();
    for (const row of rows) {
      if (!wanted.has(row.slice_id)) {
        continue;
      }
      const list = bySlice.get(row.slice_id) ?? [];
      list.push({
        hourStart: Number(row.hour_start),
        upSeconds: Number(row.up_seconds),
        downSeconds: Number(row.down_seconds),
        runCount: Number(row.run_count),
        failureCount: Number(row.failure_count),
        latencyP50Ms: row.latency_p50_ms,
        latencyP95Ms: row.latency_p95_ms,
        latencyP99Ms: row.latency_p99_ms,
        endStatus: row.end_status,
      });
      bySlice.set(row.slice_id, list);
    }
    return bySlice;
  }

  async #runs(
    sliceIds: readonly string[],
    rawRanges: readonly Interval[],
  ): Promise<Map<string, HistoryRun[]>> {
    const bySlice = new Map<string, HistoryRun[]>();
    for (const range of rawRanges) {
      for (let at = 0; at < sliceIds.length; at += ID_CHUNK_SIZE) {
        // Runs are found by tick time (the key) but count from their start,
        // which may lag the tick; the look-back also finds the run in force
        // at the range's start when its hour has no aggregate yet.
        const rows = await this.#db(RUNS_TABLE)
          .whereIn('slice_id', sliceIds.slice(at, at + ID_CHUNK_SIZE))
          .andWhere('scheduled_at', '>=', range.from - RUN_START_LAG_MS)
          .andWhere('scheduled_at', '<', range.to)
          .select('slice_id', 'started_at', 'duration_ms', 'outcome', 'status');
        for (const row of rows) {
          const list = bySlice.get(row.slice_id) ?? [];
          list.push({
            startedAt: Number(row.started_at),
            durationMs:
              row.duration_ms === null ? null : Number(row.duration_ms),
            outcome: row.outcome,
            status: row.status,
          });
          bySlice.set(row.slice_id, list);
        }
      }
    }
    return bySlice;
  }
}

/**
 * Where an objective's slices are read from raw runs: from `aggregatedUntil`
 * to the end of the range, and every hour excluded time covers in part
 * whose runs are still kept. Whole hours, merged.
 *
 * @internal
 */
export function rawRangesFor(
  query: Pick<SloHistoryQuery, 'from' | 'to' | 'excluded'>,
  kept: { aggregatedUntil: number; rawKeptFrom: number },
): Interval[] {
  const ceilHour = (time: number) => Math.ceil(time / HOUR_MS) * HOUR_MS;
  const ranges: Interval[] = [];
  const recentFrom = Math.max(kept.aggregatedUntil, hourStartOf(query.from));
  if (query.to > recentFrom) {
    ranges.push({ from: recentFrom, to: ceilHour(query.to) });
  }
  for (const excluded of query.excluded ?? []) {
    for (const edge of [excluded.from, excluded.to]) {
      const hour = hourStartOf(edge);
      const partial = edge % HOUR_MS !== 0;
      if (
        partial &&
        hour >= kept.rawKeptFrom &&
        hour + HOUR_MS > query.from &&
        hour < query.to
      ) {
        ranges.push({ from: hour, to: hour + HOUR_MS });
      }
    }
  }
  return mergeIntervals(ranges);
}

/**
 * The histories of an objective's slices over its window up to `now`: the
 * one read the route, the alerts and the summaries each make.
 *
 * @internal
 */
export async function readObjectiveSlices(
  reader: Pick<SloHistoryReader, 'read'>,
  objective: ResolvedServiceLevelObjective,
  now: number,
): Promise<SloSliceHistory[]> {
  const window = sloWindow(objective.window, now);
  const histories = await reader.read(
    {
      systemRef: objective.systemRef,
      environment: objective.environment,
      checkId: objective.checkRef,
      from: window.from,
      to: now,
    },
    now,
  );
  return [...histories.values()];
}
