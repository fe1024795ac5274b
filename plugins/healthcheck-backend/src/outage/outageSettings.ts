import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';

/**
 * Outage mode's settings, from `healthcheck.outage`.
 * @internal
 */
export interface OutageSettings {
  /** Run results the journal holds at most; past it the oldest are dropped. */
  maxJournaledRuns: number;
  /** Heartbeat pings kept at most while the database is away; the same. */
  maxJournaledPings: number;
}

/**
 * Ten minutes of 10,000 slices at the default interval (1m): about 70 MB
 * when full (measured, a run of one condition), and nothing while the
 * database answers.
 */
const DEFAULT_MAX_JOURNALED_RUNS = 100_000;

/**
 * 10,000 jobs pinging once while the database is away, each ping at most
 * 10 kB of body: at most about 100 MB, and nothing while it answers.
 */
const DEFAULT_MAX_JOURNALED_PINGS = 10_000;

/**
 * Reads `healthcheck.outage.maxJournaledRuns` (default 100,000) and
 * `maxJournaledPings` (default 10,000), whole numbers of at least 1.
 * @throws InputError naming the key, for anything else.
 * @internal
 */
export function readOutageSettings(config: Config): OutageSettings {
  return {
    maxJournaledRuns: readBound(
      config,
      'healthcheck.outage.maxJournaledRuns',
      DEFAULT_MAX_JOURNALED_RUNS,
    ),
    maxJournaledPings: readBound(
      config,
      'healthcheck.outage.maxJournaledPings',
      DEFAULT_MAX_JOURNALED_PINGS,
    ),
  };
}

function readBound(config: Config, key: string, defaultValue: number): number {
  const value = config.getOptional(key);
  if (value === undefined) {
    return defaultValue;
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InputError(
      `Invalid ${key} '${value}': it must be a whole number of at least 1`,
    );
  }
  return value;
}
