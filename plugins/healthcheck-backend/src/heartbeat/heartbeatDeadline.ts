import type { ProbeResult } from '@vigil/plugin-healthcheck-node';
import { maintenanceRecurrenceOf } from '@vigil/plugin-healthcheck-node';
import { type HeartbeatTiming } from '@vigil/plugin-healthcheck-common';

/** How far a schedule is searched for its next occurrence: a yearly job's. */
const SCHEDULE_HORIZON_MS = 400 * 24 * 3_600_000;

/**
 * A time (epoch ms, `from` inclusive, `to` exclusive) when Vigil could not
 * hear pings: its database was away, or no instance was running.
 */
export interface DeafSpan {
  from: number;
  to: number;
}

/**
 * When a slice that last heard from its job at `since` fails without
 * another ping: `since` + period + grace, or the schedule's next occurrence
 * after `since` (in its time zone) + grace; then moved on by every moment
 * of `deaf` after `since` and before the deadline so moved, because a ping
 * Vigil could not hear is no sign that the job missed one. Infinity for a
 * schedule that never occurs within 400 days.
 */
export function heartbeatDeadline(
  timing: HeartbeatTiming,
  since: number,
  deaf: readonly DeafSpan[] = [],
): number {
  return extendedByDeafness(scheduledDeadline(timing, since), since, deaf);
}

function scheduledDeadline(timing: HeartbeatTiming, since: number): number {
  if (timing.periodMs !== undefined) {
    return since + timing.periodMs + timing.graceMs;
  }
  const [next] = maintenanceRecurrenceOf({
    cron: timing.schedule!,
    timezone: timing.timezone,
  })!.startsBetween(since + 1, since + SCHEDULE_HORIZON_MS, 1);
  return next === undefined ? Infinity : next + timing.graceMs;
}

/**
 * The spans in order of start, overlapping or touching ones made one: the
 * same outage as each instance reports it is one span.
 */
export function mergedSpans(spans: readonly DeafSpan[]): DeafSpan[] {
  const merged: DeafSpan[] = [];
  for (const span of [...spans].sort((a, b) => a.from - b.from)) {
    const last = merged[merged.length - 1];
    if (last && span.from <= last.to) {
      last.to = Math.max(last.to, span.to);
    } else if (span.to > span.from) {
      merged.push({ from: span.from, to: span.to });
    }
  }
  return merged;
}

/**
 * The deadline once the time Vigil was deaf between `since` and it is
 * added: the moment Vigil has listened for as long as the deadline
 * allowed. Spans are walked in order; each that begins before the deadline
 * reached so far moves it by its length after `since`.
 */
export function extendedByDeafness(
  deadline: number,
  since: number,
  deaf: readonly DeafSpan[],
): number {
  let extended = deadline;
  for (const span of mergedSpans(deaf)) {
    if (!Number.isFinite(extended) || span.from >= extended) {
      break;
    }
    extended += Math.max(0, span.to - Math.max(span.from, since));
  }
  return extended;
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
  deaf: readonly DeafSpan[] = [],
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
  const scheduled = scheduledDeadline(timing, since);
  const deadline = extendedByDeafness(scheduled, since, deaf);
  if (now > deadline) {
    const deafSeconds = Math.round((deadline - scheduled) / 1000);
    return {
      ok: false,
      durationMs: 0,
      error: {
        kind: 'timeout',
        message: `${
          lastSuccess === undefined
            ? `No ping since the ping URL was made at ${iso(since)}`
            : `No ping since ${iso(since)}`
        }; one was due by ${iso(deadline)} (grace included${
          deadline > scheduled
            ? `, and ${deafSeconds} s when Vigil could not hear pings`
            : ''
        })`,
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
