import type { SystemRollup } from '@vigil/plugin-healthcheck-common';
import type { HistoryStore } from '../history';
import type { BadgeMeasurementQuery, BadgeRouterOptions } from './badgeRouter';

/**
 * What badges show, from the rollups and the run history.
 * @internal
 */
export function badgeLoaders(deps: {
  loadRollup: (systemRef: string) => Promise<SystemRollup | undefined>;
  history: Pick<HistoryStore, 'uptime' | 'responseTime'>;
}): Pick<BadgeRouterOptions, 'loadRollup' | 'loadUptime' | 'loadResponseTime'> {
  const range = (query: BadgeMeasurementQuery) => ({
    systemRef: query.systemRef,
    environment: query.environment,
    from: query.from.getTime(),
    to: query.to.getTime(),
  });
  return {
    loadRollup: deps.loadRollup,
    loadUptime: async query => (await deps.history.uptime(range(query))).uptime,
    loadResponseTime: async query => {
      const { p50Ms, p95Ms } = await deps.history.responseTime(range(query));
      return p50Ms === undefined || p95Ms === undefined
        ? undefined
        : { p50: p50Ms, p95: p95Ms };
    },
  };
}
