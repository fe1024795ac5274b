import { SchedulerServiceTaskScheduleDefinition } from '@backstage/backend-plugin-api';
import { mockServices } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import {
  AGGREGATION_SETTLE_MS,
  HISTORY_MAINTENANCE_TASK_ID,
  readHistorySettings,
  scheduleHistoryMaintenance,
} from './HistoryMaintenance';
import type { HistoryStore } from '../model';

const DAY_MS = 86_400_000;

describe('readHistorySettings', () => {
  const logger = () => ({ warn: jest.fn() });

  it('keeps runs 14 days and hourly aggregates 400 days unless told otherwise', () => {
    expect(readHistorySettings(new ConfigReader({}), logger())).toEqual({
      runRetentionMs: 14 * DAY_MS,
      aggregateRetentionMs: 400 * DAY_MS,
    });
  });

  it('reads both retentions as durations, as text or as objects', () => {
    const config = new ConfigReader({
      healthcheck: {
        history: { runRetention: '7d', aggregateRetention: { days: 90 } },
      },
    });
    expect(readHistorySettings(config, logger())).toEqual({
      runRetentionMs: 7 * DAY_MS,
      aggregateRetentionMs: 90 * DAY_MS,
    });
  });

  it('reads the deprecated whole days, also as text from environment variables, and warns', () => {
    const config = new ConfigReader({
      healthcheck: {
        history: { runRetentionDays: 7, aggregateRetentionDays: '90' },
      },
    });
    const log = logger();
    expect(readHistorySettings(config, log)).toEqual({
      runRetentionMs: 7 * DAY_MS,
      aggregateRetentionMs: 90 * DAY_MS,
    });
    expect(log.warn.mock.calls).toEqual([
      [
        expect.stringMatching(
          /^healthcheck\.history\.runRetentionDays is deprecated; write healthcheck\.history\.runRetention instead/,
        ),
      ],
      [
        expect.stringMatching(
          /^healthcheck\.history\.aggregateRetentionDays is deprecated; write healthcheck\.history\.aggregateRetention instead/,
        ),
      ],
    ]);
  });

  it('takes the duration over the deprecated days when both are set', () => {
    const config = new ConfigReader({
      healthcheck: { history: { runRetention: '2d', runRetentionDays: 7 } },
    });
    const log = logger();
    expect(readHistorySettings(config, log).runRetentionMs).toBe(2 * DAY_MS);
    expect(log.warn).toHaveBeenCalledWith(
      'healthcheck.history.runRetentionDays is deprecated and ignored, as healthcheck.history.runRetention is set too; remove healthcheck.history.runRetentionDays',
    );
  });

  it.each([
    ['runRetentionDays', '2w'],
    ['runRetentionDays', 0],
    ['runRetentionDays', 1.5],
    ['aggregateRetentionDays', -3],
    ['aggregateRetentionDays', true],
  ])('names the key of a bad %s (%p)', (key, value) => {
    const config = new ConfigReader({
      healthcheck: { history: { [key]: value } },
    });
    expect(() => readHistorySettings(config, logger())).toThrow(
      expect.objectContaining({
        name: 'InputError',
        message: expect.stringContaining(
          `Invalid healthcheck.history.${key} ${JSON.stringify(value)}`,
        ),
      }),
    );
  });

  it.each([
    [
      'runRetention',
      'soon',
      "Invalid healthcheck.history.runRetention 'soon': it is not a duration",
    ],
    [
      'runRetention',
      '12h',
      "Invalid healthcheck.history.runRetention '12h': it must be at least 24h",
    ],
    [
      'aggregateRetention',
      { hours: 1 },
      'Invalid healthcheck.history.aggregateRetention {"hours":1}: it must be at least 24h',
    ],
    [
      'aggregateRetention',
      400,
      'Invalid healthcheck.history.aggregateRetention 400: a duration is a text',
    ],
  ])('names the key of a bad %s (%p)', (key, value, message) => {
    const config = new ConfigReader({
      healthcheck: { history: { [key]: value } },
    });
    expect(() => readHistorySettings(config, logger())).toThrow(message);
  });

  it('refuses to keep aggregates for less time than runs', () => {
    const config = new ConfigReader({
      healthcheck: {
        history: { runRetentionDays: 30, aggregateRetentionDays: 20 },
      },
    });
    expect(() => readHistorySettings(config, logger())).toThrow(
      /Invalid healthcheck\.history\.aggregateRetentionDays 20: it must be at least healthcheck\.history\.runRetentionDays \(30\)/,
    );
  });

  it('names the keys as written when aggregates would go before runs', () => {
    const read = (history: Record<string, string>) => () =>
      readHistorySettings(
        new ConfigReader({ healthcheck: { history } }),
        logger(),
      );
    expect(read({ runRetention: '30d', aggregateRetention: '20d' })).toThrow(
      "Invalid healthcheck.history.aggregateRetention '20d': it must be at least healthcheck.history.runRetention ('30d'), or hours would be pruned while their runs are still kept",
    );
    expect(read({ runRetention: '500d' })).toThrow(
      "Invalid healthcheck.history.aggregateRetention (default 400d): it must be at least healthcheck.history.runRetention ('500d')",
    );
  });
});

