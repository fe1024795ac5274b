import { mockServices } from '@backstage/backend-test-utils';
import type { SystemRollup } from '@vigil/plugin-healthcheck-common';
import {
  BADGE_HISTORY_READS_AT_ONCE,
  BADGE_MEASUREMENT_MAX_STALE_MS,
  BADGE_MEASUREMENT_TTL_MS,
  BADGE_MEASUREMENT_TTL_SPREAD,
  badgeLoaders,
  figureReuseMs,
  spreadTtl,
} from './badgeLoaders';

const DAY_MS = 24 * 60 * 60_000;

describe('badgeLoaders', () => {
  function setup() {
    let clock = 1_000_000;
    const uptimeReads: Array<{ environment?: string; length: number }> = [];
    let responseTimeReads = 0;
    let release: () => void = () => {};
    let gate: Promise<void> = Promise.resolve();
    const rollupReads: string[] = [];
    let environments = ['production', 'staging'];
    let readsNow = 0;
    let mostReadsAtOnce = 0;
    let historyFailure: Error | undefined;
    const logger = mockServices.logger.mock();
    const loaders = badgeLoaders({
      logger,
      loadRollup: async systemRef => {
        rollupReads.push(systemRef);
        return systemRef === 'system:default/payments'
          ? ({
              systemRef,
              environments: environments.map(name => ({ name })),
            } as SystemRollup)
          : undefined;
      },
      history: {
        uptime: async range => {
          uptimeReads.push({
            environment: range.environment,
            length: range.to - range.from,
          });
          readsNow += 1;
          mostReadsAtOnce = Math.max(mostReadsAtOnce, readsNow);
          await gate;
          readsNow -= 1;
          if (historyFailure) {
            throw historyFailure;
          }
          return {
            // 0.99 first, then 0.98, 0.97, ...: tells a new figure apart.
            uptime: 1 - uptimeReads.length / 100,
            upSeconds: 99,
            downSeconds: 1,
            unknownSeconds: 0,
            pausedSeconds: 0,
          };
        },
        responseTime: async () => {
          responseTimeReads += 1;
          return { runCount: 10, p50Ms: 12, p95Ms: 40, p99Ms: 80 };
        },
      },
      now: () => clock,
    });
    const query = (lengthMs: number, environment?: string) => {
      const to = new Date(clock);
      return {
        systemRef: 'system:default/payments',
        ...(environment && { environment }),
        from: new Date(to.getTime() - lengthMs),
        to,
      };
    };
    return {
      loaders,
      logger,
      query,
      uptimeReads,
      responseTimeReads: () => responseTimeReads,
      rollupReads,
      mostReadsAtOnce: () => mostReadsAtOnce,
      setEnvironments: (names: string[]) => {
        environments = names;
      },
      advance: (ms: number) => {
        clock += ms;
      },
      hold: () => {
        gate = new Promise(resolve => {
          release = resolve;
        });
      },
      release: () => release(),
      failHistoryReads: (error: Error | undefined) => {
        historyFailure = error;
      },
    };
  }

  it('reuses a figure for the same system, environment and window length, and reads it again once it is more than a minute old', async () => {
    const { loaders, query, uptimeReads, advance } = setup();
    expect(await loaders.loadUptime(query(DAY_MS))).toBe(0.99);
    advance(BADGE_MEASUREMENT_TTL_MS * (1 - BADGE_MEASUREMENT_TTL_SPREAD));
    expect(await loaders.loadUptime(query(DAY_MS))).toBe(0.99);
    expect(uptimeReads).toHaveLength(1);

    advance(BADGE_MEASUREMENT_TTL_MS * BADGE_MEASUREMENT_TTL_SPREAD + 1);
    await loaders.loadUptime(query(DAY_MS));
    expect(uptimeReads).toHaveLength(2);
  });

  it('reuses a 30-day figure for minutes: the window moves by one shown digit at most meanwhile', async () => {
    const { loaders, query, uptimeReads, advance } = setup();
    await loaders.loadUptime(query(30 * DAY_MS));
    advance(0.75 * figureReuseMs(30 * DAY_MS));
    await loaders.loadUptime(query(30 * DAY_MS));
    expect(uptimeReads).toHaveLength(1);
    advance(0.25 * figureReuseMs(30 * DAY_MS) + 1);
    await loaders.loadUptime(query(30 * DAY_MS));
    expect(uptimeReads).toHaveLength(2);
  });

  it('reads figures read together again at different times within the last quarter of the minute', async () => {
    const { loaders, query, uptimeReads, advance } = setup();
    const lengths = Array.from({ length: 40 }, (_, i) => DAY_MS + i * 60_000);
    // One at a time: each read's time is the clock's.
    for (const length of lengths) {
      await loaders.loadUptime(query(length));
    }
    const rereadsNow = async () => {
      for (const length of lengths) {
        await loaders.loadUptime(query(length));
      }
      return uptimeReads.length - lengths.length;
    };
    advance(BADGE_MEASUREMENT_TTL_MS * (1 - BADGE_MEASUREMENT_TTL_SPREAD));
    expect(await rereadsNow()).toBe(0);
    advance((BADGE_MEASUREMENT_TTL_MS * BADGE_MEASUREMENT_TTL_SPREAD) / 2);
    const halfway = await rereadsNow();
    expect(halfway).toBeGreaterThan(0);
    expect(halfway).toBeLessThan(lengths.length);
  });

  it('answers with the last figure while it reads a newer one, and with the newer one after', async () => {
    const { loaders, query, uptimeReads, advance, hold, release } = setup();
    await loaders.loadUptime(query(DAY_MS));
    advance(BADGE_MEASUREMENT_MAX_STALE_MS);
    hold();
    expect(await loaders.loadUptime(query(DAY_MS))).toBe(0.99);
    expect(uptimeReads).toHaveLength(2);
    release();
    await new Promise(resolve => setImmediate(resolve));
    expect(await loaders.loadUptime(query(DAY_MS))).toBe(0.98);
    expect(uptimeReads).toHaveLength(2);
  });

  it('waits for a new figure when the last is more than five minutes old', async () => {
    const { loaders, query, uptimeReads, advance } = setup();
    await loaders.loadUptime(query(DAY_MS));
    advance(BADGE_MEASUREMENT_MAX_STALE_MS + 1);
    expect(await loaders.loadUptime(query(DAY_MS))).toBe(0.98);
    expect(uptimeReads).toHaveLength(2);
  });

  it('keeps showing the last figure while the history cannot be read, until it is five minutes old', async () => {
    const { loaders, logger, query, uptimeReads, advance, failHistoryReads } =
      setup();
    expect(await loaders.loadUptime(query(DAY_MS))).toBe(0.99);
    failHistoryReads(new Error('Defined query timeout of 30000ms exceeded'));

    advance(BADGE_MEASUREMENT_TTL_MS + 1);
    expect(await loaders.loadUptime(query(DAY_MS))).toBe(0.99);
    await new Promise(resolve => setImmediate(resolve));
    // The failed read kept the figure: the next request is answered with it
    // too, and tries again.
    expect(await loaders.loadUptime(query(DAY_MS))).toBe(0.99);
    await new Promise(resolve => setImmediate(resolve));
    expect(uptimeReads).toHaveLength(3);
    expect(logger.warn).toHaveBeenCalledWith(
      'Could not read the uptime of system:default/payments for its badges; they show their last figure meanwhile, up to 5 minutes old',
      expect.objectContaining({
        message: 'Defined query timeout of 30000ms exceeded',
      }),
    );

    advance(BADGE_MEASUREMENT_MAX_STALE_MS);
    await expect(loaders.loadUptime(query(DAY_MS))).rejects.toThrow(
      'Defined query timeout of 30000ms exceeded',
    );
    expect(uptimeReads).toHaveLength(4);

    failHistoryReads(undefined);
    expect(await loaders.loadUptime(query(DAY_MS))).toBeCloseTo(0.95);
  });

  it('reads each window and environment on its own', async () => {
    const { loaders, query, uptimeReads } = setup();
    await loaders.loadUptime(query(DAY_MS));
    await loaders.loadUptime(query(7 * DAY_MS));
    await loaders.loadUptime(query(DAY_MS, 'production'));
    expect(uptimeReads).toEqual([
      { environment: undefined, length: DAY_MS },
      { environment: undefined, length: 7 * DAY_MS },
      { environment: 'production', length: DAY_MS },
    ]);
  });

  it('lets concurrent requests for one figure share one read', async () => {
    const { loaders, query, uptimeReads, hold, release } = setup();
    hold();
    const answers = Promise.all(
      Array.from({ length: 20 }, () => loaders.loadUptime(query(DAY_MS))),
    );
    release();
    expect(await answers).toEqual(Array(20).fill(0.99));
    expect(uptimeReads).toHaveLength(1);
  });

  it('keeps up-time and response time apart', async () => {
    const { loaders, query, uptimeReads, responseTimeReads } = setup();
    expect(await loaders.loadResponseTime(query(DAY_MS))).toEqual({
      p50: 12,
      p95: 40,
    });
    expect(await loaders.loadUptime(query(DAY_MS))).toBe(0.99);
    expect(await loaders.loadResponseTime(query(DAY_MS))).toEqual({
      p50: 12,
      p95: 40,
    });
    expect(uptimeReads).toHaveLength(1);
    expect(responseTimeReads()).toBe(1);
  });

  it('reads at most a few figures at once, so that a page of badges does not take every database connection', async () => {
    const { loaders, query, uptimeReads, mostReadsAtOnce, hold, release } =
      setup();
    hold();
    const answers = Promise.all(
      ['production', 'staging', 'qa', 'dev', 'perf', 'eu', 'us'].map(
        environment => loaders.loadUptime(query(DAY_MS, environment)),
      ),
    );
    await new Promise(resolve => setImmediate(resolve));
    expect(uptimeReads).toHaveLength(BADGE_HISTORY_READS_AT_ONCE);
    release();
    expect(await answers).toHaveLength(7);
    expect(uptimeReads).toHaveLength(7);
    expect(mostReadsAtOnce()).toBe(BADGE_HISTORY_READS_AT_ONCE);
  });

  it('knows the environments of a system, and that a system is unknown, from a rollup read at most a minute ago', async () => {
    const { loaders, rollupReads, advance, setEnvironments } = setup();
    expect(await loaders.loadEnvironments('system:default/payments')).toEqual([
      'production',
      'staging',
    ]);
    expect(await loaders.loadEnvironments('System:Default/Payments')).toEqual([
      'production',
      'staging',
    ]);
    expect(await loaders.loadEnvironments('system:default/ledger')).toBe(
      undefined,
    );
    expect(await loaders.loadEnvironments('system:default/ledger')).toBe(
      undefined,
    );
    expect(rollupReads).toEqual([
      'system:default/payments',
      'system:default/ledger',
    ]);

    setEnvironments(['production', 'staging', 'qa']);
    advance(BADGE_MEASUREMENT_TTL_MS + 1);
    // The last answer at once; the new one from the read it started.
    expect(await loaders.loadEnvironments('system:default/payments')).toEqual([
      'production',
      'staging',
    ]);
    await new Promise(resolve => setImmediate(resolve));
    expect(await loaders.loadEnvironments('system:default/payments')).toEqual([
      'production',
      'staging',
      'qa',
    ]);
    expect(rollupReads).toHaveLength(3);
  });
});

