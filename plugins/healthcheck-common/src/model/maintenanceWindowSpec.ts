/**
 * A maintenance window: when the slices it covers are in planned
 * maintenance. Probing goes on and statuses stay true; their notifications
 * wait for the window's end, and the time counts as neither up nor down.
 *
 * What it covers: the slices of the named `systems` (all their checks, or
 * only the named `checks`), or of the named `checks` on every system they
 * are assigned to; only the named `environments` when present.
 *
 * When: one-off, from `start` to `end`; or recurring, an `rrule` (RFC 5545)
 * or a `cron` expression, each occurrence lasting `duration`. Times without
 * an offset are wall-clock times in `timezone`, as is the recurrence; for a
 * recurring window `start` anchors the rule (its DTSTART, default the
 * first moment of 2000 in the zone) and `end` is the last moment an
 * occurrence may begin.
 * @public
 */
export interface MaintenanceWindowSpec {
  /** Refs of the systems covered; the kind defaults to System. */
  systems?: string[];
  /** Refs of the HealthCheck entities covered; the kind defaults to HealthCheck. */
  checks?: string[];
  /** Only these environments, when present; environment names. */
  environments?: string[];
  /** The IANA time zone of wall-clock times and of the recurrence. Default `UTC`. */
  timezone?: string;
  /** ISO 8601 date-time: the window's start, or the recurrence's anchor. */
  start?: string;
  /** ISO 8601 date-time: the window's end, or the last start of a recurrence. */
  end?: string;
  /** An RFC 5545 recurrence rule, such as `FREQ=WEEKLY;BYDAY=SU;BYHOUR=2`. */
  rrule?: string;
  /** A cron expression (5 fields, or 6 with seconds first), such as `0 2 * * 0`. */
  cron?: string;
  /** How long each occurrence of a recurring window lasts, such as `1h`. */
  duration?: string;
  /** What the maintenance is for, shown with the window. */
  reason?: string;
  /**
   * Who declares the window: a Group or User ref (kind Group and the
   * window's namespace by default). The window covers only the systems and
   * checks this owner owns, unless `healthcheck.checks.fromCatalog` is `any`.
   */
  owner?: string;
}

/**
 * The bounds of a maintenance window spec: every team's catalog files
 * become windows, so every size and count has one.
 * @public
 */
export const MAINTENANCE_WINDOW_LIMITS = {
  systems: 50,
  checks: 50,
  environments: 50,
  /** Characters of an entity ref, a rule or a time zone. */
  textLength: 255,
  /** Characters of the reason. */
  reasonLength: 1000,
  /** The longest one occurrence of a recurring window may last: 7 days. */
  maxOccurrenceMs: 7 * 24 * 3_600_000,
  /** The longest a one-off window may last: 31 days. */
  maxOneOffMs: 31 * 24 * 3_600_000,
} as const;

/**
 * The time zone of a window that names none.
 * @public
 */
export const DEFAULT_MAINTENANCE_TIMEZONE = 'UTC';
