import { readConfigDuration } from '@vigil/plugin-healthcheck-node';
import { Config } from '@backstage/config';

/**
 * How often the sweep runs, from `healthcheck.sweep`.
 * @internal
 */
export interface SweepSettings {
  /** Between sweeps (one instance at a time runs them). */
  intervalMs: number;
}

const DEFAULT_INTERVAL_MS = 60_000;
/** A sweep reads every system; more often than this is load for nothing. */
const MIN_INTERVAL_MS = 5_000;

/**
 * Reads `healthcheck.sweep.interval`, a duration such as `1m` (the
 * default) of at least `5s`.
 * @throws InputError naming the key, for a bad or too short duration.
 * @internal
 */
export function readSweepSettings(config: Config): SweepSettings {
  const intervalMs =
    readConfigDuration(config, 'healthcheck.sweep.interval', {
      minimumMs: MIN_INTERVAL_MS,
    }) ?? DEFAULT_INTERVAL_MS;
  return { intervalMs };
}
