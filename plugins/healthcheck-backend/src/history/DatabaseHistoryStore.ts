import { DatabaseService } from '@backstage/backend-plugin-api';
import { migratedClient } from '../database/migrations';
import { InputError } from '@backstage/errors';
import type { JudgedCondition } from '@vigil/plugin-healthcheck-common';
import { Knex } from 'knex';
import { Engine, engineOf, rowsOf } from '../database/engine';
import {
  HOUR_MS,
  hourStartOf,
  HourSummary,
  isProbeRun,
  nearestRankPercentile,
  summarizeHours,
  summarizeWindow,
} from './aggregateRuns';
import { HistoryRun, toHistoryStatus, uptimeRatio } from './timeWeightedUptime';
import type {
  AggregationResult,
  HistoryHour,
  HistoryStore,
  ListRunsQuery,
  ResponseTimeSummary,
  RunPage,
  SliceUptimeQuery,
  StoredRun,
  SystemHistoryQuery,
  UptimeSummary,
} from '../model';

const RUNS_TABLE = 'healthcheck_runs';
const HOURS_TABLE = 'healthcheck_run_hours';
const SLICES_TABLE = 'healthcheck_slices';
const STATE_TABLE = 'healthcheck_history_state';
const AGGREGATED_UNTIL = 'aggregated_until';

/**
 * How long after its tick time a run may start: runs are found by their
 * tick time (the primary key), but count from their start. A run whose
 * start lags its tick by more (only a slice's very first probe between grid
 * points can) is still counted, through the carried-over run.
 */
export const RUN_START_LAG_MS = 10 * 60_000;

/** Hours aggregated per pass; progress is saved after each pass. */
const HOURS_PER_PASS = 6;

/** Slices read per page when aggregating. */
const SLICE_PAGE_SIZE = 1_000;

/** Runs one aggregation batch may load, estimated from slice intervals. */
const RUNS_PER_BATCH = 50_000;

/** Ids per `IN (...)` list: well below both databases' parameter limits. */
const ID_CHUNK_SIZE = 500;

/** Hour rows per upsert: 15 columns, 7,500 parameters. */
const WRITE_CHUNK_SIZE = 500;

/** Rows per delete statement, so pruning never holds locks for long. */
const DELETE_CHUNK_SIZE = 5_000;

/** Runs per page of {@link DatabaseHistoryStore.listRuns}. */
const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1_000;

type SliceRow = {
  id: string;
  check_id: string;
  system_ref: string;
  environment: string;
  removed: boolean | number;
  updated_at: number | string;
  interval_ms: number | string;
};

type RunRow = {
  slice_id: string;
  scheduled_at: number | string;
  started_at: number | string;
  duration_ms: number | string | null;
  outcome: string | null;
  status: string | null;
};

type FullRunRow = RunRow & {
  conditions: string | null;
  error_kind: string | null;
  error_message: string | null;
};

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

/** A slice's runs around a window and the status carried into it. */
interface SliceHistory {
  statusAtStart?: string;
  runs: HistoryRun[];
}

/** Sums over a system's slices; latency sums are weighted by run count. */
interface Totals {
  up: number;
  down: number;
  unknown: number;
  paused: number;
  runCount: number;
  latencyRuns: number;
  p50: number;
  p95: number;
  p99: number;
}

/** The slices of a system, or of one of its environments, a read covers. */
interface SystemScope {
  /** Lower-case. */
  systemRef: string;
  environment?: string;
}

/** Epoch ms, `from` inclusive, `to` exclusive. */
interface TimeRange {
  from: number;
  to: number;
}

/** Whether a read adds up all of a system's slices or each slice apart. */
type Grouping = 'system' | 'slice';

/** The key of the totals of a read grouped by {@link Grouping} `system`. */
const WHOLE_SYSTEM = '';

/** Totals by slice id, or one under {@link WHOLE_SYSTEM}. */
type GroupedTotals = Map<string, Totals>;

/** The aggregated part of a range, and the totals it adds to. */
interface HourPart extends TimeRange {
  into: GroupedTotals;
}

const RUN_COLUMNS = [
  'slice_id',
  'scheduled_at',
  'started_at',
  'duration_ms',
  'outcome',
  'status',
];

