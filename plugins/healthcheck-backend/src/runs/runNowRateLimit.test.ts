import { ConfigReader } from '@backstage/config';
import {
  readRunNowRateSettings,
  RunNowRateLimiter,
  takeToken,
  TooManyRequestsError,
} from './runNowRateLimit';

const sixAMinute = { perCallerPerMinute: 6 };

describe('takeToken', () => {
  it('gives a new caller a full bucket and takes one token', () => {
    expect(takeToken(undefined, 1_000, sixAMinute)).toEqual({
      allowed: true,
      bucket: { tokens: 5, updatedAt: 1_000 },
    });
  });

  it('refuses an empty bucket, saying how long until the next token', () => {
    expect(
      takeToken({ tokens: 0.25, updatedAt: 1_000 }, 1_000, sixAMinute),
    ).toEqual({
      allowed: false,
      bucket: { tokens: 0.25, updatedAt: 1_000 },
      // A token every 10 s; three quarters of one are missing.
      retryAfterMs: 7_500,
    });
  });

  it('refills one token every 60/n seconds, never past n', () => {
    const empty = { tokens: 0, updatedAt: 0 };
    expect(takeToken(empty, 9_999, sixAMinute).allowed).toBe(false);
    expect(takeToken(empty, 10_000, sixAMinute)).toEqual({
      allowed: true,
      bucket: { tokens: 0, updatedAt: 10_000 },
    });
    expect(takeToken(empty, 3_600_000, sixAMinute)).toMatchObject({
      bucket: { tokens: 5 },
    });
  });

  it('does not refill for a clock that went back', () => {
    expect(
      takeToken({ tokens: 0, updatedAt: 50_000 }, 10_000, sixAMinute).allowed,
    ).toBe(false);
  });
});

describe('RunNowRateLimiter', () => {
  it('lets a caller make a burst of n requests, then answers 429 with when to try again', () => {
    const now = 1_000_000;
    const limiter = new RunNowRateLimiter(sixAMinute, {
      clock: { now: () => now },
    });

    for (let n = 0; n < 6; n++) {
      limiter.take('user:default/alice');
    }
    let refused: unknown;
    try {
      limiter.take('user:default/alice');
    } catch (error) {
      refused = error;
    }

    expect(refused).toBeInstanceOf(TooManyRequestsError);
    expect(refused).toMatchObject({
      statusCode: 429,
      retryAfterSeconds: 10,
      message:
        'You asked to run checks now more than 6 times in a minute (healthcheck.runNow.perCallerPerMinute); try again in 10 s',
    });
    // Each caller has a bucket of their own.
    expect(() => limiter.take('user:default/bob')).not.toThrow();
  });

  it('keeps buckets for at most 10,000 callers', () => {
    const limiter = new RunNowRateLimiter(sixAMinute);
    for (let n = 0; n < 10_500; n++) {
      limiter.take(`user:default/caller-${n}`);
    }
    expect(limiter.size).toBe(10_000);
  });

  it('drops a bucket untouched for a minute, which is full again anyway', () => {
    let now = 1_000_000;
    const limiter = new RunNowRateLimiter(sixAMinute, {
      clock: { now: () => now },
    });
    limiter.take('user:default/alice');
    now += 60_001;
    limiter.take('user:default/bob');
    expect(limiter.size).toBe(1);
  });
});

describe('readRunNowRateSettings', () => {
  it('allows 6 a minute by default', () => {
    expect(readRunNowRateSettings(new ConfigReader({}))).toEqual(sixAMinute);
  });

  it('reads healthcheck.runNow.perCallerPerMinute, a whole number of at least 1', () => {
    const read = (perCallerPerMinute: number) =>
      readRunNowRateSettings(
        new ConfigReader({ healthcheck: { runNow: { perCallerPerMinute } } }),
      );
    expect(read(30)).toEqual({ perCallerPerMinute: 30 });
    expect(() => read(0)).toThrow(
      'healthcheck.runNow.perCallerPerMinute must be a whole number of at least 1, got 0',
    );
  });
});
