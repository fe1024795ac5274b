import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';

/**
 * Outage mode's settings, from `healthcheck.outage`.
 * @internal
 */
export interface OutageSettings {
  /** Run results the journal holds at most; past it the oldest are dropped. */
  maxJournaledRuns: number;
}

/**
 * Ten minutes of 10,000 slices at the default interval (1m): about 70 MB
 * when full (measured, a run of one condition), and nothing while the
 * database answers.
 */
const DEFAULT_MAX_JOURNALED_RUNS = 100_000;

/**
 * Reads `healthcheck.outage.maxJournaledRuns`, a whole number of at
 * least 1; default 100,000.
 * @throws InputError naming the key, for anything else.
 * @internal
 */
export function readOutageSettings(config: Config): OutageSettings {
  const key = 'healthcheck.outage.maxJournaledRuns';
  const value = config.getOptional(key);
  if (value === undefined) {
    return { maxJournaledRuns: DEFAULT_MAX_JOURNALED_RUNS };
  }
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw new InputError(
      `Invalid ${key} '${value}': it must be a whole number of at least 1`,
    );
  }
  return { maxJournaledRuns: value };
}
