import { LRUCache } from 'lru-cache';

/** Tokens whose counts are kept; the least recently pinged go first. */
export const MAX_RATE_LIMITED_TOKENS = 10_000;
const WINDOW_MS = 60_000;

/** A ping beyond the token's budget for this minute; retry after the window. */
export interface PingRefused {
  retryAfterSeconds: number;
}

/**
 * Pings per token per minute, counted in fixed one-minute windows, for at
 * most {@link MAX_RATE_LIMITED_TOKENS} tokens (a bounded LRU: a flood of
 * distinct tokens pushes out old counts, not memory). Counts are per
 * instance: a job behind a load balancer gets up to the budget on each.
 */
export class PingRateLimiter {
  readonly #pingsPerMinute: number;
  readonly #now: () => number;
  readonly #windows: LRUCache<string, { start: number; count: number }>;

  constructor(options: {
    pingsPerMinute: number;
    now?: () => number;
    maxTokens?: number;
  }) {
    if (!(options.pingsPerMinute >= 1)) {
      throw new Error(
        `healthcheck.heartbeats.pingsPerMinute must be at least 1, not ${options.pingsPerMinute}`,
      );
    }
    this.#pingsPerMinute = Math.floor(options.pingsPerMinute);
    this.#now = options.now ?? Date.now;
    this.#windows = new LRUCache({
      max: options.maxTokens ?? MAX_RATE_LIMITED_TOKENS,
    });
  }

  /** Counts a ping of the token; what to answer when it is one too many. */
  take(tokenHash: string): PingRefused | undefined {
    const now = this.#now();
    const window = this.#windows.get(tokenHash);
    if (!window || now - window.start >= WINDOW_MS) {
      this.#windows.set(tokenHash, { start: now, count: 1 });
      return undefined;
    }
    if (window.count >= this.#pingsPerMinute) {
      return {
        retryAfterSeconds: Math.max(
          1,
          Math.ceil((window.start + WINDOW_MS - now) / 1000),
        ),
      };
    }
    window.count += 1;
    return undefined;
  }

  /** How many tokens have counts now. */
  get size(): number {
    return this.#windows.size;
  }
}
