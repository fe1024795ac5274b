/**
 * Group commit in the application: at most `maxInFlight` writes run at once,
 * and each write carries everything submitted while the earlier ones ran.
 *
 * A commit on PostgreSQL costs a WAL flush, a few milliseconds whatever the
 * row count, so many small batches (the scheduler's coalesced ticks are a
 * handful each) would cap throughput at commits per second. Here an isolated
 * submission is written at once, and under load submissions wait at most for
 * the writes ahead of them, then share one. A write carries at most
 * `maxItems` (whole submissions, first come first served, and always at least
 * one), so a backlog drains in bounded writes instead of one huge one.
 *
 * With `minSpacingMs`, a write starts at most once per spacing: what is
 * submitted meanwhile waits for the next. A round trip on loopback takes a
 * millisecond, so without it a steady stream (the scheduler hands over ticks
 * one by one, hundreds a second) still makes a statement of one or two items
 * each, and the statements cost more CPU, on both sides, than the work they
 * carry. A submission after a quiet spell is still written at once.
 *
 * @internal
 */
export class WriteCoalescer<TItem, TOutcome> {
  readonly #write: (items: TItem[]) => Promise<TOutcome>;
  readonly #maxInFlight: number;
  readonly #maxItems: number;
  readonly #minSpacingMs: number;
  /** When the last write started; writes start `#minSpacingMs` apart. */
  #lastStartedAt = -Infinity;
  /** Set while submissions wait for the spacing to pass. */
  #spacingTimer: NodeJS.Timeout | undefined;
  #pending: Array<{
    items: ReadonlyArray<TItem>;
    resolve: (outcome: TOutcome) => void;
    reject: (error: unknown) => void;
  }> = [];
  #inFlight = 0;

  constructor(
    write: (items: TItem[]) => Promise<TOutcome>,
    options: {
      maxInFlight?: number;
      maxItems?: number;
      /** Least time between the starts of two writes; default 0. */
      minSpacingMs?: number;
    } = {},
  ) {
    this.#write = write;
    this.#maxInFlight = requireWhole('maxInFlight', options.maxInFlight ?? 1);
    this.#maxItems = requireWhole(
      'maxItems',
      options.maxItems ?? Number.MAX_SAFE_INTEGER,
    );
    this.#minSpacingMs = options.minSpacingMs ?? 0;
    if (!(this.#minSpacingMs >= 0 && Number.isFinite(this.#minSpacingMs))) {
      throw new RangeError(
        `minSpacingMs must be a finite number of at least 0, got ${options.minSpacingMs}`,
      );
    }
  }

  /** Resolves with the outcome of the write that carried these items. */
  submit(items: ReadonlyArray<TItem>): Promise<TOutcome> {
    return new Promise<TOutcome>((resolve, reject) => {
      this.#pending.push({ items, resolve, reject });
      this.#pump();
    });
  }

  /** Writes running now; for tests and metrics. */
  get inFlight(): number {
    return this.#inFlight;
  }

  #pump(): void {
    while (this.#inFlight < this.#maxInFlight && this.#pending.length > 0) {
      if (this.#spacingTimer !== undefined) {
        return;
      }
      const now = performance.now();
      const wait = this.#lastStartedAt + this.#minSpacingMs - now;
      if (wait > 0) {
        this.#spacingTimer = setTimeout(() => {
          this.#spacingTimer = undefined;
          this.#pump();
        }, wait);
        return;
      }
      this.#lastStartedAt = now;
      const group = this.#takeGroup();
      this.#inFlight++;
      const items =
        group.length === 1
          ? [...group[0].items]
          : group.flatMap(submission => submission.items);
      // Called at once (so the write starts now), a synchronous throw included.
      new Promise<TOutcome>(resolve => resolve(this.#write(items)))
        .then(
          outcome => group.forEach(submission => submission.resolve(outcome)),
          error => group.forEach(submission => submission.reject(error)),
        )
        .finally(() => {
          this.#inFlight--;
          this.#pump();
        });
    }
  }

  /** The oldest submissions that fit in one write; at least one. */
  #takeGroup() {
    let count = 1;
    let items = this.#pending[0].items.length;
    while (
      count < this.#pending.length &&
      items + this.#pending[count].items.length <= this.#maxItems
    ) {
      items += this.#pending[count].items.length;
      count++;
    }
    return this.#pending.splice(0, count);
  }
}

function requireWhole(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new RangeError(
      `${name} must be a whole number of at least 1, got ${value}`,
    );
  }
  return value;
}