/**
 * How long one statement reading the history may run. A read waiting on a
 * lock (another instance migrating the tables) or on a swamped database
 * would otherwise hold its connection, and a badge's turn to read, for as
 * long as the database takes; past this PostgreSQL cancels it and the
 * caller gets a 503.
 * @internal
 */
export const HISTORY_STATEMENT_TIMEOUT_MS = 30_000;

/**
 * {@link HistoryStore} on the plugin's database.
 *
 * Raw runs live in `healthcheck_runs` (written by the claim store) and are
 * read by its primary key (slice_id, scheduled_at) only, so history adds no
 * index and no cost to the write path. Hour aggregates live in
 * `healthcheck_run_hours`, read by (system_ref, environment, hour_start).
 * `healthcheck_history_state` remembers up to which hour aggregation got.
 *
 * @internal
 */
export class DatabaseHistoryStore implements HistoryStore {
  readonly #db: Knex;
  readonly #engine: Engine;
  readonly #now: () => number;
  readonly #statementTimeoutMs: number;

  static async create(options: {
    database: DatabaseService;
    now?: () => number;
  }): Promise<DatabaseHistoryStore> {
    const client = await migratedClient(options.database);
    return new DatabaseHistoryStore(client, options.now);
  }

  constructor(
    db: Knex,
    now: () => number = Date.now,
    options: { statementTimeoutMs?: number } = {},
  ) {
    this.#db = db;
    this.#engine = engineOf(db);
    this.#now = now;
    this.#statementTimeoutMs =
      options.statementTimeoutMs ?? HISTORY_STATEMENT_TIMEOUT_MS;
  }

  // --- Statements --------------------------------------------------------

