import { readConfigDuration } from '@vigil/plugin-healthcheck-node';
import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  NotificationSettings,
  UPSTREAM_ATTRIBUTIONS,
  UpstreamAttribution,
} from './buildNotification';
import { DEFAULT_ROLLUP_WINDOW_MS } from './RollupConsumer';

/**
 * `healthcheck.rollup` and `healthcheck.notifications`.
 * @internal
 */
export interface RollupSettings {
  /** One rollup recompute per system per window. */
  windowMs: number;
  notifications: NotificationSettings;
}

/** @internal */
export function readRollupSettings(config: Config): RollupSettings {
  const notifications = config.getOptionalConfig('healthcheck.notifications');
  return {
    windowMs:
      readConfigDuration(config, 'healthcheck.rollup.window') ??
      DEFAULT_ROLLUP_WINDOW_MS,
    notifications: {
      productionEnvironments:
        notifications?.getOptionalStringArray('productionEnvironments') ??
        DEFAULT_NOTIFICATION_SETTINGS.productionEnvironments,
      suppressUpstream:
        notifications?.getOptionalBoolean('suppressUpstream') ??
        DEFAULT_NOTIFICATION_SETTINGS.suppressUpstream,
      upstreamAttribution: readUpstreamAttribution(config),
      groupUpstreamIncidents:
        notifications?.getOptionalBoolean('groupUpstreamIncidents') ??
        DEFAULT_NOTIFICATION_SETTINGS.groupUpstreamIncidents,
      upstreamGraceMs:
        readConfigDuration(config, 'healthcheck.notifications.upstreamGrace') ??
        DEFAULT_NOTIFICATION_SETTINGS.upstreamGraceMs,
      remindAfterMs: readConfigDuration(
        config,
        'healthcheck.notifications.remindAfter',
        { minimumMs: 60_000 },
      ),
      upstreamSettleMs: DEFAULT_NOTIFICATION_SETTINGS.upstreamSettleMs,
    },
  };
}

function readUpstreamAttribution(config: Config): UpstreamAttribution {
  const key = 'healthcheck.notifications.upstreamAttribution';
  const value = config.getOptionalString(key);
  if (value === undefined) {
    return DEFAULT_NOTIFICATION_SETTINGS.upstreamAttribution;
  }
  if (!(UPSTREAM_ATTRIBUTIONS as readonly string[]).includes(value)) {
    throw new InputError(
      `Invalid ${key} '${value}': use ${UPSTREAM_ATTRIBUTIONS.map(
        a => `'${a}'`,
      ).join(' or ')}`,
    );
  }
  return value as UpstreamAttribution;
}
