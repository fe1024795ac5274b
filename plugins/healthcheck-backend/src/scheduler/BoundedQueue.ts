interface WaitingProducer<T> {
  item: T;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * A FIFO with a fixed capacity whose producers wait when it is full, so a
 * consumer that falls behind turns into back pressure instead of a growing
 * buffer. The consumer takes items synchronously; `onAvailable` tells it when
 * an item arrives in an empty queue.
 *
 * @internal
 */
export class BoundedQueue<T> {
  readonly #capacity: number;
  readonly #onAvailable: () => void;
  readonly #items: T[] = [];
  readonly #waiting: WaitingProducer<T>[] = [];
  #closedWith: Error | undefined;

  constructor(options: { capacity: number; onAvailable?: () => void }) {
    if (!(options.capacity >= 1)) {
      throw new RangeError(
        `Queue capacity must be at least 1, got ${options.capacity}`,
      );
    }
    this.#capacity = options.capacity;
    this.#onAvailable = options.onAvailable ?? (() => {});
  }

  /** Items ready to take (not counting producers still waiting). */
  get length(): number {
    return this.#items.length;
  }

  /** Producers waiting for room. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Resolves once the item is in the queue; waits while the queue is full. */
  put(item: T): Promise<void> {
    if (this.#closedWith) {
      return Promise.reject(this.#closedWith);
    }
    if (this.#items.length < this.#capacity) {
      this.#items.push(item);
      if (this.#items.length === 1) {
        this.#onAvailable();
      }
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      this.#waiting.push({ item, resolve, reject });
    });
  }

  /** The oldest item, or `undefined`; lets the longest-waiting producer in. */
  take(): T | undefined {
    const item = this.#items.shift();
    const producer = this.#waiting.shift();
    if (producer) {
      this.#items.push(producer.item);
      producer.resolve();
    }
    return item;
  }

  /** Rejects waiting and future producers; items already queued stay takeable. */
  close(reason: Error): void {
    this.#closedWith = reason;
    for (const producer of this.#waiting.splice(0)) {
      producer.reject(reason);
    }
  }
}
