import type { SchedulerClock, TimerHandle } from '../types';

interface FakeTimer {
  id: number;
  fireAt: number;
  callback: () => void;
}

const MAX_CALLBACKS_PER_ADVANCE = 1_000_000;

/** Lets pending promise callbacks (and what they chain) run. */
export async function flushPromises(): Promise<void> {
  for (let i = 0; i < 5; i++) {
    await new Promise<void>(resolve => setImmediate(resolve));
  }
}

/**
 * A clock for tests: time moves only when the test says so, timers fire in
 * due order, and `fireEarlyMs` makes timers fire up to that much before
 * their time, the way Node's can.
 */
export class FakeClock implements SchedulerClock {
  #now: number;
  #nextId = 1;
  readonly #timers = new Map<number, FakeTimer>();
  readonly #fireEarlyMs: number;
  /** Every delay passed to `setTimer`, in order. */
  readonly requestedDelays: number[] = [];

  constructor(startMs: number, options: { fireEarlyMs?: number } = {}) {
    this.#now = startMs;
    this.#fireEarlyMs = options.fireEarlyMs ?? 0;
  }

  now(): number {
    return this.#now;
  }

  setTimer(callback: () => void, delayMs: number): TimerHandle {
    this.requestedDelays.push(delayMs);
    const early = Math.min(this.#fireEarlyMs, delayMs / 2);
    const id = this.#nextId++;
    this.#timers.set(id, { id, fireAt: this.#now + delayMs - early, callback });
    return id;
  }

  clearTimer(handle: TimerHandle): void {
    this.#timers.delete(handle as number);
  }

  get pendingTimers(): number {
    return this.#timers.size;
  }

  /** Moves time forward, firing each timer at its time and settling promises after each. */
  async advance(ms: number): Promise<void> {
    await this.advanceTo(this.#now + ms);
  }

  async advanceTo(target: number): Promise<void> {
    for (let fired = 0; ; fired++) {
      // Promise callbacks always run before the next timer, as in Node.
      await flushPromises();
      if (fired > MAX_CALLBACKS_PER_ADVANCE) {
        throw new Error(
          'FakeClock: timers keep re-arming without time passing',
        );
      }
      let next: FakeTimer | undefined;
      for (const timer of this.#timers.values()) {
        if (
          timer.fireAt <= target &&
          (!next ||
            timer.fireAt < next.fireAt ||
            (timer.fireAt === next.fireAt && timer.id < next.id))
        ) {
          next = timer;
        }
      }
      if (!next) {
        break;
      }
      this.#timers.delete(next.id);
      this.#now = Math.max(this.#now, next.fireAt);
      next.callback();
    }
    this.#now = Math.max(this.#now, target);
    await flushPromises();
  }

  /**
   * Steps the wall clock (NTP, a VM resume) while timers, which run on a
   * monotonic clock, still fire after the same elapsed time.
   */
  stepWallClock(ms: number): void {
    this.#now += ms;
    for (const timer of this.#timers.values()) {
      timer.fireAt += ms;
    }
  }

  /**
   * Moves time without running anything, as a blocked event loop or a paused
   * container experiences it; the overdue timers run on the next `advance`.
   */
  jump(ms: number): void {
    this.#now += ms;
  }
}
