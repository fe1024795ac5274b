import { parseEntityRef } from '@backstage/catalog-model';
import type {
  HealthStatus,
  RollupReason,
  UpstreamProblem,
} from '@vigil/plugin-healthcheck-common';

/**
 * How environment transitions become notifications, from
 * `healthcheck.notifications`.
 * @internal
 */
export interface NotificationSettings {
  /** Environments whose outages notify with `high` severity. */
  productionEnvironments: readonly string[];
  /** Say nothing when an unhealthy upstream system explains the outage. */
  suppressUpstream: boolean;
}

/** @internal */
export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = {
  productionEnvironments: ['production', 'prod'],
  suppressUpstream: false,
};

/**
 * One notification to the owner of a system.
 * @internal
 */
export interface EnvironmentNotification {
  /** The system; Backstage's notifications service resolves its owner. */
  entityRef: string;
  payload: {
    title: string;
    description: string;
    link: string;
    severity: 'high' | 'normal' | 'low';
    topic: string;
    /** One per (system, environment), so a flapping check updates one notification. */
    scope: string;
  };
}

/**
 * The notification an environment's transition calls for, if any: one on
 * becoming unhealthy, one on recovering from it, none for anything else
 * (first runs, degradations, pauses). When unhealthy systems it depends on
 * explain the outage, it says so, or stays silent if configured to.
 * @internal
 */
export function buildEnvironmentNotification(
  change: {
    systemRef: string;
    environment: string;
    from: HealthStatus;
    to: HealthStatus;
    /** The environment's failing checks, as the rollup lists them. */
    reasons: readonly RollupReason[];
    upstream: readonly UpstreamProblem[];
  },
  settings: NotificationSettings = DEFAULT_NOTIFICATION_SETTINGS,
): EnvironmentNotification | undefined {
  const becameUnhealthy =
    change.to === 'unhealthy' && change.from !== 'unhealthy';
  const recovered =
    change.from === 'unhealthy' &&
    (change.to === 'healthy' || change.to === 'degraded');
  if (!becameUnhealthy && !recovered) {
    return undefined;
  }
  const upstream = change.upstream.filter(u => u.status === 'unhealthy');
  if (becameUnhealthy && upstream.length > 0 && settings.suppressUpstream) {
    return undefined;
  }
  const { namespace, name } = parseEntityRef(change.systemRef);
  const production = settings.productionEnvironments.some(
    env => env.toLowerCase() === change.environment.toLowerCase(),
  );
  const where = `${name} in ${change.environment}`;
  let description: string;
  if (becameUnhealthy) {
    const failing = change.reasons
      .filter(r => r.status === 'unhealthy')
      .map(r => `${r.checkId}: ${r.display}`);
    description = [
      failing.length > 0 ? `Failing: ${failing.join('; ')}.` : '',
      upstream.length > 0
        ? `Probably upstream: ${upstream.map(u => u.systemRef).join(', ')} ${
            upstream.length === 1 ? 'is' : 'are'
          } unhealthy.`
        : '',
    ]
      .filter(Boolean)
      .join(' ');
  } else {
    description = `${where} is ${change.to} again.`;
  }
  return {
    entityRef: change.systemRef,
    payload: {
      title: becameUnhealthy
        ? `${where} is unhealthy${upstream.length > 0 ? ' (upstream)' : ''}`
        : `${where} recovered`,
      description,
      link: `/catalog/${namespace}/system/${name}/health`,
      severity: severityOf(becameUnhealthy, production),
      topic: 'healthcheck',
      scope: `healthcheck:${change.systemRef.toLowerCase()}:${
        change.environment
      }`,
    },
  };
}

function severityOf(
  becameUnhealthy: boolean,
  production: boolean,
): EnvironmentNotification['payload']['severity'] {
  if (!becameUnhealthy) {
    return 'low';
  }
  return production ? 'high' : 'normal';
}
