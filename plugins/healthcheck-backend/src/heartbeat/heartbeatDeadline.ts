import type { ProbeResult } from '@vigil/plugin-healthcheck-node';
import { maintenanceRecurrenceOf } from '@vigil/plugin-healthcheck-node';
import { type HeartbeatTiming } from '@vigil/plugin-healthcheck-common';

/** How far a schedule is searched for its next occurrence: a yearly job's. */
const SCHEDULE_HORIZON_MS = 400 * 24 * 3_600_000;

/**
 * When a slice that last heard from its job at `since` fails without
 * another ping: `since` + period + grace, or the schedule's next occurrence
 * after `since` (in its time zone) + grace. Infinity for a schedule that
 * never occurs within 400 days.
 */
export function heartbeatDeadline(
  timing: HeartbeatTiming,
  since: number,
): number {
  if (timing.periodMs !== undefined) {
    return since + timing.periodMs + timing.graceMs;
  }
  const [next] = maintenanceRecurrenceOf({
    cron: timing.schedule!,
    timezone: timing.timezone,
  })!.startsBetween(since + 1, since + SCHEDULE_HORIZON_MS, 1);
  return next === undefined ? Infinity : next + timing.graceMs;
}

/** What the database holds of a heartbeat slice's pings (epoch ms). */
export interface HeartbeatSignals {
  armedAt: number;
  lastPingAt?: number;
  lastStartAt?: number;
  lastFailAt?: number;
  lastDurationMs?: number;
  lastMessage?: string;
}

/**
 * What a heartbeat slice's tick observed, as a probe result, so it goes
 * through the same judgement as any probe: the last signal was a failure
 * (an error with the job's message); the deadline passed without a ping (a
 * timeout); or the job is on time (ok, with the duration of its last run
 * as the response time).
 */
export function observeHeartbeat(
  signals: HeartbeatSignals,
  timing: HeartbeatTiming,
  now: number,
): ProbeResult {
  const lastSuccess = signals.lastPingAt;
  if (
    signals.lastFailAt !== undefined &&
    (lastSuccess === undefined || signals.lastFailAt >= lastSuccess)
  ) {
    return {
      ok: false,
      durationMs: 0,
      error: {
        kind: 'other',
        message: `The job reported a failure at ${iso(signals.lastFailAt)}${
          signals.lastMessage ? `: ${signals.lastMessage}` : ''
        }`,
      },
    };
  }
  const since = lastSuccess ?? signals.armedAt;
  const deadline = heartbeatDeadline(timing, since);
  if (now > deadline) {
    return {
      ok: false,
      durationMs: 0,
      error: {
        kind: 'timeout',
        message: `${
          lastSuccess === undefined
            ? `No ping since the ping URL was made at ${iso(since)}`
            : `No ping since ${iso(since)}`
        }; one was due by ${iso(deadline)} (grace included)`,
      },
    };
  }
  return {
    ok: true,
    durationMs: signals.lastDurationMs ?? 0,
    ...(signals.lastMessage ? { body: signals.lastMessage } : {}),
  };
}

function iso(at: number): string {
  return new Date(at).toISOString();
}
