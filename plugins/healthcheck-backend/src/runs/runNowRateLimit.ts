import type { Config } from '@backstage/config';
import { CustomErrorBase, InputError } from '@backstage/errors';
import { LRUCache } from 'lru-cache';

const MINUTE_MS = 60_000;

/** Callers whose buckets are kept; beyond them the least recent is forgotten. */
const MAX_CALLERS = 10_000;

/**
 * How often one caller may ask to run checks now.
 * @internal
 */
export interface RunNowRateSettings {
  /**
   * Requests a minute, steady; a caller who waited may send this many at
   * once (the bucket holds as many tokens as a minute refills).
   */
  readonly perCallerPerMinute: number;
}

/** @internal */
export const DEFAULT_RUN_NOW_RATE: RunNowRateSettings = Object.freeze({
  perCallerPerMinute: 6,
});

/**
 * One caller's token bucket: how many tokens it held at `updatedAt`.
 * @internal
 */
export interface TokenBucket {
  readonly tokens: number;
  readonly updatedAt: number;
}

/**
 * Takes one token from a bucket (a full one when there is none yet), after
 * refilling it for the time since it was last touched. Pure.
 * @internal
 */
export function takeToken(
  bucket: TokenBucket | undefined,
  now: number,
  settings: RunNowRateSettings,
):
  | { allowed: true; bucket: TokenBucket }
  | { allowed: false; bucket: TokenBucket; retryAfterMs: number } {
  const capacity = settings.perCallerPerMinute;
  const perMs = capacity / MINUTE_MS;
  const elapsed = bucket ? Math.max(0, now - bucket.updatedAt) : 0;
  const tokens = bucket
    ? Math.min(capacity, bucket.tokens + elapsed * perMs)
    : capacity;
  if (tokens >= 1) {
    return { allowed: true, bucket: { tokens: tokens - 1, updatedAt: now } };
  }
  return {
    allowed: false,
    bucket: { tokens, updatedAt: now },
    retryAfterMs: Math.ceil((1 - tokens) / perMs),
  };
}

/**
 * Too many requests: 429, with when to try again (Backstage's error
 * middleware answers with `statusCode`; the route sets `Retry-After`).
 * @internal
 */
export class TooManyRequestsError extends CustomErrorBase {
  name = 'TooManyRequestsError' as const;
  readonly statusCode = 429;
  /** Whole seconds, at least 1, for `Retry-After`. */
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterMs: number) {
    super(message);
    // An expected answer, not a fault: a flood of them should not each pay
    // for a stack trace that the error middleware formats and throws away.
    this.stack = `${this.name}: ${this.message}`;
    this.retryAfterSeconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  }
}

/**
 * A small token bucket per caller (a user entity ref or a service subject)
 * for run now: each request takes a token, and one comes back every
 * `60 / perCallerPerMinute` seconds. Buckets are kept for at most 10,000
 * callers, and one untouched for a minute is full again and is dropped (it
 * is the same as none).
 * @internal
 */
export class RunNowRateLimiter {
  readonly #settings: RunNowRateSettings;
  readonly #now: () => number;
  readonly #buckets: LRUCache<string, TokenBucket>;

  constructor(
    settings: RunNowRateSettings = DEFAULT_RUN_NOW_RATE,
    options: { clock?: { now(): number } } = {},
  ) {
    this.#settings = settings;
    const clock = options.clock ?? Date;
    this.#now = () => clock.now();
    this.#buckets = new LRUCache({
      max: MAX_CALLERS,
      ttl: MINUTE_MS,
      perf: { now: () => this.#now() },
    });
  }

  /** Buckets held now, once those untouched for a minute are dropped. */
  get size(): number {
    this.#buckets.purgeStale();
    return this.#buckets.size;
  }

  /** @throws TooManyRequestsError when the caller has no token left. */
  take(caller: string): void {
    const taken = takeToken(
      this.#buckets.get(caller),
      this.#now(),
      this.#settings,
    );
    this.#buckets.set(caller, taken.bucket);
    if (!taken.allowed) {
      const seconds = Math.max(1, Math.ceil(taken.retryAfterMs / 1000));
      throw new TooManyRequestsError(
        `You asked to run checks now more than ${
          this.#settings.perCallerPerMinute
        } times in a minute (healthcheck.runNow.perCallerPerMinute); try again in ${seconds} s`,
        taken.retryAfterMs,
      );
    }
  }
}

/**
 * `healthcheck.runNow`; unset keys take the defaults.
 * @internal
 */
export function readRunNowRateSettings(config: Config): RunNowRateSettings {
  const key = 'healthcheck.runNow.perCallerPerMinute';
  const perCallerPerMinute = config.getOptionalNumber(key);
  if (perCallerPerMinute === undefined) {
    return DEFAULT_RUN_NOW_RATE;
  }
  if (!(Number.isSafeInteger(perCallerPerMinute) && perCallerPerMinute >= 1)) {
    throw new InputError(
      `${key} must be a whole number of at least 1, got ${perCallerPerMinute}`,
    );
  }
  return { perCallerPerMinute };
}
