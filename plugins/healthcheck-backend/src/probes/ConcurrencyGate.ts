/**
 * What a {@link ConcurrencyGate} holds now and has done since it was made.
 * @internal
 */
export interface ConcurrencyGateStats {
  readonly active: number;
  readonly queued: number;
  /** The most ever active at once. */
  readonly peakActive: number;
  /** Turned away because the queue was full. */
  readonly rejected: number;
}

/**
 * At most `maxActive` tasks at once, at most `maxQueued` waiting for a
 * turn in arrival order, and none beyond: a task that finds the queue full is
 * turned away at once, so a flood costs a refusal each, not memory.
 * @internal
 */
export class ConcurrencyGate {
  readonly #maxActive: number;
  readonly #maxQueued: number;
  /** Insertion-ordered; a task that gives up waiting leaves in O(1). */
  readonly #waiting = new Set<() => void>();
  #active = 0;
  #peakActive = 0;
  #rejected = 0;

  constructor(limits: { maxActive: number; maxQueued: number }) {
    if (!(limits.maxActive >= 1) || !(limits.maxQueued >= 0)) {
      throw new RangeError(
        `A gate needs maxActive of at least 1 and maxQueued of at least 0, got ${limits.maxActive} and ${limits.maxQueued}`,
      );
    }
    this.#maxActive = limits.maxActive;
    this.#maxQueued = limits.maxQueued;
  }

  /**
   * Calls `start` now if a slot is free, or once one is. `admitted` is
   * false when the queue is full: `start` is never called. After `start` has
   * been called, its task must call {@link ConcurrencyGate.release} once.
   * `withdraw` takes a task that is still waiting out of the queue (and says
   * whether it was).
   */
  enter(start: () => void): { admitted: boolean; withdraw(): boolean } {
    if (this.#active < this.#maxActive) {
      this.#begin(start);
      return { admitted: true, withdraw: () => false };
    }
    if (this.#waiting.size >= this.#maxQueued) {
      this.#rejected++;
      return { admitted: false, withdraw: () => false };
    }
    this.#waiting.add(start);
    return { admitted: true, withdraw: () => this.#waiting.delete(start) };
  }

  /** Frees a slot, and gives it to the longest-waiting task. */
  release(): void {
    this.#active--;
    const [next] = this.#waiting;
    if (next) {
      this.#waiting.delete(next);
      this.#begin(next);
    }
  }

  stats(): ConcurrencyGateStats {
    return {
      active: this.#active,
      queued: this.#waiting.size,
      peakActive: this.#peakActive,
      rejected: this.#rejected,
    };
  }

  #begin(start: () => void): void {
    this.#active++;
    this.#peakActive = Math.max(this.#peakActive, this.#active);
    start();
  }
}
