/**
 * A read whose answer serves every caller for `refreshMs`, then is read
 * again; a read that fails is not kept, so the next caller tries again.
 * The maintenance calendar and the objective admission read and judge the
 * catalog's windows and objectives through one each.
 * @internal
 */
export class CachedRead<T> {
  readonly #read: () => Promise<T>;
  readonly #now: () => number;
  readonly #refreshMs: number;
  #cache?: { readAt: number; value: Promise<T> };

  constructor(
    read: () => Promise<T>,
    options: { now: () => number; refreshMs: number },
  ) {
    this.#read = read;
    this.#now = options.now;
    this.#refreshMs = options.refreshMs;
  }

  /** The answer of the last read, or of a new one when it is too old. */
  async get(): Promise<T> {
    const now = this.#now();
    if (!this.#cache || now - this.#cache.readAt >= this.#refreshMs) {
      const value = this.#read();
      this.#cache = { readAt: now, value };
      value.catch(() => {
        if (this.#cache?.value === value) this.#cache = undefined;
      });
    }
    return await this.#cache.value;
  }

  /** Reads again at the next call. */
  invalidate(): void {
    this.#cache = undefined;
  }
}
