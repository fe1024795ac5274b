import { InputError } from '@backstage/errors';
import {
  canonicalEntityRef,
  DurationParseError,
  environmentNameProblem,
  formatDuration,
  formatSpecProblems,
  HealthCheckSpecProblem,
  MAINTENANCE_WINDOW_LIMITS,
  parseDuration,
} from '@vigil/plugin-healthcheck-common';
import { canonicalCheckId } from './MaintenanceCalendar';

/** The longest window the API opens: planned downtime beyond a day belongs in Git. */
export const MAX_API_WINDOW_MS = 24 * 3_600_000;

/** How far ahead a window may be opened through the API. */
export const MAX_API_WINDOW_LEAD_MS = 31 * 24 * 3_600_000;

/** A start a little in the past is the client's clock, not a wish to rewrite history. */
const START_TOLERANCE_MS = 5 * 60_000;

/**
 * A request for a maintenance window that says what is wrong, field by field.
 * @internal
 */
export class InvalidMaintenanceWindowError extends InputError {
  readonly problems: HealthCheckSpecProblem[];

  constructor(problems: HealthCheckSpecProblem[]) {
    const lines = formatSpecProblems(problems);
    super(
      lines.length === 1
        ? `Invalid maintenance window: ${lines[0]}`
        : `Invalid maintenance window, ${lines.length} problems:\n${lines
            .map(line => `- ${line}`)
            .join('\n')}`,
    );
    this.problems = problems;
  }
}

/**
 * A request to open a window, as read.
 * @internal
 */
export interface MaintenanceWindowRequest {
  /** Canonical System ref. */
  systemRef: string;
  checks?: string[];
  environments?: string[];
  startsAt: number;
  endsAt: number;
  reason?: string;
}

/**
 * Reads `POST /v1/maintenance-windows`: the system (kind System by
 * default), from `start` (default now) for `duration`, at most a day, and
 * at most a month ahead.
 * @throws InvalidMaintenanceWindowError naming each field that is wrong.
 * @internal
 */
export function parseMaintenanceWindowRequest(
  body: {
    system: string;
    checks?: string[];
    environments?: string[];
    duration: string;
    start?: string;
    reason?: string;
  },
  now: number,
): MaintenanceWindowRequest {
  const problems: HealthCheckSpecProblem[] = [];
  const report = (path: HealthCheckSpecProblem['path'], reason: string) =>
    problems.push({ path, reason });

  const systemRef = canonicalEntityRef(body.system, { defaultKind: 'system' });
  if (!systemRef) {
    report(
      ['system'],
      `${JSON.stringify(
        body.system,
      )} is not an entity ref, such as payments or system:team-a/payments`,
    );
  } else if (!systemRef.startsWith('system:')) {
    report(
      ['system'],
      `${JSON.stringify(body.system)} refers to a ${
        systemRef.split(':')[0]
      }; a window covers a system`,
    );
  }
  body.environments?.forEach((name, index) => {
    const reason = environmentNameProblem(name);
    if (reason) report(['environments', index], reason);
  });

  let durationMs: number | undefined;
  try {
    durationMs = parseDuration(body.duration);
    if (durationMs === 0) {
      report(['duration'], 'must be longer than 0s');
    } else if (durationMs > MAX_API_WINDOW_MS) {
      report(
        ['duration'],
        `${body.duration} is longer than ${formatDuration(
          MAX_API_WINDOW_MS,
        )}; declare longer planned downtime as a MaintenanceWindow entity in Git`,
      );
    }
  } catch (error) {
    report(
      ['duration'],
      `${JSON.stringify(body.duration)} is not a duration: ${
        error instanceof DurationParseError ? error.reason : String(error)
      }`,
    );
  }

  let startsAt = now;
  if (body.start !== undefined) {
    startsAt = Date.parse(body.start);
    if (Number.isNaN(startsAt)) {
      report(
        ['start'],
        `${JSON.stringify(
          body.start,
        )} is not an ISO 8601 date-time with an offset`,
      );
    } else if (startsAt < now - START_TOLERANCE_MS) {
      report(['start'], 'is in the past; a window starts now or later');
    } else if (startsAt > now + MAX_API_WINDOW_LEAD_MS) {
      report(
        ['start'],
        `is more than ${formatDuration(MAX_API_WINDOW_LEAD_MS)} ahead`,
      );
    }
    startsAt = Math.max(startsAt, now);
  }
  if (
    body.reason !== undefined &&
    body.reason.length > MAINTENANCE_WINDOW_LIMITS.reasonLength
  ) {
    report(['reason'], 'is too long');
  }
  if (problems.length > 0 || !systemRef || durationMs === undefined) {
    throw new InvalidMaintenanceWindowError(problems);
  }
  return {
    systemRef,
    ...(body.checks && { checks: body.checks.map(canonicalCheckId) }),
    ...(body.environments && { environments: body.environments }),
    startsAt,
    endsAt: startsAt + durationMs,
    ...(body.reason !== undefined && { reason: body.reason }),
  };
}
