import { readConfigDuration } from '@vigil/plugin-healthcheck-node';
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

const DEFAULT_RUN_RETENTION_MS = 14 * DAY_MS;
const DEFAULT_AGGREGATE_RETENTION_MS = 400 * DAY_MS;

/** The id of the maintenance task in Backstage's scheduler. */
export const HISTORY_MAINTENANCE_TASK_ID = 'healthcheck-history-maintenance';

/** Between runs of the maintenance task. */
const MAINTENANCE_FREQUENCY_MS = 10 * 60_000;

/**
 * How long after an hour ends it is aggregated: its last runs may still be
 * probing (up to their timeout) or waiting in a write batch.
 */
export const AGGREGATION_SETTLE_MS = 10 * 60_000;

/** A retention key and the whole-days key it replaces. */
interface RetentionKey {
  key: string;
  daysKey: string;
  defaultMs: number;
}

const RUN_RETENTION: RetentionKey = {
  key: 'healthcheck.history.runRetention',
  daysKey: 'healthcheck.history.runRetentionDays',
  defaultMs: DEFAULT_RUN_RETENTION_MS,
};

const AGGREGATE_RETENTION: RetentionKey = {
  key: 'healthcheck.history.aggregateRetention',
  daysKey: 'healthcheck.history.aggregateRetentionDays',
  defaultMs: DEFAULT_AGGREGATE_RETENTION_MS,
};

/**
 * Reads the history retention from the config, each a duration of at
 * least a day (`14d`, `P2W`, `{ days: 14 }`):
 *
 * - `healthcheck.history.runRetention`: how long every raw run is kept.
 *   Default 14 days.
 * - `healthcheck.history.aggregateRetention`: how long the hourly
 *   aggregates (count, failures, latency percentiles, up-time) are kept, no
 *   shorter than `runRetention`. Default 400 days.
 *
 * The deprecated `runRetentionDays` and `aggregateRetentionDays`, whole
 * numbers of days, still work, with a warning.
 *
 * @throws InputError naming the key for a value that is not a duration (or
 *   for the old keys, a whole number of days), is below a day, or would keep
 *   aggregates for less time than runs.
 * @internal
 */
export function readHistorySettings(
  config: Config,
  logger: Pick<LoggerService, 'warn'>,
): HistorySettings {
  const runRetentionMs = readRetention(config, RUN_RETENTION, logger);
  const aggregateRetentionMs = readRetention(
    config,
    AGGREGATE_RETENTION,
    logger,
  );
  if (aggregateRetentionMs < runRetentionMs) {
    throw new InputError(
      `Invalid ${describeSetting(
        config,
        AGGREGATE_RETENTION,
      )}: it must be at least ${describeSetting(config, RUN_RETENTION, {
        inParentheses: true,
      })}, or hours would be pruned while their runs are still kept`,
    );
  }
  return { runRetentionMs, aggregateRetentionMs };
}

function readRetention(
  config: Config,
  { key, daysKey, defaultMs }: RetentionKey,
  logger: Pick<LoggerService, 'warn'>,
): number {
  return (
    readConfigDuration(config, key, {
      minimumMs: DAY_MS,
      replaces: {
        key: daysKey,
        readMs: (c, oldKey) => readDays(c, oldKey) * DAY_MS,
      },
      logger,
    }) ?? defaultMs
  );
}

/** The key that decides a retention and its value, as written. */
function describeSetting(
  config: Config,
  { key, daysKey, defaultMs }: RetentionKey,
  { inParentheses = false } = {},
): string {
  const effectiveKey = [key, daysKey].find(candidate => config.has(candidate));
  if (effectiveKey === undefined) {
    return `${key} (default ${defaultMs / DAY_MS}d)`;
  }
  const raw = config.get(effectiveKey);
  const value = typeof raw === 'string' ? `'${raw}'` : JSON.stringify(raw);
  return inParentheses
    ? `${effectiveKey} (${value})`
    : `${effectiveKey} ${value}`;
}

/** A deprecated `*Days` key: a whole number of days of at least 1. */
function readDays(config: Config, key: string): number {
  const raw = config.get(key);
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
