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
  it('keeps runs 14 days and hourly aggregates 400 days unless told otherwise', () => {
    expect(readHistorySettings(new ConfigReader({}))).toEqual({
      runRetentionMs: 14 * DAY_MS,
      aggregateRetentionMs: 400 * DAY_MS,
    });
  });

  it('reads both retentions as whole days, also as text from environment variables', () => {
    const config = new ConfigReader({
      healthcheck: {
        history: { runRetentionDays: 7, aggregateRetentionDays: '90' },
      },
    });
    expect(readHistorySettings(config)).toEqual({
      runRetentionMs: 7 * DAY_MS,
      aggregateRetentionMs: 90 * DAY_MS,
    });
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
    expect(() => readHistorySettings(config)).toThrow(
      expect.objectContaining({
        name: 'InputError',
        message: expect.stringContaining(
          `Invalid healthcheck.history.${key} ${JSON.stringify(value)}`,
        ),
      }),
    );
  });

  it('refuses to keep aggregates for less time than runs', () => {
    const config = new ConfigReader({
      healthcheck: {
        history: { runRetentionDays: 30, aggregateRetentionDays: 20 },
      },
    });
    expect(() => readHistorySettings(config)).toThrow(
      /Invalid healthcheck\.history\.aggregateRetentionDays 20: it must be at least healthcheck\.history\.runRetentionDays \(30\)/,
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
