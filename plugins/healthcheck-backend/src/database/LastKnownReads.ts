import type { LoggerService } from '@backstage/backend-plugin-api';
import { ServiceUnavailableError } from '@backstage/errors';
import { LRUCache } from 'lru-cache';
import { answerWithin } from './answerWithin';

/**
 * How long a read may take before the last known value answers instead.
 * @internal
 */
export const LAST_KNOWN_READ_DEADLINE_MS = 5_000;

function isPromiseLike<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as Promise<T> | undefined)?.then === 'function';
}

/**
 * A value as read, or as last read when the database could not be read.
 * @internal
 */
export interface Known<V> {
  value: V;
  /** True when the read failed and `value` is the last one read. */
  stale: boolean;
}

/**
 * Reads that degrade instead of failing while the database cannot be read:
 * each read that answers is remembered per key, and a read that fails, or
 * does not answer within the deadline, answers the last value remembered
 * for its key, marked stale. A late answer is still remembered. With
 * nothing remembered, a 503 (`ServiceUnavailableError`).
 *
 * Remembers at most `max` keys, the least recently read dropped first. Logs
 * once when reads start failing and once when they answer again.
 * @internal
 */
export class LastKnownReads<V> {
  readonly #values: LRUCache<string, { value: V }>;
  readonly #what: string;
  readonly #deadlineMs: number;
  readonly #logger?: LoggerService;
  #failing = false;

  constructor(options: {
    /** What is read, for messages: `rollup`, `checks`. */
    what: string;
    max: number;
    deadlineMs?: number;
    logger?: LoggerService;
  }) {
    this.#what = options.what;
    this.#values = new LRUCache({ max: options.max });
    this.#deadlineMs = options.deadlineMs ?? LAST_KNOWN_READ_DEADLINE_MS;
    this.#logger = options.logger;
  }

  /** Remembers a value known otherwise (one just written). */
  remember(key: string, value: V): void {
    this.#values.set(key, { value });
  }

  /**
   * Reads one key. A read that answers at once (from memory, not a
   * promise) is remembered and answered without a deadline: a timer per
   * read of memory costs more than the read.
   * @throws ServiceUnavailableError when the read fails and nothing is
   *   remembered of the key
   */
  async read(key: string, read: () => V | Promise<V>): Promise<Known<V>> {
    try {
      const reading = read();
      if (!isPromiseLike(reading)) {
        this.remember(key, reading);
        this.#answering();
        return { value: reading, stale: false };
      }
      const value = await this.#withDeadline(reading, found =>
        this.remember(key, found),
      );
      this.#answering();
      return { value, stale: false };
    } catch (error) {
      this.#notAnswering(error);
      const known = this.#values.get(key);
      if (!known) {
        throw new ServiceUnavailableError(
          `The database cannot be read, and no ${
            this.#what
          } of ${key} is known`,
          error,
        );
      }
      return { value: known.value, stale: true };
    }
  }

  /**
   * Reads many keys at once; `absent` is the value of a key the read does
   * not return. When the read fails, answers the keys remembered, stale.
   * @throws ServiceUnavailableError when the read fails and nothing is
   *   remembered of any key
   */
  async readMany(
    keys: readonly string[],
    readMany: () => Promise<ReadonlyMap<string, V>>,
    absent: V,
  ): Promise<{ values: Map<string, V>; stale: boolean }> {
    try {
      const found = await this.#withDeadline(readMany(), late =>
        keys.forEach(key => this.remember(key, late.get(key) ?? absent)),
      );
      this.#answering();
      return {
        values: new Map(keys.map(key => [key, found.get(key) ?? absent])),
        stale: false,
      };
    } catch (error) {
      this.#notAnswering(error);
      const values = new Map<string, V>();
      for (const key of keys) {
        const known = this.#values.get(key);
        if (known) {
          values.set(key, known.value);
        }
      }
      if (values.size === 0 && keys.length > 0) {
        throw new ServiceUnavailableError(
          `The database cannot be read, and no ${this.#what} of these is known`,
          error,
        );
      }
      return { values, stale: true };
    }
  }

  /**
   * The read's answer, or an error after the deadline; `remember` gets the
   * answer whenever it comes.
   */
  async #withDeadline<T>(
    read: Promise<T>,
    remember: (value: T) => void,
  ): Promise<T> {
    const remembered = read.then(value => {
      remember(value);
      return value;
    });
    return await answerWithin(
      remembered,
      this.#deadlineMs,
      `The database did not answer within ${this.#deadlineMs} ms`,
    );
  }

  #answering(): void {
    if (this.#failing) {
      this.#failing = false;
      this.#logger?.info(`The database answers reads of ${this.#what} again`);
    }
  }

  #notAnswering(error: unknown): void {
    if (!this.#failing) {
      this.#failing = true;
      this.#logger?.warn(
        `The database cannot be read; answering the last ${
          this.#what
        } read, marked stale, until it can`,
        error as Error,
      );
    }
  }
}
