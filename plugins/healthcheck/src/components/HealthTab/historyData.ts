import {
  HealthStatus,
  HourEntry,
  RunEntry,
  SliceRunsResponse,
  worstStatus,
} from '@vigil/plugin-healthcheck-common';

/** A range the cell history can show. */
export type HistoryRange = '24h' | '7d' | '30d';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** The ranges, in the order the range picker shows them. */
export const HISTORY_RANGES: ReadonlyArray<{
  range: HistoryRange;
  label: string;
  ms: number;
}> = [
  { range: '24h', label: '24 hours', ms: DAY_MS },
  { range: '7d', label: '7 days', ms: 7 * DAY_MS },
  { range: '30d', label: '30 days', ms: 30 * DAY_MS },
];

export function rangeMs(range: HistoryRange): number {
  return HISTORY_RANGES.find(r => r.range === range)!.ms;
}

/** Statuses in the order the timeline stacks and the legend lists them. */
export const TIMELINE_STATUSES: readonly HealthStatus[] = [
  'healthy',
  'degraded',
  'unhealthy',
  'unknown',
  'paused',
];

/**
 * One point of a status timeline of runs: the status holds from `time` to
 * the next point. Each status key is 1 for the point's status and 0 for the
 * others, so stacked step areas draw one coloured band.
 */
export type RunStatusPoint = {
  time: number;
  status: HealthStatus;
  runCount: number;
} & Record<HealthStatus, number>;

/** One point of the latency chart of runs. */
export interface RunLatencyPoint {
  time: number;
  /** The run's duration, or the median of the bucket's runs. */
  latencyMs?: number;
  /** The slowest run of the bucket (only when runs were bucketed). */
  maxLatencyMs?: number;
}

/** Above this many runs, charts show buckets instead of single runs. */
export const MAX_RAW_POINTS = 400;
/** How many buckets a bucketed chart has (5-minute buckets over 24 hours). */
export const BUCKETS = 288;

function statusFlags(status: HealthStatus): Record<HealthStatus, number> {
  return {
    healthy: status === 'healthy' ? 1 : 0,
    degraded: status === 'degraded' ? 1 : 0,
    unhealthy: status === 'unhealthy' ? 1 : 0,
    unknown: status === 'unknown' ? 1 : 0,
    paused: status === 'paused' ? 1 : 0,
  };
}

/** The value at `fraction` (0..1) of sorted numbers; undefined for none. */
export function percentile(
  sorted: readonly number[],
  fraction: number,
): number | undefined {
  if (sorted.length === 0) {
    return undefined;
  }
  const index = Math.min(
    sorted.length - 1,
    Math.max(0, Math.ceil(fraction * sorted.length) - 1),
  );
  return sorted[index];
}

/**
 * The status timeline and latency points of runs in `[from, to)`: one point
 * per run when there are few, else one per bucket (worst status, median and
 * slowest latency), so that a chart never draws thousands of points.
 */
export function chartRuns(
  runs: readonly RunEntry[],
  from: number,
  to: number,
): { status: RunStatusPoint[]; latency: RunLatencyPoint[]; bucketed: boolean } {
  const sorted = runs
    .filter(run => run.startedAt >= from && run.startedAt < to)
    .sort((a, b) => a.startedAt - b.startedAt);
  const status: RunStatusPoint[] = [];
  const latency: RunLatencyPoint[] = [];
  const bucketed = sorted.length > MAX_RAW_POINTS;

  if (!bucketed) {
    for (const run of sorted) {
      status.push({
        time: run.startedAt,
        status: run.status,
        runCount: 1,
        ...statusFlags(run.status),
      });
      if (run.durationMs !== undefined) {
        latency.push({ time: run.startedAt, latencyMs: run.durationMs });
      }
    }
  } else {
    const size = (to - from) / BUCKETS;
    const buckets = new Map<number, RunEntry[]>();
    for (const run of sorted) {
      const index = Math.min(
        BUCKETS - 1,
        Math.floor((run.startedAt - from) / size),
      );
      const bucket = buckets.get(index);
      if (bucket) {
        bucket.push(run);
      } else {
        buckets.set(index, [run]);
      }
    }
    for (const [index, bucketRuns] of [...buckets.entries()].sort(
      (a, b) => a[0] - b[0],
    )) {
      const time = Math.round(from + index * size);
      const worst = worstStatus(bucketRuns.map(run => run.status));
      status.push({
        time,
        status: worst,
        runCount: bucketRuns.length,
        ...statusFlags(worst),
      });
      const durations = bucketRuns
        .map(run => run.durationMs)
        .filter((ms): ms is number => ms !== undefined)
        .sort((a, b) => a - b);
      if (durations.length > 0) {
        latency.push({
          time,
          latencyMs: percentile(durations, 0.5),
          maxLatencyMs: durations[durations.length - 1],
        });
      }
    }
  }

  // The last status holds until the end of the range (or now).
  const last = status[status.length - 1];
  const end = Math.min(to, Date.now());
  if (last && end > last.time) {
    status.push({ ...last, time: end, runCount: 0 });
  }
  return { status, latency, bucketed };
}

