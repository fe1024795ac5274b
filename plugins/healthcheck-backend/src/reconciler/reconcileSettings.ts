import { Config } from '@backstage/config';
import { readConfigDuration } from '../config';

/**
 * When the reconciler runs, from `healthcheck.reconcile`.
 * @internal
 */
export interface ReconcileSettings {
  /** Between full passes. */
  intervalMs: number;
  /** Between polls of the catalog for changed systems. */
  catalogPollIntervalMs: number;
  /** How long a removed slice's tombstone is kept for instances to see. */
  tombstoneRetentionMs: number;
}

const DEFAULTS: ReconcileSettings = {
  intervalMs: 5 * 60_000,
  catalogPollIntervalMs: 30_000,
  tombstoneRetentionMs: 60 * 60_000,
};

/**
 * Reads `healthcheck.reconcile.interval` and `.catalogPollInterval`
 * (durations such as `30s` or `5m`).
 * @throws InputError naming the key and the problem for a bad duration.
 * @internal
 */
export function readReconcileSettings(config: Config): ReconcileSettings {
  const read = (key: string, fallback: number) =>
    readConfigDuration(config, `healthcheck.reconcile.${key}`) ?? fallback;
  return {
    intervalMs: read('interval', DEFAULTS.intervalMs),
    catalogPollIntervalMs: read(
      'catalogPollInterval',
      DEFAULTS.catalogPollIntervalMs,
    ),
    tombstoneRetentionMs: DEFAULTS.tombstoneRetentionMs,
  };
}
