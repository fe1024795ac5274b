import type { MaintenanceWindow } from './maintenanceWindows';

/**
 * One occurrence of a window: in force over `[startMs, endMs)`.
 * @internal
 */
export interface WindowOccurrence {
  windowId: string;
  startMs: number;
  endMs: number;
  reason?: string;
}

/** How far ahead {@link nextWindow} looks by default: a year and a day. */
const DEFAULT_HORIZON_MS = 366 * 24 * 3_600_000;

/** Occurrences read per window per search: a bound on any one call. */
const MAX_OCCURRENCES_PER_WINDOW = 1_000;

/**
 * The occurrences of one window that overlap `[fromMs, toMs)`, in order.
 * @internal
 */
export function occurrencesBetween(
  window: MaintenanceWindow,
  fromMs: number,
  toMs: number,
  limit: number = MAX_OCCURRENCES_PER_WINDOW,
): WindowOccurrence[] {
  const { schedule } = window;
  const occurrence = (startMs: number, endMs: number): WindowOccurrence => ({
    windowId: window.id,
    startMs,
    endMs,
    ...(window.reason !== undefined && { reason: window.reason }),
  });
  if (schedule.kind === 'once') {
    return schedule.startMs < toMs && schedule.endMs > fromMs
      ? [occurrence(schedule.startMs, schedule.endMs)]
      : [];
  }
  // An occurrence overlaps when it starts before `to` and ends after `from`.
  const earliest = Math.max(
    fromMs - schedule.durationMs + 1,
    schedule.fromMs ?? -Infinity,
  );
  const latest = Math.min(toMs - 1, schedule.untilMs ?? Infinity);
  if (earliest > latest) {
    return [];
  }
  return schedule.recurrence
    .startsBetween(earliest, latest, limit)
    .map(startMs => occurrence(startMs, startMs + schedule.durationMs));
}

/**
 * The occurrences in force at an instant, of all the windows given (the
 * caller picks the windows that cover a slice), earliest start first.
 * @internal
 */
export function windowsActiveAt(
  windows: readonly MaintenanceWindow[],
  atMs: number,
): WindowOccurrence[] {
  return windows
    .flatMap(window => occurrencesBetween(window, atMs, atMs + 1))
    .sort(byStart);
}

/**
 * The first occurrence of any of the windows that starts after an instant,
 * within `horizonMs`; `undefined` when none does.
 * @internal
 */
export function nextWindow(
  windows: readonly MaintenanceWindow[],
  afterMs: number,
  horizonMs: number = DEFAULT_HORIZON_MS,
): WindowOccurrence | undefined {
  let best: WindowOccurrence | undefined;
  for (const window of windows) {
    // Search near first: most windows recur daily or weekly.
    for (let span = 8 * 24 * 3_600_000; ; span *= 8) {
      const until = afterMs + Math.min(span, horizonMs);
      const found = occurrencesBetween(window, afterMs + 1, until, 1_000).find(
        o => o.startMs > afterMs,
      );
      if (found) {
        if (!best || found.startMs < best.startMs) best = found;
        break;
      }
      if (span >= horizonMs) break;
    }
  }
  return best;
}

/**
 * The time covered by any of the windows within `[fromMs, toMs)`, as
 * disjoint spans in order: overlapping and touching occurrences merge.
 * For excluding maintenance from up-time.
 * @internal
 */
export function maintenanceSpans(
  windows: readonly MaintenanceWindow[],
  fromMs: number,
  toMs: number,
): Array<{ startMs: number; endMs: number }> {
  const occurrences = windows
    .flatMap(window => occurrencesBetween(window, fromMs, toMs))
    .sort(byStart);
  const spans: Array<{ startMs: number; endMs: number }> = [];
  for (const { startMs, endMs } of occurrences) {
    const start = Math.max(startMs, fromMs);
    const end = Math.min(endMs, toMs);
    const last = spans[spans.length - 1];
    if (last && start <= last.endMs) {
      last.endMs = Math.max(last.endMs, end);
    } else {
      spans.push({ startMs: start, endMs: end });
    }
  }
  return spans;
}

function byStart(a: WindowOccurrence, b: WindowOccurrence) {
  return a.startMs - b.startMs || a.endMs - b.endMs;
}
