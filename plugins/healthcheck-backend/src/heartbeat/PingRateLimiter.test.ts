import { PingRateLimiter } from './PingRateLimiter';

describe('PingRateLimiter', () => {
  it('lets a token ping its budget per minute, then says when to retry', () => {
    let now = 1_000_000;
    const limiter = new PingRateLimiter({ pingsPerMinute: 3, now: () => now });
    expect([1, 2, 3].map(() => limiter.take('a'))).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
    now += 20_000;
    expect(limiter.take('a')).toEqual({ retryAfterSeconds: 40 });
    // Other tokens have budgets of their own.
    expect(limiter.take('b')).toBeUndefined();
    now += 40_000;
    expect(limiter.take('a')).toBeUndefined();
  });

  it('keeps counts for a bounded number of tokens', () => {
    const limiter = new PingRateLimiter({ pingsPerMinute: 1, maxTokens: 100 });
    for (let i = 0; i < 1_000; i++) {
      limiter.take(`token-${i}`);
    }
    expect(limiter.size).toBe(100);
  });

  it('refuses a budget below one ping a minute', () => {
    expect(() => new PingRateLimiter({ pingsPerMinute: 0 })).toThrow(
      'healthcheck.heartbeats.pingsPerMinute must be at least 1, not 0',
    );
  });
});