/** p95 and count of the durations of runs. */
export function runLatencySummary(runs: readonly RunEntry[]): {
  runCount: number;
  p50Ms?: number;
  p95Ms?: number;
} {
  const durations = runs
    .map(run => run.durationMs)
    .filter((ms): ms is number => ms !== undefined)
    .sort((a, b) => a - b);
  return {
    runCount: runs.length,
    p50Ms: percentile(durations, 0.5),
    p95Ms: percentile(durations, 0.95),
  };
}

/** One hour of an environment: fractions of the hour up, down, unknown and paused. */
export interface HourStatusPoint {
  time: number;
  up: number;
  down: number;
  unknown: number;
  paused: number;
  uptime?: number;
}

export interface HourLatencyPoint {
  time: number;
  p50?: number;
  p95?: number;
  p99?: number;
}

/** Chart points of hourly aggregates, oldest first. */
export function chartHours(hours: readonly HourEntry[]): {
  status: HourStatusPoint[];
  latency: HourLatencyPoint[];
} {
  const sorted = [...hours].sort((a, b) => a.hourStart - b.hourStart);
  const status = sorted.map(hour => {
    const total =
      hour.upSeconds +
        hour.downSeconds +
        hour.unknownSeconds +
        hour.pausedSeconds || 1;
    return {
      time: hour.hourStart,
      up: hour.upSeconds / total,
      down: hour.downSeconds / total,
      unknown: hour.unknownSeconds / total,
      paused: hour.pausedSeconds / total,
      uptime: hour.uptime,
    };
  });
  const last = status[status.length - 1];
  if (last) {
    status.push({ ...last, time: last.time + HOUR_MS });
  }
  const latency = sorted
    .filter(hour => hour.runCount > 0)
    .map(hour => ({
      time: hour.hourStart,
      p50: hour.latencyP50Ms,
      p95: hour.latencyP95Ms,
      p99: hour.latencyP99Ms,
    }));
  return { status, latency };
}

/** When the status changed, newest first: `limit` changes at most. */
export function statusChanges(
  runs: readonly RunEntry[],
  limit = 10,
): Array<{ at: number; status: HealthStatus }> {
  const sorted = [...runs].sort((a, b) => a.startedAt - b.startedAt);
  const changes: Array<{ at: number; status: HealthStatus }> = [];
  let previous: HealthStatus | undefined;
  for (const run of sorted) {
    if (run.status !== previous) {
      changes.push({ at: run.startedAt, status: run.status });
      previous = run.status;
    }
  }
  return changes.reverse().slice(0, limit);
}

/** A run that failed or was degraded, with what failed, as the run displayed it. */
export interface FailingRun {
  run: RunEntry;
  /** The display strings of the conditions that failed, and the probe error. */
  failures: string[];
}

/** The newest run whose outcome was `fail` or `degraded`. */
export function latestFailingRun(
  runs: readonly RunEntry[],
): FailingRun | undefined {
  let latest: RunEntry | undefined;
  for (const run of runs) {
    const failed =
      run.outcome === 'fail' ||
      run.outcome === 'degraded' ||
      (run.outcome === undefined && run.error !== undefined);
    if (failed && (!latest || run.startedAt > latest.startedAt)) {
      latest = run;
    }
  }
  if (!latest) {
    return undefined;
  }
  const failures = (latest.conditions ?? [])
    .filter(condition => !condition.success)
    .map(condition => condition.display);
  if (latest.error) {
    failures.push(`${latest.error.kind}: ${latest.error.message}`);
  }
  return { run: latest, failures };
}

/** Runs per page asked of the backend for a cell's history (its maximum). */
export const SLICE_RUNS_PAGE_SIZE = 1000;
/** Pages loaded at most for one cell history, so one click stays cheap. */
export const SLICE_RUNS_MAX_PAGES = 3;

/** The newest runs of a range. */
export interface NewestRuns {
  runs: RunEntry[];
  /** True when the range had more runs than were loaded (the oldest are left out). */
  truncated: boolean;
}

/**
 * The runs of pages that come newest first, following each page's
 * `nextCursor` for at most `maxPages` pages.
 */
export async function loadNewestRuns(
  loadPage: (cursor: string | undefined) => Promise<SliceRunsResponse>,
  maxPages: number = SLICE_RUNS_MAX_PAGES,
): Promise<NewestRuns> {
  const runs: RunEntry[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < maxPages; page++) {
    const loaded = await loadPage(cursor);
    runs.push(...loaded.runs);
    cursor = loaded.nextCursor;
    if (!cursor) {
      return { runs, truncated: false };
    }
  }
  return { runs, truncated: true };
}
