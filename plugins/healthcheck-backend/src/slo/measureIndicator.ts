import type { ResolvedServiceLevelObjective } from '@vigil/plugin-healthcheck-common';
import {
  HOUR_MS,
  hourStartOf,
  isProbeRun,
  nearestRankPercentile,
} from '../history/aggregateRuns';
import {
  HistoryRun,
  sortRunsByStart,
  timeWeightedUptime,
} from '../history/timeWeightedUptime';
import {
  coveredMs,
  intersectIntervals,
  Interval,
  mergeIntervals,
  subtractIntervals,
} from './intervals';

/**
 * One aggregated hour of one slice, as `healthcheck_run_hours` keeps it.
 *
 * @internal
 */
export interface SloHour {
  /** A multiple of {@link HOUR_MS}. */
  readonly hourStart: number;
  readonly upSeconds: number;
  readonly downSeconds: number;
  readonly runCount: number;
  readonly failureCount: number;
  readonly latencyP50Ms?: number | null;
  readonly latencyP95Ms?: number | null;
  readonly latencyP99Ms?: number | null;
  /** The status in force at the end of the hour. */
  readonly endStatus?: string | null;
}

/**
 * What the SLO math knows of one slice: aggregated hours, raw runs for some
 * hours (the current, unaggregated one; any an exclusion covers in part),
 * and the time that must not count.
 *
 * Paused time needs nothing here: it is neither up nor down in the hours,
 * and a pause marker makes it so in the runs. Maintenance is passed as
 * `excluded`. An aggregated hour that excluded time covers in part, with no
 * raw runs for it, counts for the rest of the hour in proportion (the hour
 * keeps no finer detail).
 *
 * @internal
 */
export interface SloSliceHistory {
  /** Aggregated hours; those inside `rawRanges` are ignored. */
  readonly hours: readonly SloHour[];
  /**
   * Where the raw runs are read instead of the hours: whole hours (bounds
   * multiples of {@link HOUR_MS}, the last may end at or after now), sorted
   * and disjoint.
   */
  readonly rawRanges: readonly Interval[];
  /**
   * The runs in `rawRanges`. The status at the start of each range is the
   * `endStatus` of the hour before, else that of the latest run before the
   * range, else unknown.
   */
  readonly runs: readonly HistoryRun[];
  /** Maintenance and any other time that never counts, in any order. */
  readonly excluded?: readonly Interval[];
}

/**
 * Good and bad of an indicator over a range, in its unit: seconds for time
 * (availability by Timeslices), runs (Occurrences), or hours (latency, an
 * hour counting for the part of it that is counted).
 *
 * @internal
 */
export interface GoodAndBad {
  good: number;
  bad: number;
}

/** What is judged, and how: the part of an objective the math needs. */
export type SloIndicator = Pick<
  ResolvedServiceLevelObjective,
  'indicator' | 'budgetingMethod'
>;

/**
 * Good and bad of one slice over `range`, its excluded time left out.
 *
 * @internal
 */
export function measureSlice(
  history: SloSliceHistory,
  range: Interval,
  objective: SloIndicator,
): GoodAndBad {
  for (const raw of history.rawRanges) {
    if (raw.from % HOUR_MS !== 0 || raw.to % HOUR_MS !== 0) {
      throw new TypeError(
        `A raw range must be whole hours, got [${new Date(
          raw.from,
        ).toISOString()}, ${new Date(raw.to).toISOString()})`,
      );
    }
  }
  const counted = subtractIntervals(
    range,
    mergeIntervals(history.excluded ?? []),
  );
  const total: GoodAndBad = { good: 0, bad: 0 };
  if (counted.length === 0) {
    return total;
  }
  measureHours(history, range, counted, objective, total);
  measureRuns(history, counted, objective, total);
  return total;
}