  /** A read of a table, under {@link HISTORY_STATEMENT_TIMEOUT_MS}. */
  #select<TRecord extends {} = any>(table: string) {
    return this.#bounded(this.#db<TRecord>(table));
  }

  /** A raw read, under {@link HISTORY_STATEMENT_TIMEOUT_MS}. */
  #selectRaw(sql: string, bindings: readonly Knex.RawBinding[]) {
    return this.#bounded(this.#db.raw(sql, bindings));
  }

  #bounded<T extends { timeout(ms: number, options: { cancel: boolean }): T }>(
    query: T,
  ): T {
    // Only PostgreSQL can stop a statement; SQLite's run to the end in the
    // same thread, so their timer never fires first.
    return query.timeout(this.#statementTimeoutMs, {
      cancel: this.#engine === 'postgres',
    });
  }

  // --- Aggregation -------------------------------------------------------

  async aggregateHours(
    untilHourStart: number,
    options: { from?: number; signal?: AbortSignal } = {},
  ): Promise<AggregationResult> {
    requireFinite('untilHourStart', untilHourStart);
    const limit = Math.min(
      hourStartOf(untilHourStart),
      hourStartOf(this.#now()),
    );
    const saved = await this.#aggregatedUntil();
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
        await this.#saveAggregatedUntil(limit, saved);
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
      progress = await this.#saveAggregatedUntil(end, progress);
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
      const page = await this.#select<SliceRow>(SLICES_TABLE)
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
        const histories = await this.#histories(
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
          await this.#db(HOURS_TABLE)
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

  /**
   * For each slice: its runs that start before `to` and may matter for
   * `[from, to)` (the last run before the window and every run of it), and
   * the status the previous hour's aggregate ended with, for a slice whose
   * earlier runs are pruned.
   */
  async #histories(
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
      for (const row of await this.#lastRunsBefore(chunk, lookBackTo)) {
        histories.get(row.slice_id)?.runs.push(toHistoryRun(row));
        carried.add(row.slice_id);
      }
      const rows = await this.#select<RunRow>(RUNS_TABLE)
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
        const ends = await this.#select(HOURS_TABLE)
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
  async #lastRunsBefore(
    ids: readonly string[],
    before: number,
  ): Promise<RunRow[]> {
    if (this.#engine === 'postgres') {
      return rowsOf<RunRow>(
        await this.#selectRaw(
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
      await this.#selectRaw(
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

  async #firstRunAt(): Promise<number | undefined> {
    const row = await this.#select(RUNS_TABLE)
      .whereNotNull('started_at')
      .min<{ first: number | string | null }>('scheduled_at as first')
      .first();
    return row?.first === null || row?.first === undefined
      ? undefined
      : Number(row.first);
  }

  async #aggregatedUntil(): Promise<number | undefined> {
    const row = await this.#select(STATE_TABLE)
      .where('name', AGGREGATED_UNTIL)
      .first<{ value: number | string } | undefined>('value');
    return row ? Number(row.value) : undefined;
  }

  /** Moves the progress mark forward (never back); returns the new mark. */
  async #saveAggregatedUntil(
    value: number,
    current: number | undefined,
  ): Promise<number> {
    if (current !== undefined && current >= value) {
      return current;
    }
    await this.#db(STATE_TABLE)
      .insert({ name: AGGREGATED_UNTIL, value })
      .onConflict('name')
      .merge(['value']);
    return value;
  }

  // --- Retention ---------------------------------------------------------

  async pruneRuns(before: number): Promise<number> {
    requireFinite('before', before);
    const aggregatedUntil = await this.#aggregatedUntil();
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
    const key = ['slice_id', column];
    let deleted = 0;
    for (;;) {
      const count = await this.#db(table)
        .whereIn(
          key,
          this.#db(table)
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

  // --- Reads -------------------------------------------------------------

  async uptime(query: SystemHistoryQuery): Promise<UptimeSummary> {
    return uptimeSummaryOf(await this.#totals(query));
  }

  async sliceUptimes(
    query: SliceUptimeQuery,
  ): Promise<Map<string, UptimeSummary[]>> {
    const scope = this.#scopeOf(query);
    const ranges = query.ranges.map(range => this.#rangeOf(range));
    const byRange = await this.#groupedTotals(scope, ranges, 'slice');
    const bySlice = new Map<string, UptimeSummary[]>();
    byRange.forEach((totals, index) => {
      for (const [sliceId, sliceTotals] of totals) {
        let summaries = bySlice.get(sliceId);
        if (!summaries) {
          summaries = ranges.map(() => uptimeSummaryOf(emptyTotals()));
          bySlice.set(sliceId, summaries);
        }
        summaries[index] = uptimeSummaryOf(sliceTotals);
      }
    });
    return bySlice;
  }

  /** See {@link responseTimeSummaryOf} for what the percentiles are. */
  async responseTime(query: SystemHistoryQuery): Promise<ResponseTimeSummary> {
    return responseTimeSummaryOf(await this.#totals(query));
  }

  async summary(query: SystemHistoryQuery): Promise<{
    uptime: UptimeSummary;
    responseTime: ResponseTimeSummary;
  }> {
    const totals = await this.#totals(query);
    return {
      uptime: uptimeSummaryOf(totals),
      responseTime: responseTimeSummaryOf(totals),
    };
  }

  /** A system's totals over a range, all its slices added up. */
  async #totals(query: SystemHistoryQuery): Promise<Totals> {
    const [totals] = await this.#groupedTotals(
      this.#scopeOf(query),
      [this.#rangeOf(query)],
      'system',
    );
    return totals.get(WHOLE_SYSTEM) ?? emptyTotals();
  }

  /**
   * Totals of a system's slices over each of some ranges, for the whole
   * system or per slice: hour aggregates for the hours aggregated so far (a
   * partial hour at either end prorated by the part of it inside the
   * range), raw runs for the rest. Ranges that end together read their raw
   * runs once, as their raw parts are the same whenever aggregation has
   * got past their starts.
   */
  async #groupedTotals(
    scope: SystemScope,
    ranges: readonly TimeRange[],
    grouping: Grouping,
  ): Promise<GroupedTotals[]> {
    const results = ranges.map((): GroupedTotals => new Map());
    if (!ranges.some(range => range.to > range.from)) {
      return results;
    }
    const aggregatedUntil = await this.#aggregatedUntil();
    const hourParts: HourPart[] = [];
    const rawParts = new Map<string, TimeRange & { into: GroupedTotals[] }>();
    ranges.forEach(({ from, to }, index) => {
      if (!(to > from)) {
        return;
      }
      const aggregatedEnd =
        aggregatedUntil === undefined ? from : Math.min(to, aggregatedUntil);
      if (aggregatedEnd > from) {
        hourParts.push({ from, to: aggregatedEnd, into: results[index] });
      }
      const rawFrom = Math.max(from, aggregatedEnd);
      if (rawFrom < to) {
        const key = `${rawFrom}:${to}`;
        const part = rawParts.get(key) ?? { from: rawFrom, to, into: [] };
        part.into.push(results[index]);
        rawParts.set(key, part);
      }
    });
    if (hourParts.length > 0) {
      await this.#addHourTotals(scope, grouping, hourParts);
    }
    for (const part of rawParts.values()) {
      const raw = await this.#rawTotals(scope, grouping, part.from, part.to);
      for (const into of part.into) {
        addGroupedTotals(into, raw);
      }
    }
    return results;
  }

  /**
   * Adds the hour aggregates of each part: one query per part for its whole
   * hours, one for the partial hours of all parts.
   */
  async #addHourTotals(
    scope: SystemScope,
    grouping: Grouping,
    parts: readonly HourPart[],
  ): Promise<void> {
    const ofScope = (query: Knex.QueryBuilder) => {
      query.where('system_ref', scope.systemRef);
      if (scope.environment !== undefined) {
        query.andWhere('environment', scope.environment);
      }
    };
    const bySlice = grouping === 'slice';
    const groupOf = (row: Record<string, unknown>) =>
      bySlice ? String(row.slice_id) : WHOLE_SYSTEM;
    const sums = [
      ...(bySlice ? ['slice_id'] : []),
      'SUM(up_seconds) AS up',
      'SUM(down_seconds) AS down',
      'SUM(unknown_seconds) AS unknown',
      'SUM(paused_seconds) AS paused',
      'SUM(run_count) AS run_count',
      'SUM(CASE WHEN latency_p50_ms IS NULL THEN 0 ELSE run_count END) AS latency_runs',
      'SUM(latency_p50_ms * run_count) AS p50',
      'SUM(latency_p95_ms * run_count) AS p95',
      'SUM(latency_p99_ms * run_count) AS p99',
    ].map(sql => this.#db.raw(sql));

    // Whole hours, summed by the database.
    for (const part of parts) {
      const firstWhole = Math.ceil(part.from / HOUR_MS) * HOUR_MS;
      const wholeEnd = hourStartOf(part.to);
      if (firstWhole < wholeEnd) {
        const rows: Record<string, unknown>[] = await this.#select(HOURS_TABLE)
          .modify(ofScope)
          .andWhere('hour_start', '>=', firstWhole)
          .andWhere('hour_start', '<', wholeEnd)
          .modify(query => {
            if (bySlice) {
              query.groupBy('slice_id');
            }
          })
          .select(sums);
        for (const row of rows) {
          addTotals(totalsOf(part.into, groupOf(row)), row, 1);
        }
      }
    }

    // At most two partial hours per part, prorated.
    const partial = new Map<
      number,
      Array<{ into: GroupedTotals; weight: number }>
    >();
    for (const part of parts) {
      for (const hourStart of new Set([
        hourStartOf(part.from),
        hourStartOf(part.to - 1),
      ])) {
        const inside =
          Math.min(hourStart + HOUR_MS, part.to) -
          Math.max(hourStart, part.from);
        if (inside > 0 && inside < HOUR_MS) {
          const shares = partial.get(hourStart) ?? [];
          shares.push({ into: part.into, weight: inside / HOUR_MS });
          partial.set(hourStart, shares);
        }
      }
    }
    if (partial.size > 0) {
      const rows = await this.#select(HOURS_TABLE)
        .modify(ofScope)
        .whereIn('hour_start', [...partial.keys()])
        .groupBy(bySlice ? ['hour_start', 'slice_id'] : ['hour_start'])
        .select([this.#db.raw('hour_start'), ...sums]);
      for (const row of rows) {
        for (const { into, weight } of partial.get(Number(row.hour_start)) ??
          []) {
          addTotals(totalsOf(into, groupOf(row)), row, weight);
        }
      }
    }
  }

  /** Totals over `[from, to)` from raw runs, for the whole system or per slice. */
  async #rawTotals(
    scope: SystemScope,
    grouping: Grouping,
    from: number,
    to: number,
  ): Promise<GroupedTotals> {
    const totals: GroupedTotals = new Map();
    const slices = await this.#select<SliceRow>(SLICES_TABLE)
      .where('system_ref', scope.systemRef)
      .modify(query => {
        if (scope.environment !== undefined) {
          query.andWhere('environment', scope.environment);
        }
      })
      .andWhere(query =>
        query.where('removed', false).orWhere('updated_at', '>=', from),
      )
      .orderBy('id')
      .select<SliceRow[]>('id', 'removed', 'updated_at', 'interval_ms');
    const durations = new Map<string, number[]>();
    for (const batch of batchesByExpectedRuns(slices, to - from)) {
      const histories = await this.#histories(
        batch.map(slice => slice.id),
        from,
        to,
      );
      for (const slice of batch) {
        const history = histories.get(slice.id)!;
        const end = sliceEnd(slice, to);
        if (end <= from) {
          continue;
        }
        const group = grouping === 'slice' ? slice.id : WHOLE_SYSTEM;
        const summary = summarizeWindow({
          from,
          to: end,
          statusAtStart: history.statusAtStart,
          runs: history.runs,
        });
        const groupTotals = totalsOf(totals, group);
        groupTotals.up += summary.upSeconds;
        groupTotals.down += summary.downSeconds;
        groupTotals.unknown += summary.unknownSeconds;
        groupTotals.paused += summary.pausedSeconds;
        groupTotals.runCount += summary.runCount;
        const groupDurations = durations.get(group) ?? [];
        durations.set(group, groupDurations);
        for (const run of history.runs) {
          if (
            run.startedAt >= from &&
            run.startedAt < end &&
            isProbeRun(run) &&
            typeof run.durationMs === 'number'
          ) {
            groupDurations.push(run.durationMs);
          }
        }
      }
    }
    for (const [group, values] of durations) {
      if (values.length > 0) {
        values.sort((a, b) => a - b);
        const n = values.length;
        const groupTotals = totalsOf(totals, group);
        groupTotals.latencyRuns += n;
        groupTotals.p50 += nearestRankPercentile(values, 50)! * n;
        groupTotals.p95 += nearestRankPercentile(values, 95)! * n;
        groupTotals.p99 += nearestRankPercentile(values, 99)! * n;
      }
    }
    return totals;
  }

  async listHours(query: SystemHistoryQuery): Promise<HistoryHour[]> {
    const { systemRef, environment, from, to } = this.#systemWindow(query);
    if (!(to > from)) {
      return [];
    }
    const rows = await this.#select(HOURS_TABLE)
      .where('system_ref', systemRef)
      .modify(builder => {
        if (environment !== undefined) {
          builder.andWhere('environment', environment);
        }
      })
      .andWhere('hour_start', '>=', hourStartOf(from))
      .andWhere('hour_start', '<', to)
      .groupBy('environment', 'hour_start')
      .orderBy([
        { column: 'environment', order: 'asc' },
        { column: 'hour_start', order: 'asc' },
      ])
      .select<Array<Record<string, unknown> & { environment: string }>>([
        'environment',
        'hour_start',
        ...[
          'SUM(run_count) AS run_count',
          'SUM(failure_count) AS failure_count',
          'SUM(up_seconds) AS up',
          'SUM(down_seconds) AS down',
          'SUM(unknown_seconds) AS unknown',
          'SUM(paused_seconds) AS paused',
          'SUM(CASE WHEN latency_p50_ms IS NULL THEN 0 ELSE run_count END) AS latency_runs',
          'SUM(latency_p50_ms * run_count) AS p50',
          'SUM(latency_p95_ms * run_count) AS p95',
          'SUM(latency_p99_ms * run_count) AS p99',
        ].map(sql => this.#db.raw(sql)),
      ]);
    return rows.map(row => {
      const latencyRuns = Number(row.latency_runs ?? 0);
      const mean = (value: unknown) =>
        latencyRuns > 0
          ? Math.round(Number(value ?? 0) / latencyRuns)
          : undefined;
      const upSeconds = Number(row.up ?? 0);
      const downSeconds = Number(row.down ?? 0);
      return {
        environment: row.environment,
        hourStart: Number(row.hour_start),
        runCount: Number(row.run_count ?? 0),
        failureCount: Number(row.failure_count ?? 0),
        latencyP50Ms: mean(row.p50),
        latencyP95Ms: mean(row.p95),
        latencyP99Ms: mean(row.p99),
        upSeconds,
        downSeconds,
        unknownSeconds: Number(row.unknown ?? 0),
        pausedSeconds: Number(row.paused ?? 0),
        uptime: uptimeRatio(upSeconds, downSeconds),
      };
    });
  }

  async listRuns(query: ListRunsQuery): Promise<RunPage> {
    requireFinite('from', query.from);
    requireFinite('to', query.to);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE) {
      throw new InputError(
        `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}, got ${limit}`,
      );
    }
    const cursor =
      query.cursor === undefined ? undefined : decodeCursor(query.cursor);

    let slices: Array<Partial<SliceRow> & { id: string }>;
    if (query.sliceId !== undefined) {
      const row = await this.#select<SliceRow>(SLICES_TABLE)
        .where('id', query.sliceId)
        .first<SliceRow | undefined>(
          'id',
          'check_id',
          'system_ref',
          'environment',
        );
      slices = [row ?? { id: query.sliceId }];
    } else {
      if (typeof query.systemRef !== 'string' || query.systemRef === '') {
        throw new InputError('listRuns needs a sliceId or a systemRef');
      }
      slices = await this.#select<SliceRow>(SLICES_TABLE)
        .where('system_ref', query.systemRef.toLowerCase())
        .modify(builder => {
          if (query.environment !== undefined) {
            builder.andWhere('environment', query.environment);
          }
        })
        .select<SliceRow[]>('id', 'check_id', 'system_ref', 'environment');
    }

    // Each slice's newest runs come from its own primary-key range; the
    // pages are merged here, newest first, ties broken by slice id.
    const candidates: Array<{ row: FullRunRow; slice: Partial<SliceRow> }> = [];
    for (const slice of slices) {
      const rows = await this.#select<FullRunRow>(RUNS_TABLE)
        .where('slice_id', slice.id)
        .andWhere('scheduled_at', '>=', Math.floor(query.from))
        .andWhere('scheduled_at', '<', Math.ceil(query.to))
        .modify(builder => {
          if (cursor) {
            builder.andWhere(
              'scheduled_at',
              slice.id < cursor.sliceId ? '<=' : '<',
              cursor.scheduledAt,
            );
          }
        })
        .whereNotNull('started_at')
        .orderBy('scheduled_at', 'desc')
        .limit(limit + 1)
        .select<FullRunRow[]>([
          ...RUN_COLUMNS,
          'conditions',
          'error_kind',
          'error_message',
        ]);
      for (const row of rows) {
        candidates.push({ row, slice });
      }
    }
    candidates.sort(
      (a, b) =>
        Number(b.row.scheduled_at) - Number(a.row.scheduled_at) ||
        compareStrings(b.row.slice_id, a.row.slice_id),
    );
    const page = candidates.slice(0, limit);
    const last = page[page.length - 1];
    return {
      runs: page.map(({ row, slice }) => toStoredRun(row, slice)),
      nextCursor:
        candidates.length > limit && last
          ? encodeCursor({
              scheduledAt: Number(last.row.scheduled_at),
              sliceId: last.row.slice_id,
            })
          : undefined,
    };
  }

  /** The query's system and range, checked, with `to` no later than now. */
  #systemWindow(query: SystemHistoryQuery) {
    return { ...this.#scopeOf(query), ...this.#rangeOf(query) };
  }

  /** The query's system (lower-case) and environment, checked. */
  #scopeOf(query: {
    readonly systemRef: string;
    readonly environment?: string;
  }): SystemScope {
    if (typeof query.systemRef !== 'string' || query.systemRef === '') {
      throw new InputError('A history query needs a systemRef');
    }
    return {
      systemRef: query.systemRef.toLowerCase(),
      environment: query.environment,
    };
  }

  /** A range, checked, with `to` no later than now. */
  #rangeOf(range: { readonly from: number; readonly to: number }): TimeRange {
    requireFinite('from', range.from);
    requireFinite('to', range.to);
    return { from: range.from, to: Math.min(range.to, this.#now()) };
  }
}

function requireFinite(name: string, value: unknown): void {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    throw new InputError(`${name} must be a finite number, got ${value}`);
  }
}

/** The end of a slice's history within a window: its removal, if removed. */
function sliceEnd(slice: Pick<SliceRow, 'removed' | 'updated_at'>, to: number) {
  return slice.removed ? Math.min(to, Number(slice.updated_at)) : to;
}

/**
 * Splits slices into batches whose runs over a window of `spanMs` (plus the
 * look-back) add up to about {@link RUNS_PER_BATCH}, going by each slice's
 * interval: memory stays bounded however the intervals mix.
 */
function batchesByExpectedRuns<T extends Pick<SliceRow, 'interval_ms'>>(
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

function emptyTotals(): Totals {
  return {
    up: 0,
    down: 0,
    unknown: 0,
    paused: 0,
    runCount: 0,
    latencyRuns: 0,
    p50: 0,
    p95: 0,
    p99: 0,
  };
}

function totalsOf(grouped: GroupedTotals, group: string): Totals {
  let totals = grouped.get(group);
  if (!totals) {
    totals = emptyTotals();
    grouped.set(group, totals);
  }
  return totals;
}

function addGroupedTotals(into: GroupedTotals, from: GroupedTotals): void {
  for (const [group, totals] of from) {
    const target = totalsOf(into, group);
    for (const key of Object.keys(totals) as Array<keyof Totals>) {
      target[key] += totals[key];
    }
  }
}

/**
 * The percentiles are exact over one hour of one slice. Over a longer range
 * they are the run-count-weighted mean of the hourly percentiles of each
 * slice (and of the exact percentiles of the runs not aggregated yet): an
 * approximation, since a mean of percentiles is not the percentile of all
 * runs; it smooths a short spike that the true p95 would show.
 */
function responseTimeSummaryOf(totals: Totals): ResponseTimeSummary {
  const mean = (sum: number) =>
    totals.latencyRuns > 0 ? Math.round(sum / totals.latencyRuns) : undefined;
  return {
    runCount: Math.round(totals.runCount),
    p50Ms: mean(totals.p50),
    p95Ms: mean(totals.p95),
    p99Ms: mean(totals.p99),
  };
}

function uptimeSummaryOf(totals: Totals): UptimeSummary {
  return {
    uptime: uptimeRatio(totals.up, totals.down),
    upSeconds: totals.up,
    downSeconds: totals.down,
    unknownSeconds: totals.unknown,
    pausedSeconds: totals.paused,
  };
}

function addTotals(
  totals: Totals,
  row: Record<string, unknown> | undefined,
  weight: number,
): void {
  if (!row) {
    return;
  }
  const value = (key: string) => Number(row[key] ?? 0) * weight;
  totals.up += value('up');
  totals.down += value('down');
  totals.unknown += value('unknown');
  totals.paused += value('paused');
  totals.runCount += value('run_count');
  totals.latencyRuns += value('latency_runs');
  totals.p50 += value('p50');
  totals.p95 += value('p95');
  totals.p99 += value('p99');
}

const OUTCOMES = new Set(['pass', 'degraded', 'fail']);

function toStoredRun(row: FullRunRow, slice: Partial<SliceRow>): StoredRun {
  let conditions: JudgedCondition[] | undefined;
  if (row.conditions) {
    try {
      conditions = JSON.parse(row.conditions) as JudgedCondition[];
    } catch {
      conditions = undefined;
    }
  }
  return {
    sliceId: row.slice_id,
    checkId: slice.check_id,
    systemRef: slice.system_ref,
    environment: slice.environment,
    scheduledAt: Number(row.scheduled_at),
    startedAt: Number(row.started_at),
    durationMs:
      row.duration_ms === null || row.outcome === null
        ? undefined
        : Number(row.duration_ms),
    outcome:
      row.outcome !== null && OUTCOMES.has(row.outcome)
        ? (row.outcome as StoredRun['outcome'])
        : undefined,
    status: toHistoryStatus(row.status),
    conditions,
    error:
      row.error_kind !== null || row.error_message !== null
        ? {
            kind: row.error_kind ?? 'unknown',
            message: row.error_message ?? '',
          }
        : undefined,
  };
}

function compareStrings(a: string, b: string): number {
  if (a === b) {
    return 0;
  }
  return a < b ? -1 : 1;
}

interface RunCursor {
  scheduledAt: number;
  sliceId: string;
}

function encodeCursor(cursor: RunCursor): string {
  return Buffer.from(
    JSON.stringify([cursor.scheduledAt, cursor.sliceId]),
  ).toString('base64url');
}

function decodeCursor(text: string): RunCursor {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
    if (
      Array.isArray(value) &&
      value.length === 2 &&
      Number.isSafeInteger(value[0]) &&
      typeof value[1] === 'string'
    ) {
      return { scheduledAt: value[0], sliceId: value[1] };
    }
  } catch {
    // Reported below.
  }
  throw new InputError(`Invalid cursor '${text}'`);
}
