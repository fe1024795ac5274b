import type { HealthStatus } from '@vigil/plugin-healthcheck-common';

/**
 * One stored run of a slice as history reads it, or a pause marker.
 *
 * A run's `status` is the slice status after it, and it takes effect at
 * `startedAt`: the instant the judge dates a status change to. A pause
 * marker is a row with status `paused` and no outcome, written when the
 * slice was paused; it makes the time until the next real run paused.
 *
 * @internal
 */
export interface HistoryRun {
  /** When the run started (epoch ms); its status holds from here. */
  readonly startedAt: number;
  /** The slice status after the run; anything unrecognised counts as unknown. */
  readonly status: HealthStatus | string | null;
  /** How long the probe took; ignored for time, used for latency. */
  readonly durationMs?: number | null;
  /** `pass`, `degraded` or `fail`; null or absent for a pause marker. */
  readonly outcome?: 'pass' | 'degraded' | 'fail' | string | null;
}

/**
 * Where the time of a window went, in seconds (milliseconds / 1000, not
 * rounded). The four add up to the length of the window.
 *
 * @internal
 */
export interface TimeWeightedUptime {
  /** Time in `healthy` or `degraded`. */
  readonly upSeconds: number;
  /** Time in `unhealthy`. */
  readonly downSeconds: number;
  /** Time with no known status: before the first run, or `unknown`. */
  readonly unknownSeconds: number;
  /** Time paused; excluded from up-time. */
  readonly pausedSeconds: number;
  /**
   * Time in maintenance, whatever the status: excluded from up-time as
   * paused time is. Present when the window was given maintenance spans;
   * the others then add up to the rest.
   */
  readonly maintenanceSeconds?: number;
  /** `up / (up + down)`, from 0 to 1; undefined when neither is known. */
  readonly uptime: number | undefined;
  /** The status in force at the window start, if any was known. */
  readonly statusAtStart: HealthStatus | undefined;
  /** The status in force at the window end, if any was known. */
  readonly statusAtEnd: HealthStatus | undefined;
}

/**
 * The input of {@link timeWeightedUptime}: a window `[from, to)` of one
 * slice's history.
 *
 * @internal
 */
export interface UptimeWindow {
  /** Window start, epoch ms, inclusive. */
  readonly from: number;
  /** Window end, epoch ms, exclusive. */
  readonly to: number;
  /**
   * The status in force at `from`: the status of the last run before the
   * window, if there was one. Runs before `from` may also be given in
   * `runs`; the latest of them then wins over this.
   */
  readonly statusAtStart?: HealthStatus | string | null;
  /** The slice's runs and pause markers, in any order. */
  readonly runs: readonly HistoryRun[];
  /**
   * Spans of maintenance (epoch ms, `[startMs, endMs)`), disjoint: their
   * time counts as maintenance instead of the status in force.
   */
  readonly maintenance?: ReadonlyArray<{ startMs: number; endMs: number }>;
}

const STATUSES: ReadonlySet<string> = new Set<HealthStatus>([
  'healthy',
  'degraded',
  'unhealthy',
  'unknown',
  'paused',
]);

/**
 * A stored status as a {@link HealthStatus}; `unknown` for one that is not
 * (null, or a value this version does not know).
 *
 * @internal
 */
export function toHistoryStatus(
  status: HealthStatus | string | null | undefined,
): HealthStatus {
  return status !== null && status !== undefined && STATUSES.has(status)
    ? (status as HealthStatus)
    : 'unknown';
}

/**
 * `up / (up + down)`, or undefined when there is no up or down time.
 *
 * @internal
 */
export function uptimeRatio(
  upSeconds: number,
  downSeconds: number,
): number | undefined {
  const known = upSeconds + downSeconds;
  return known > 0 ? upSeconds / known : undefined;
}

/**
 * Runs ordered by `startedAt`, keeping the given order among equal times
 * (the later of two runs at one instant wins).
 *
 * @internal
 */
export function sortRunsByStart<TRun extends HistoryRun>(
  runs: readonly TRun[],
): TRun[] {
  return runs
    .map((run, index) => ({ run, index }))
    .sort((a, b) => a.run.startedAt - b.run.startedAt || a.index - b.index)
    .map(entry => entry.run);
}

/**
 * Time-weighted up-time of one slice over `[from, to)`.
 *
 * The rules:
 *
 * - A run's status holds from its `startedAt` until the next run's, however
 *   long the gap: the time between runs counts as the state the runs say.
 * - `healthy` and `degraded` are up, `unhealthy` is down, `paused` is paused
 *   and `unknown` (or anything else) is unknown.
 * - Before the first known status (no `statusAtStart` and no earlier run)
 *   the time is unknown.
 * - A pause marker makes the time until the next real run paused; paused and
 *   unknown time count neither for nor against up-time.
 * - Time inside a maintenance span counts as maintenance, neither for nor
 *   against up-time either, whatever the status (which stays true: a run
 *   in maintenance still sets the status after the span).
 * - Runs outside the window only matter through the status they leave: runs
 *   before `from` set the status at `from`, runs at or after `to` are
 *   ignored. An interval that crosses a boundary counts only its part
 *   inside the window.
 *
 * An empty or inverted window gives all zeros (and still reports the status
 * the runs before it leave).
 *
 * @internal
 */
export function timeWeightedUptime(window: UptimeWindow): TimeWeightedUptime {
  const { from, to } = window;
  if (!Number.isFinite(from) || !Number.isFinite(to)) {
    throw new TypeError(`A window needs finite bounds, got [${from}, ${to})`);
  }
  const ms: Record<'up' | 'down' | 'unknown' | 'paused', number> = {
    up: 0,
    down: 0,
    unknown: 0,
    paused: 0,
  };
  let maintenanceMs = 0;
  const maintenance = window.maintenance ?? [];
  let current: HealthStatus | undefined =
    window.statusAtStart === undefined || window.statusAtStart === null
      ? undefined
      : toHistoryStatus(window.statusAtStart);
  let statusAtStart = current;
  let cursor = from;

  const add = (until: number) => {
    if (until > cursor) {
      let inMaintenance = 0;
      for (const span of maintenance) {
        inMaintenance += Math.max(
          0,
          Math.min(until, span.endMs) - Math.max(cursor, span.startMs),
        );
      }
      maintenanceMs += inMaintenance;
      ms[bucketOf(current)] += until - cursor - inMaintenance;
      cursor = until;
    }
  };

  for (const run of sortRunsByStart(window.runs)) {
    if (run.startedAt >= to) {
      break;
    }
    if (run.startedAt < from) {
      current = toHistoryStatus(run.status);
      statusAtStart = current;
      continue;
    }
    add(run.startedAt);
    current = toHistoryStatus(run.status);
  }
  add(to);

  const upSeconds = ms.up / 1000;
  const downSeconds = ms.down / 1000;
  return {
    upSeconds,
    downSeconds,
    unknownSeconds: ms.unknown / 1000,
    pausedSeconds: ms.paused / 1000,
    ...(window.maintenance && { maintenanceSeconds: maintenanceMs / 1000 }),
    uptime: uptimeRatio(upSeconds, downSeconds),
    statusAtStart,
    statusAtEnd: current,
  };
}

function bucketOf(
  status: HealthStatus | undefined,
): 'up' | 'down' | 'unknown' | 'paused' {
  switch (status) {
    case 'healthy':
    case 'degraded':
      return 'up';
    case 'unhealthy':
      return 'down';
    case 'paused':
      return 'paused';
    default:
      return 'unknown';
  }
}
