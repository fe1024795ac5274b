import type { SchedulerClock, TimerHandle } from './types';

/** Node clamps larger delays to 1 ms; longer waits simply re-arm. */
export const MAX_TIMER_DELAY_MS = 2_147_483_647;

type NodeTimeout = ReturnType<typeof setTimeout>;
type NodeImmediate = ReturnType<typeof setImmediate>;

function isTimeout(handle: TimerHandle): handle is NodeTimeout {
  return typeof (handle as NodeTimeout | undefined)?.refresh === 'function';
}

/**
 * The wall clock (the grid is shared across instances, so it must be the
 * clock they share) and Node timers. A zero delay runs on `setImmediate`, as
 * `setTimeout(0)` would wait a whole millisecond. Timeouts are unref'd: the
 * scheduler never keeps a process alive on its own. Immediates are not: an
 * unref'd immediate lets the event loop block in poll and run it late.
 *
 * @internal
 */
export const systemClock: SchedulerClock = {
  now: () => Date.now(),
  setTimer(callback: () => void, delayMs: number): TimerHandle {
    if (delayMs <= 0) {
      return setImmediate(callback);
    }
    return setTimeout(callback, Math.min(delayMs, MAX_TIMER_DELAY_MS)).unref();
  },
  clearTimer(handle: TimerHandle): void {
    if (isTimeout(handle)) {
      clearTimeout(handle);
    } else if (handle) {
      clearImmediate(handle as NodeImmediate);
    }
  },
};
