import { InputError } from '@backstage/errors';
import { Knex } from 'knex';
import type {
  HistoryHour,
  ResponseTimeSummary,
  SliceUptimeQuery,
  SystemHistoryQuery,
  UptimeSummary,
} from '../model';
import {
  HOUR_MS,
  hourStartOf,
  isProbeRun,
  nearestRankPercentile,
  summarizeWindow,
} from './aggregateRuns';
import {
  HistoryDatabase,
  HOURS_TABLE,
  requireFinite,
  SliceRow,
  SLICES_TABLE,
} from './historyDatabase';
import {
  addGroupedTotals,
  addTotals,
  emptyTotals,
  GroupedTotals,
  Grouping,
  responseTimeSummaryOf,
  Totals,
  totalsOf,
  uptimeSummaryOf,
  WHOLE_SYSTEM,
} from './historyTotals';
import {
  batchesByExpectedRuns,
  sliceEnd,
  sliceHistories,
} from './sliceHistories';
import { uptimeRatio } from './timeWeightedUptime';

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

/** The aggregated part of a range, and the totals it adds to. */
interface HourPart extends TimeRange {
  into: GroupedTotals;
}

/**
 * The read side of the history: up-time and response time of a system or
 * its slices over ranges, from hour aggregates where aggregation got and
 * raw runs after that, and the aggregated hours themselves.
 */
export class HistoryReader {
  readonly #history: HistoryDatabase;

  constructor(history: HistoryDatabase) {
    this.#history = history;
  }

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
    const aggregatedUntil = await this.#history.aggregatedUntil();
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
    ].map(sql => this.#history.db.raw(sql));

    // Whole hours, summed by the database.
    for (const part of parts) {
      const firstWhole = Math.ceil(part.from / HOUR_MS) * HOUR_MS;
      const wholeEnd = hourStartOf(part.to);
      if (firstWhole < wholeEnd) {
        const rows: Record<string, unknown>[] = await this.#history
          .select(HOURS_TABLE)
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
      const rows = await this.#history
        .select(HOURS_TABLE)
        .modify(ofScope)
        .whereIn('hour_start', [...partial.keys()])
        .groupBy(bySlice ? ['hour_start', 'slice_id'] : ['hour_start'])
        .select([this.#history.db.raw('hour_start'), ...sums]);
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
    const slices = await this.#history
      .select<SliceRow>(SLICES_TABLE)
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
      const histories = await sliceHistories(
        this.#history,
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
    const rows = await this.#history
      .select(HOURS_TABLE)
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
        ].map(sql => this.#history.db.raw(sql)),
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
    return { from: range.from, to: Math.min(range.to, this.#history.now()) };
  }
}