describe('scheduleHistoryMaintenance', () => {
  function fakeStore(calls: string[]): HistoryStore {
    return {
      aggregateHours: jest.fn(async (until: number) => {
        calls.push(`aggregate until ${new Date(until).toISOString()}`);
        return { hours: 1, rows: 3, aggregatedUntil: until };
      }),
      pruneRuns: jest.fn(async (before: number) => {
        calls.push(`prune runs before ${new Date(before).toISOString()}`);
        return 10;
      }),
      pruneHours: jest.fn(async (before: number) => {
        calls.push(`prune hours before ${new Date(before).toISOString()}`);
        return 0;
      }),
    } as Partial<HistoryStore> as HistoryStore;
  }

  it('registers one global task every 10 minutes that aggregates complete hours, then prunes', async () => {
    const scheduler = mockServices.scheduler.mock();
    const calls: string[] = [];
    const now = Date.UTC(2026, 11, 1, 12, 5);

    await scheduleHistoryMaintenance({
      scheduler,
      logger: mockServices.logger.mock(),
      store: fakeStore(calls),
      settings: {
        runRetentionMs: 14 * DAY_MS,
        aggregateRetentionMs: 400 * DAY_MS,
      },
      now: () => now,
    });

    expect(scheduler.scheduleTask).toHaveBeenCalledTimes(1);
    const task = scheduler.scheduleTask.mock
      .calls[0][0] as SchedulerServiceTaskScheduleDefinition & {
      id: string;
      fn: (signal: AbortSignal) => Promise<void>;
    };
    expect(task).toMatchObject({
      id: HISTORY_MAINTENANCE_TASK_ID,
      scope: 'global',
      frequency: { milliseconds: 600_000 },
      initialDelay: { minutes: 1 },
    });

    await task.fn(new AbortController().signal);

    // At 12:05 the hour 11:00-12:00 ended less than the settle time ago.
    expect(AGGREGATION_SETTLE_MS).toBe(600_000);
    expect(calls).toEqual([
      'aggregate until 2026-12-01T11:00:00.000Z',
      'prune runs before 2026-11-17T12:05:00.000Z',
      'prune hours before 2025-10-27T12:05:00.000Z',
    ]);
  });

  it('stops between steps once the scheduler aborts the round', async () => {
    const scheduler = mockServices.scheduler.mock();
    const calls: string[] = [];
    await scheduleHistoryMaintenance({
      scheduler,
      logger: mockServices.logger.mock(),
      store: fakeStore(calls),
      settings: { runRetentionMs: DAY_MS, aggregateRetentionMs: DAY_MS },
    });
    const task = scheduler.scheduleTask.mock.calls[0][0] as {
      fn: (signal: AbortSignal) => Promise<void>;
    };
    const controller = new AbortController();
    controller.abort();

    await expect(task.fn(controller.signal)).rejects.toThrow();
    expect(calls).toEqual([expect.stringMatching(/^aggregate until /)]);
  });
});
