import { parseDuration } from './duration';

/**
 * The type of a check that is pushed, not probed: a job pings its URL when
 * it runs, and a missing ping fails the slice.
 * @public
 */
export const HEARTBEAT_CHECK_TYPE = 'heartbeat';

/**
 * The time zone of a heartbeat `schedule` that names none.
 * @public
 */
export const DEFAULT_HEARTBEAT_TIMEZONE = 'UTC';

/**
 * The bounds of a heartbeat check's timing.
 * @public
 */
export const HEARTBEAT_LIMITS = {
  /** The longest period: a monthly job. */
  maxPeriodMs: 31 * 24 * 3_600_000,
  /** The longest grace: a week. */
  maxGraceMs: 7 * 24 * 3_600_000,
  /** A slice looks at its deadline at least this often... */
  maxCheckEveryMs: 60_000,
  /** ...and at most this often. */
  minCheckEveryMs: 5_000,
  /** How long reading the last ping may take. */
  timeoutMs: 5_000,
  /** Characters of a schedule or a time zone. */
  textLength: 255,
} as const;

/**
 * When a heartbeat check expects its pings: every `periodMs`, or at each
 * occurrence of the cron `schedule` in `timezone`; a ping may be `graceMs`
 * late before the slice fails.
 * @public
 */
export interface HeartbeatTiming {
  periodMs?: number;
  schedule?: string;
  timezone: string;
  graceMs: number;
}

/**
 * Whether a spec is a heartbeat check's.
 * @public
 */
export function isHeartbeatSpec(spec: { type?: unknown }): boolean {
  return spec.type === HEARTBEAT_CHECK_TYPE;
}

/**
 * The timing of a heartbeat check's spec.
 * @throws DurationParseError when a duration does not parse; validate first.
 * @public
 */
export function heartbeatTimingOf(spec: {
  period?: string;
  grace?: string;
  schedule?: string;
  timezone?: string;
}): HeartbeatTiming {
  return {
    periodMs:
      spec.period === undefined ? undefined : parseDuration(spec.period),
    schedule: spec.schedule,
    timezone: spec.timezone ?? DEFAULT_HEARTBEAT_TIMEZONE,
    graceMs: parseDuration(spec.grace ?? '0s'),
  };
}

/**
 * How often a heartbeat slice looks at its deadline: every grace, within
 * [5s, 1m], so a missed ping is declared at most that long after its
 * deadline, and a long grace does not leave a dead job unseen for hours.
 * @public
 */
export function heartbeatCheckEveryMs(graceMs: number): number {
  return Math.min(
    HEARTBEAT_LIMITS.maxCheckEveryMs,
    Math.max(HEARTBEAT_LIMITS.minCheckEveryMs, graceMs),
  );
}
