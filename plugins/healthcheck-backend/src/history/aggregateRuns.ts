import {
  HistoryRun,
  sortRunsByStart,
  timeWeightedUptime,
  TimeWeightedUptime,
  UptimeWindow,
} from './timeWeightedUptime';

/** One hour in milliseconds; hours start at multiples of it (UTC). */
export const HOUR_MS = 3_600_000;

/**
 * The start of the hour `time` falls in (epoch ms, a multiple of
 * {@link HOUR_MS}).
 *
 * @internal
 */
export function hourStartOf(time: number): number {
  return Math.floor(time / HOUR_MS) * HOUR_MS;
}

/**
 * What the runs of a window add up to.
 *
 * @internal
 */
export interface RunStatistics {
  /** Runs that started in the window; pause markers are not runs. */
  readonly runCount: number;
  /** Those of them whose outcome was `fail`. */
  readonly failureCount: number;
  /** Nearest-rank percentiles of their `durationMs`; undefined without runs. */
  readonly latencyP50Ms: number | undefined;
  readonly latencyP95Ms: number | undefined;
  readonly latencyP99Ms: number | undefined;
}

/**
 * A window of one slice's history: its time and its runs.
 *
 * @internal
 */
export interface WindowSummary extends TimeWeightedUptime, RunStatistics {
  /** Window start, epoch ms, inclusive. */
  readonly from: number;
  /** Window end, epoch ms, exclusive. */
  readonly to: number;
}

/**
 * One hour of one slice's history: the part of the hour inside the window
 * summarised, so a window that starts or ends inside an hour gives a
 * shorter first or last one.
 *
 * @internal
 */
export interface HourSummary extends WindowSummary {
  /** The start of the hour, a multiple of {@link HOUR_MS}. */
  readonly hourStart: number;
}

/**
 * The nearest-rank percentile of values sorted in ascending order: the
 * smallest value such that at least `percent`% of the values are at or below
 * it, `sorted[ceil(percent / 100 * n) - 1]`. Always one of the values, never
 * interpolated; undefined for no values.
 *
 * @internal
 */
export function nearestRankPercentile(
  sorted: readonly number[],
  percent: number,
): number | undefined {
  if (sorted.length === 0) {
    return undefined;
  }
  const rank = Math.max(1, Math.ceil((percent / 100) * sorted.length));
  return sorted[Math.min(rank, sorted.length) - 1];
}

/**
 * Whether a row is a real run rather than a pause marker: it has an
 * outcome.
 *
 * @internal
 */
export function isProbeRun(run: HistoryRun): boolean {
  return run.outcome !== null && run.outcome !== undefined;
}

/**
 * Count, failures and latency of the runs that started in `[from, to)`.
 * Pause markers (rows without an outcome) are left out; so is the duration
 * of a run that has none.
 *
 * @internal
 */
export function runStatistics(
  runs: readonly HistoryRun[],
  from: number,
  to: number,
): RunStatistics {
  let runCount = 0;
  let failureCount = 0;
  const durations: number[] = [];
  for (const run of runs) {
    if (run.startedAt < from || run.startedAt >= to || !isProbeRun(run)) {
      continue;
    }
    runCount++;
    if (run.outcome === 'fail') {
      failureCount++;
    }
    if (
      run.durationMs !== null &&
      run.durationMs !== undefined &&
      Number.isFinite(run.durationMs)
    ) {
      durations.push(run.durationMs);
    }
  }
  durations.sort((a, b) => a - b);
  return {
    runCount,
    failureCount,
    latencyP50Ms: nearestRankPercentile(durations, 50),
    latencyP95Ms: nearestRankPercentile(durations, 95),
    latencyP99Ms: nearestRankPercentile(durations, 99),
  };
}

/**
 * Time-weighted up-time ({@link timeWeightedUptime}) and run statistics
 * ({@link runStatistics}) of one slice over `[from, to)`.
 *
 * @internal
 */
export function summarizeWindow(window: UptimeWindow): WindowSummary {
  return {
    from: window.from,
    to: window.to,
    ...timeWeightedUptime(window),
    ...runStatistics(window.runs, window.from, window.to),
  };
}

/**
 * {@link summarizeWindow} for each hour `[from, to)` touches, in order. The
 * status in force at the end of one hour carries into the next, so a status
 * set in one hour holds through every hour without runs after it.
 *
 * @internal
 */
export function summarizeHours(window: UptimeWindow): HourSummary[] {
  const { from, to } = window;
  if (!(to > from)) {
    return [];
  }
  const runs = sortRunsByStart(window.runs);
  let next = 0;
  let status: UptimeWindow['statusAtStart'] = window.statusAtStart;
  for (; next < runs.length && runs[next].startedAt < from; next++) {
    status = runs[next].status;
  }

  const hours: HourSummary[] = [];
  for (let hourStart = hourStartOf(from); hourStart < to; ) {
    const hourEnd = hourStart + HOUR_MS;
    const start = Math.max(hourStart, from);
    const end = Math.min(hourEnd, to);
    const first = next;
    while (next < runs.length && runs[next].startedAt < end) {
      next++;
    }
    const summary = summarizeWindow({
      from: start,
      to: end,
      statusAtStart: status,
      runs: runs.slice(first, next),
    });
    hours.push({ hourStart, ...summary });
    status = summary.statusAtEnd;
    hourStart = hourEnd;
  }
  return hours;
}
