import { LoggerService, SchedulerService } from '@backstage/backend-plugin-api';
import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import { HOUR_MS, hourStartOf } from './aggregateRuns';
import type { HistoryStore } from '../model';

const DAY_MS = 24 * HOUR_MS;

/**
 * How long history is kept, from `healthcheck.history`.
 *
 * @internal
 */
export interface HistorySettings {
  /** How long raw runs are kept, in ms. */
  runRetentionMs: number;
  /** How long hourly aggregates are kept, in ms. */
  aggregateRetentionMs: number;
}

const DEFAULT_RUN_RETENTION_DAYS = 14;
const DEFAULT_AGGREGATE_RETENTION_DAYS = 400;

/** The id of the maintenance task in Backstage's scheduler. */
export const HISTORY_MAINTENANCE_TASK_ID = 'healthcheck-history-maintenance';

/** Between runs of the maintenance task. */
const MAINTENANCE_FREQUENCY_MS = 10 * 60_000;

/**
 * How long after an hour ends it is aggregated: its last runs may still be
 * probing (up to their timeout) or waiting in a write batch.
 */
export const AGGREGATION_SETTLE_MS = 10 * 60_000;

/**
 * Reads the history retention from the config:
 *
 * - `healthcheck.history.runRetentionDays`: how long every raw run is kept,
 *   a whole number of days of at least 1. Default 14.
 * - `healthcheck.history.aggregateRetentionDays`: how long the hourly
 *   aggregates (count, failures, latency percentiles, up-time) are kept, a
 *   whole number of days no smaller than `runRetentionDays`. Default 400.
 *
 * Whole days rather than duration texts, because durations elsewhere in
 * the plugin (`parseDuration`) stop at hours: `14d` is not one of them.
 *
 * @throws InputError naming the key for a value that is not a whole number
 *   of days, is below 1, or would keep aggregates for less time than runs.
 * @internal
 */
export function readHistorySettings(config: Config): HistorySettings {
  const runDays = readDays(
    config,
    'healthcheck.history.runRetentionDays',
    DEFAULT_RUN_RETENTION_DAYS,
  );
  const aggregateDays = readDays(
    config,
    'healthcheck.history.aggregateRetentionDays',
    DEFAULT_AGGREGATE_RETENTION_DAYS,
  );
  if (aggregateDays < runDays) {
    throw new InputError(
      `Invalid healthcheck.history.aggregateRetentionDays ${aggregateDays}: it must be at least healthcheck.history.runRetentionDays (${runDays}), or hours would be pruned while their runs are still kept`,
    );
  }
  return {
    runRetentionMs: runDays * DAY_MS,
    aggregateRetentionMs: aggregateDays * DAY_MS,
  };
}

function readDays(config: Config, key: string, fallback: number): number {
  const raw = config.getOptional(key);
  if (raw === undefined) {
    return fallback;
  }
  // Environment variables arrive as text.
  const value =
    typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : raw;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InputError(
      `Invalid ${key} ${JSON.stringify(
        raw,
      )}: it must be a whole number of days of at least 1`,
    );
  }
  return value;
}

/**
 * One round of history maintenance: aggregates the hours that ended at
 * least {@link AGGREGATION_SETTLE_MS} ago, then prunes runs and hours past
 * their retention. Pruning never deletes runs that hours not yet aggregated
 * need (the store sees to that).
 *
 * @internal
 */
export async function runHistoryMaintenance(options: {
  store: HistoryStore;
  settings: HistorySettings;
  logger: LoggerService;
  now?: () => number;
  signal?: AbortSignal;
}): Promise<void> {
  const { store, settings, logger, signal } = options;
  const now = (options.now ?? Date.now)();
  const aggregated = await store.aggregateHours(
    hourStartOf(now - AGGREGATION_SETTLE_MS),
    { signal },
  );
  signal?.throwIfAborted();
  const runs = await store.pruneRuns(now - settings.runRetentionMs);
  signal?.throwIfAborted();
  const hours = await store.pruneHours(now - settings.aggregateRetentionMs);
  if (aggregated.hours > 0 || runs > 0 || hours > 0) {
    logger.info(
      `History: aggregated ${aggregated.hours} hours (${aggregated.rows} rows), pruned ${runs} runs and ${hours} hour rows`,
    );
  }
}

/**
 * Registers history maintenance ({@link runHistoryMaintenance}) as one
 * Backstage scheduler task, `healthcheck-history-maintenance`: global scope,
 * so one instance at a time runs it, every 10 minutes, first a minute after
 * start. It runs apart from probing and writes in short statements, so it
 * never holds probing up; a round cut short by its timeout or a shutdown
 * resumes where it stopped.
 *
 * @internal
 */
export async function scheduleHistoryMaintenance(options: {
  scheduler: SchedulerService;
  logger: LoggerService;
  store: HistoryStore;
  settings: HistorySettings;
  now?: () => number;
}): Promise<void> {
  const { scheduler, logger, store, settings, now } = options;
  const taskLogger = logger.child({ component: 'history' });
  await scheduler.scheduleTask({
    id: HISTORY_MAINTENANCE_TASK_ID,
    scope: 'global',
    frequency: { milliseconds: MAINTENANCE_FREQUENCY_MS },
    timeout: { minutes: 30 },
    initialDelay: { minutes: 1 },
    fn: async (signal: AbortSignal) => {
      await runHistoryMaintenance({
        store,
        settings,
        logger: taskLogger,
        now,
        signal,
      });
    },
  });
}
