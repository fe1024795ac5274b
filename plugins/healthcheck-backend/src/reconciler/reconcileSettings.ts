import {
  readCatalogOwnershipRule,
  readConfigDuration,
} from '@vigil/plugin-healthcheck-node';
import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import type { ChecksFromCatalog } from './desiredSlices';
import type { EnvironmentsFromMembers } from './resolveEnvironments';

/**
 * When the reconciler runs, from `healthcheck.reconcile`.
 * @internal
 */
export interface ReconcileSettings {
  /** Between full passes. */
  intervalMs: number;
  /** Between polls of the catalog for changed systems. */
  catalogPollIntervalMs: number;
  /**
   * The share of the time the catalog poll may take: after a poll that
   * took T the next waits at least T / budget (see nextCatalogPollAt).
   */
  catalogPollBudget: number;
  /** How long a removed slice's tombstone is kept for instances to see. */
  tombstoneRetentionMs: number;
}

const DEFAULTS: ReconcileSettings = {
  intervalMs: 5 * 60_000,
  catalogPollIntervalMs: 30_000,
  catalogPollBudget: 0.01,
  tombstoneRetentionMs: 60 * 60_000,
};

/**
 * Reads `healthcheck.reconcile.interval` and `.catalogPollInterval`
 * (durations such as `30s` or `5m`), and `.catalogPollBudget` (a share of
 * the time, above 0 and at most 1; 0.01 by default).
 * @throws InputError naming the key and the problem for a bad value.
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
    catalogPollBudget: readBudget(config),
    tombstoneRetentionMs: DEFAULTS.tombstoneRetentionMs,
  };
}

function readBudget(config: Config): number {
  const key = 'healthcheck.reconcile.catalogPollBudget';
  if (!config.has(key)) {
    return DEFAULTS.catalogPollBudget;
  }
  const value = config.getNumber(key);
  if (!(value > 0 && value <= 1)) {
    throw new InputError(
      `Invalid ${key} ${value}: it is the share of the time the catalog poll may take, above 0 and at most 1 (0.01 is 1%)`,
    );
  }
  return value;
}

/**
 * What may shape the desired slices, from `healthcheck.environments` and
 * `healthcheck.targets`.
 * @internal
 */
export interface DesiredSliceSettings {
  /** Which members may add an environment to their system. */
  environmentsFromMembers: EnvironmentsFromMembers;
  /** Whether a target's placeholder may pick its host. */
  allowPlaceholderHosts: boolean;
  /** Which systems a HealthCheck entity may monitor. */
  checksFromCatalog: ChecksFromCatalog;
}

const FROM_MEMBERS: readonly EnvironmentsFromMembers[] = ['owner', 'any'];

/**
 * Reads `healthcheck.environments.fromMembers` and
 * `healthcheck.checks.fromCatalog` (`owner` by default) and
 * `healthcheck.targets.allowPlaceholderHosts` (false by default): the
 * safe choice unless an operator opts out.
 * @throws InputError naming the key, for a value it does not know.
 * @internal
 */
export function readDesiredSliceSettings(config: Config): DesiredSliceSettings {
  const key = 'healthcheck.environments.fromMembers';
  const fromMembers = config.getOptionalString(key) ?? 'owner';
  if (!(FROM_MEMBERS as readonly string[]).includes(fromMembers)) {
    throw new InputError(
      `Invalid ${key} '${fromMembers}': use ${FROM_MEMBERS.join(' or ')}`,
    );
  }
  return {
    checksFromCatalog: readCatalogOwnershipRule(config),
    environmentsFromMembers: fromMembers as EnvironmentsFromMembers,
    allowPlaceholderHosts:
      config.getOptionalBoolean('healthcheck.targets.allowPlaceholderHosts') ??
      false,
  };
}
