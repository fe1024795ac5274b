import type {
  HealthStatus,
  JudgedCondition,
} from '@vigil/plugin-healthcheck-common';

/**
 * A time range of one system, or of one of its environments. Times are
 * epoch ms, `from` inclusive and `to` exclusive; a `to` in the future is
 * read as now.
 *
 * @internal
 */
export interface SystemHistoryQuery {
  /** The system entity ref (compared lower-case). */
  readonly systemRef: string;
  /** One environment; all of the system's when left out. */
  readonly environment?: string;
  readonly from: number;
  readonly to: number;
}

/**
 * Time-weighted up-time of a system over a range: the seconds of all its
 * slices (of the environment, if one was asked for) added up.
 *
 * @internal
 */
export interface UptimeSummary {
  /** `upSeconds / (upSeconds + downSeconds)`; undefined when both are 0. */
  readonly uptime: number | undefined;
  /** Healthy or degraded. */
  readonly upSeconds: number;
  /** Unhealthy. */
  readonly downSeconds: number;
  /** No known status. */
  readonly unknownSeconds: number;
  /** Paused: excluded from up-time. */
  readonly pausedSeconds: number;
}

/**
 * Ranges of one system over which {@link HistoryStore.sliceUptimes} gives
 * the up-time of each of its slices. Each range is `[from, to)` in epoch ms;
 * a `to` in the future is read as now.
 *
 * @internal
 */
export interface SliceUptimeQuery {
  /** The system entity ref (compared lower-case). */
  readonly systemRef: string;
  readonly ranges: ReadonlyArray<{
    readonly from: number;
    readonly to: number;
  }>;
}

/**
 * Response time of a system's runs over a range, in whole milliseconds;
 * the percentiles are undefined without runs.
 *
 * @internal
 */
export interface ResponseTimeSummary {
  readonly runCount: number;
  readonly p50Ms: number | undefined;
  readonly p95Ms: number | undefined;
  readonly p99Ms: number | undefined;
}

/**
 * Runs of one slice, or of the slices of a system (and environment), whose
 * tick time (`scheduledAt`) is in `[from, to)`, newest first.
 *
 * @internal
 */
export type ListRunsQuery = (
  | { readonly sliceId: string; readonly systemRef?: undefined }
  | {
      readonly sliceId?: undefined;
      readonly systemRef: string;
      /** One environment; all of the system's when left out. */
      readonly environment?: string;
    }
) & {
  readonly from: number;
  readonly to: number;
  /** Runs per page, 1 to 1000; default 100. */
  readonly limit?: number;
  /** `nextCursor` of the previous page. */
  readonly cursor?: string;
};

/**
 * One stored run, or a pause marker (status `paused`, no outcome).
 *
 * @internal
 */
export interface StoredRun {
  readonly sliceId: string;
  /** From the slice, while the slice (or its tombstone) is still stored. */
  readonly checkId?: string;
  readonly systemRef?: string;
  readonly environment?: string;
  /** The grid time of the tick (epoch ms). */
  readonly scheduledAt: number;
  /** When the probe started (epoch ms); its status holds from here. */
  readonly startedAt: number;
  readonly durationMs?: number;
  /** Undefined for a pause marker. */
  readonly outcome?: 'pass' | 'degraded' | 'fail';
  /** The slice status after the run. */
  readonly status: HealthStatus;
  readonly conditions?: JudgedCondition[];
  readonly error?: { readonly kind: string; readonly message: string };
}

/**
 * A page of runs; `nextCursor` is set when there may be more.
 *
 * @internal
 */
export interface RunPage {
  readonly runs: StoredRun[];
  readonly nextCursor?: string;
}

/**
 * One aggregated hour of one environment of a system: its slices added up.
 *
 * @internal
 */
export interface HistoryHour {
  readonly environment: string;
  /** Start of the hour (epoch ms, a multiple of 3,600,000). */
  readonly hourStart: number;
  readonly runCount: number;
  readonly failureCount: number;
  /**
   * The slices' hourly nearest-rank percentiles, averaged weighted by their
   * run counts (exact for an environment with one slice, an approximation
   * otherwise); undefined without runs.
   */
  readonly latencyP50Ms: number | undefined;
  readonly latencyP95Ms: number | undefined;
  readonly latencyP99Ms: number | undefined;
  readonly upSeconds: number;
  readonly downSeconds: number;
  readonly unknownSeconds: number;
  readonly pausedSeconds: number;
  /** `up / (up + down)`; undefined when both are 0. */
  readonly uptime: number | undefined;
}

/**
 * What one {@link HistoryStore.aggregateHours} call did.
 *
 * @internal
 */
export interface AggregationResult {
  /** Hours aggregated (each over every slice). */
  readonly hours: number;
  /** Hour rows written (inserted or replaced). */
  readonly rows: number;
  /** Every hour before this is aggregated (epoch ms); undefined if none. */
  readonly aggregatedUntil: number | undefined;
}

/**
 * The history of runs: raw runs for a while, hourly aggregates for longer.
 *
 * @internal
 */
export interface HistoryStore {
  /**
   * Aggregates every complete hour not aggregated yet that starts before
   * `untilHourStart` (rounded down to an hour, and never past the current
   * hour), in bounded batches. Re-aggregating an hour replaces its rows with
   * the same values. `from` re-aggregates from that hour on, for repairs; it
   * never moves the progress mark backwards.
   */
  aggregateHours(
    untilHourStart: number,
    options?: { from?: number; signal?: AbortSignal },
  ): Promise<AggregationResult>;

  /**
   * Deletes runs whose tick time is before `before`, in bounded chunks, but
   * never one that hours not aggregated yet still need.
   * @returns how many rows were deleted
   */
  pruneRuns(before: number): Promise<number>;

  /**
   * Deletes hour aggregates of hours that start before `before`, in bounded
   * chunks.
   * @returns how many rows were deleted
   */
  pruneHours(before: number): Promise<number>;

  /** Time-weighted up-time of a system over a range. */
  uptime(query: SystemHistoryQuery): Promise<UptimeSummary>;

  /**
   * Time-weighted up-time of each slice of a system over each of the
   * ranges, by the rules of {@link HistoryStore.uptime}, in a number of
   * queries that does not grow with the slices: per slice id, a summary per
   * range, in the order of the ranges. A slice appears if the ranges cover
   * any of its time (a removed slice until its removal); one with no known
   * time in a range has an undefined up-time there.
   */
  sliceUptimes(query: SliceUptimeQuery): Promise<Map<string, UptimeSummary[]>>;

  /** Response time of a system's runs over a range. */
  responseTime(query: SystemHistoryQuery): Promise<ResponseTimeSummary>;

  /**
   * Up-time and response time of a system over a range, from one read:
   * what {@link HistoryStore.uptime} and {@link HistoryStore.responseTime}
   * give, for half the queries.
   */
  summary(query: SystemHistoryQuery): Promise<{
    uptime: UptimeSummary;
    responseTime: ResponseTimeSummary;
  }>;

  /** Runs of a slice or a system, newest first, a page at a time. */
  listRuns(query: ListRunsQuery): Promise<RunPage>;

  /**
   * The aggregated hours of a system that start in `[hour of from, to)`, per
   * environment and hour, ordered by environment then hour. The current
   * hour appears once it has been aggregated.
   */
  listHours(query: SystemHistoryQuery): Promise<HistoryHour[]>;
}