describe('spreadTtl', () => {
  it('cuts a reuse time by up to a quarter, the same for a key every time', () => {
    const ttls = Array.from({ length: 1_000 }, (_, i) =>
      spreadTtl(
        `uptime\u0000system:default/system-${i}\u0000\u0000${DAY_MS}`,
        60_000,
      ),
    );
    for (const ttl of ttls) {
      expect(ttl).toBeGreaterThanOrEqual(45_000);
      expect(ttl).toBeLessThanOrEqual(60_000);
    }
    expect(spreadTtl('a', 60_000)).toBe(spreadTtl('a', 60_000));
    // Spread over the quarter: every 3 s slice of it holds some keys.
    const slices = new Set(
      ttls.map(ttl => Math.min(4, Math.floor((ttl - 45_000) / 3_000))),
    );
    expect(slices.size).toBe(5);
  });
});

describe('figureReuseMs', () => {
  it('is a minute up to a week, then as long as the window moves one hundredth of a percent, and at most five minutes', () => {
    expect(figureReuseMs(DAY_MS)).toBe(BADGE_MEASUREMENT_TTL_MS);
    expect(figureReuseMs(7 * DAY_MS)).toBe(60_480);
    expect(figureReuseMs(30 * DAY_MS)).toBe(259_200);
    expect(figureReuseMs(365 * DAY_MS)).toBe(BADGE_MEASUREMENT_MAX_STALE_MS);
  });
});