/** Adds the aggregated hours outside the raw ranges, each by its counted share. */
function measureHours(
  history: SloSliceHistory,
  range: Interval,
  counted: readonly Interval[],
  { indicator, budgetingMethod }: SloIndicator,
  total: GoodAndBad,
) {
  for (const hour of history.hours) {
    const hourEnd = hour.hourStart + HOUR_MS;
    if (
      hourEnd <= range.from ||
      hour.hourStart >= range.to ||
      coveredMs(history.rawRanges, hour.hourStart, hourEnd) > 0
    ) {
      continue;
    }
    const share = coveredMs(counted, hour.hourStart, hourEnd) / HOUR_MS;
    if (share === 0) {
      continue;
    }
    if (indicator.type === 'latency') {
      const latency = percentileOf(hour, indicator.percentile);
      if (hour.runCount > 0 && latency !== undefined) {
        addSlice(total, share, latency < indicator.thresholdMs);
      }
    } else if (budgetingMethod === 'Occurrences') {
      total.good += share * (hour.runCount - hour.failureCount);
      total.bad += share * hour.failureCount;
    } else {
      total.good += share * hour.upSeconds;
      total.bad += share * hour.downSeconds;
    }
  }
}

/** Adds the runs of the raw ranges. */
function measureRuns(
  history: SloSliceHistory,
  counted: readonly Interval[],
  { indicator, budgetingMethod }: SloIndicator,
  total: GoodAndBad,
) {
  if (history.rawRanges.length === 0) {
    return;
  }
  const parts = intersectIntervals(counted, history.rawRanges);
  if (parts.length === 0) {
    return;
  }
  const runs = sortRunsByStart(history.runs);

  if (indicator.type === 'availability' && budgetingMethod === 'Timeslices') {
    const endStatusByHour = new Map(
      history.hours.map(hour => [hour.hourStart + HOUR_MS, hour.endStatus]),
    );
    for (const raw of history.rawRanges) {
      const inRange = parts.filter(
        part => part.from >= raw.from && part.to <= raw.to,
      );
      if (inRange.length === 0) {
        continue;
      }
      // The hour before knows the status at the range's start; without it,
      // the latest run before does. Runs in excluded time still set the
      // status that follows it.
      const endStatus = endStatusByHour.get(raw.from);
      const known = endStatus !== undefined && endStatus !== null;
      const rangeRuns = runs.filter(
        run => run.startedAt < raw.to && (!known || run.startedAt >= raw.from),
      );
      for (const part of inRange) {
        const uptime = timeWeightedUptime({
          from: part.from,
          to: part.to,
          statusAtStart: known ? endStatus : undefined,
          runs: rangeRuns,
        });
        total.good += uptime.upSeconds;
        total.bad += uptime.downSeconds;
      }
    }
    return;
  }

  const countedRuns = runs.filter(
    run =>
      isProbeRun(run) && coveredMs(parts, run.startedAt, run.startedAt + 1) > 0,
  );
  if (indicator.type === 'availability') {
    for (const run of countedRuns) {
      if (run.outcome === 'fail') {
        total.bad++;
      } else {
        total.good++;
      }
    }
    return;
  }

  // Latency: each hour of the range (or the part of it the range holds) is
  // one slice, judged by the percentile of its counted runs.
  const durationsByHour = new Map<number, number[]>();
  for (const run of countedRuns) {
    if (
      typeof run.durationMs !== 'number' ||
      !Number.isFinite(run.durationMs)
    ) {
      continue;
    }
    const hourStart = hourStartOf(run.startedAt);
    const durations = durationsByHour.get(hourStart) ?? [];
    durations.push(run.durationMs);
    durationsByHour.set(hourStart, durations);
  }
  for (const [hourStart, durations] of durationsByHour) {
    const share = coveredMs(parts, hourStart, hourStart + HOUR_MS) / HOUR_MS;
    durations.sort((a, b) => a - b);
    const latency = nearestRankPercentile(durations, indicator.percentile);
    if (share > 0 && latency !== undefined) {
      addSlice(total, share, latency < indicator.thresholdMs);
    }
  }
}

function addSlice(total: GoodAndBad, share: number, good: boolean) {
  if (good) {
    total.good += share;
  } else {
    total.bad += share;
  }
}

function percentileOf(hour: SloHour, percentile: 50 | 95 | 99) {
  const byPercentile = {
    50: hour.latencyP50Ms,
    95: hour.latencyP95Ms,
    99: hour.latencyP99Ms,
  };
  return byPercentile[percentile] ?? undefined;
}
