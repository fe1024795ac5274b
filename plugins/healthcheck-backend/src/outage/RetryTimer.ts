/**
 * One pending retry at a time: `arm` sets it unless one is set or the
 * timer was stopped, and it runs `retry` once after `delayMs`. Unreffed, so
 * a retry pending never keeps the process alive.
 * @internal
 */
export class RetryTimer {
  readonly #delayMs: number;
  readonly #retry: () => void;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(delayMs: number, retry: () => void) {
    this.#delayMs = delayMs;
    this.#retry = retry;
  }

  arm(): void {
    if (this.#timer !== undefined || this.#stopped) {
      return;
    }
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#retry();
    }, this.#delayMs);
    this.#timer.unref?.();
  }

  /** Cancels the retry pending, and arms no more. */
  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }
}
