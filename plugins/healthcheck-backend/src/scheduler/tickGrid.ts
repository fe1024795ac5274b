/**
 * Pure timing decisions of the scheduler: where a slice sits on its grid, when
 * its first probe comes, what its next tick is. No clock, no state: every
 * function maps numbers to numbers.
 *
 * Times are Unix epoch milliseconds. A slice with interval `I` and offset `o`
 * fires at the grid points `k * I + o`; the grid is anchored to the epoch, not
 * to process start, so every backend instance and every restart computes the
 * same points.
 */

import { stableHash } from '../hashing/stableHash';

/** The first probe of a new slice comes within this, or half its interval. */
export const FIRST_PROBE_WINDOW_CAP_MS = 5_000;

/**
 * The slice's fixed place inside its interval, in `[0, intervalMs)`: the grid
 * is `k * intervalMs + offset`. Hashed from the slice id, never from the
 * target, so two slices probing one URL do not fire together.
 *
 * @param sliceHash - `stableHash(sliceId)`, when the caller has it already
 * @internal
 */
export function staggerOffsetMs(
  sliceId: string,
  intervalMs: number,
  sliceHash: number = stableHash(sliceId),
): number {
  if (!(intervalMs >= 1)) {
    return 0;
  }
  return sliceHash % Math.floor(intervalMs);
}

/**
 * How soon a new slice probes first: `min(5 s, interval / 2)`, so a fast
 * slice's first probe never lands after its second grid tick would.
 *
 * @internal
 */
export function firstProbeWindowMs(
  intervalMs: number,
  capMs: number = FIRST_PROBE_WINDOW_CAP_MS,
): number {
  return Math.min(capMs, Math.floor(intervalMs / 2));
}

/**
 * The first grid point at or after `time`.
 *
 * @internal
 */
export function gridPointAtOrAfter(
  time: number,
  intervalMs: number,
  offsetMs: number,
): number {
  const phase = (((time - offsetMs) % intervalMs) + intervalMs) % intervalMs;
  return phase === 0 ? time : time - phase + intervalMs;
}

/**
 * The tick a due time belongs to, the same on every instance: the slice's
 * grid point at or before it. Grid ticks are their own key; a first probe,
 * which falls between grid points and is computed per instance, is keyed by
 * the grid point before it, so two instances claim the same (slice, tick)
 * and it still never shares a key with the next grid tick (which comes at
 * least half an interval later).
 *
 * @internal
 */
export function claimKeyAt(
  sliceId: string,
  dueAt: number,
  intervalMs: number,
): number {
  const offset = staggerOffsetMs(sliceId, intervalMs);
  const interval = Math.max(1, Math.floor(intervalMs));
  const phase = (((dueAt - offset) % interval) + interval) % interval;
  return dueAt - phase;
}

/**
 * The first grid point strictly after `time`.
 *
 * @internal
 */
export function gridPointAfter(
  time: number,
  intervalMs: number,
  offsetMs: number,
): number {
  const phase = (((time - offsetMs) % intervalMs) + intervalMs) % intervalMs;
  return time - phase + intervalMs;
}

/**
 * When a newly scheduled slice probes first. If its grid already has a point
 * inside the first-probe window, that point it is; otherwise the first point
 * at or after now of a finer grid that splits each interval into steps no
 * longer than the window, anchored on the slice's own grid. Every instance
 * computes the same instants, so instances that load a slice at slightly
 * different times probe it first at the same instant and claim the same
 * tick (a first probe at a time of each one's own would land on both sides
 * of a grid point now and then, and probe twice). The offsets are hashed
 * from the ids, so a bulk import spreads over the window.
 *
 * @internal
 */
export function firstDueAt(
  intervalMs: number,
  offsetMs: number,
  now: number,
  windowCapMs: number = FIRST_PROBE_WINDOW_CAP_MS,
): number {
  const windowMs = firstProbeWindowMs(intervalMs, windowCapMs);
  const onGrid = gridPointAtOrAfter(now, intervalMs, offsetMs);
  if (windowMs < 1 || onGrid - now <= windowMs) {
    return onGrid;
  }
  const stepMs = Math.floor(intervalMs / Math.ceil(intervalMs / windowMs));
  const previous = onGrid - intervalMs;
  return Math.min(
    previous + Math.ceil((now - previous) / stepMs) * stepMs,
    onGrid,
  );
}

/**
 * The next tick after a tick scheduled at `scheduledAt` that ran at `now`:
 * the first grid point at least half an interval after the later of the two.
 * Computed from the grid, never by adding the interval to the run time, so
 * the phase never drifts. When the tick ran late (a stall, a paused
 * container) the backlog is skipped, not replayed, and the grid point right
 * behind the late run is skipped too, so two probes of one slice never come
 * less than half an interval apart. The same rule keeps an off-grid first
 * probe from being followed by a grid tick moments later.
 *
 * A run late by no more than timers and coalescing make it (a tenth of the
 * interval, at most a second) counts as on time: a first probe placed
 * exactly half an interval before a grid point is followed by that grid
 * tick, not by the next one, whatever milliseconds it ran late.
 *
 * @internal
 */
export function nextTick(
  scheduledAt: number,
  intervalMs: number,
  offsetMs: number,
  now: number,
): number {
  const onTimeMs = Math.min(1_000, Math.floor(intervalMs / 10));
  const ranAt = now - scheduledAt <= onTimeMs ? scheduledAt : now;
  return gridPointAtOrAfter(
    ranAt + Math.ceil(intervalMs / 2),
    intervalMs,
    offsetMs,
  );
}

/**
 * How many grid ticks `nextTick` skipped: the ticks that fell due while the
 * process was not looking (a stall, a paused container) and are not replayed.
 *
 * @internal
 */
export function missedTicks(
  scheduledAt: number,
  intervalMs: number,
  offsetMs: number,
  next: number,
): number {
  const unhurried = nextTick(scheduledAt, intervalMs, offsetMs, -Infinity);
  return Math.max(0, Math.round((next - unhurried) / intervalMs));
}
