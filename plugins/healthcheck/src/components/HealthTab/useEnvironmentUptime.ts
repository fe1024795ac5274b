import { useApi } from '@backstage/core-plugin-api';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import { HISTORY_RANGES, HistoryRange } from './historyData';

/** Up-time and response time of one environment over one window. */
export interface WindowStats {
  uptime?: number;
  p95Ms?: number;
  runCount: number;
}

/** Per environment name, per window. */
export type EnvironmentUptime = Record<
  string,
  Partial<Record<HistoryRange, WindowStats>>
>;

/**
 * Up-time and p95 response time of each environment over 24 hours, 7 days
 * and 30 days: one hourly history request per environment and window
 * (3 per environment, all at once), independent of the number of checks.
 */
export function useEnvironmentUptime(
  systemRef: string | undefined,
  environments: readonly string[],
) {
  const api = useApi(healthcheckApiRef);
  const key = environments.join('\u0000');
  return useAsyncRetry(async (): Promise<EnvironmentUptime> => {
    if (!systemRef || environments.length === 0) {
      return {};
    }
    const to = new Date();
    const entries = await Promise.all(
      environments.flatMap(environment =>
        HISTORY_RANGES.map(async ({ range, ms }) => {
          const history = await api.getSystemHistory(systemRef, {
            environment,
            granularity: 'hours',
            from: new Date(to.getTime() - ms),
            to,
          });
          const stats: WindowStats = {
            uptime: history.uptime.uptime,
            p95Ms: history.responseTime.p95Ms,
            runCount: history.responseTime.runCount,
          };
          return { environment, range, stats };
        }),
      ),
    );
    const result: EnvironmentUptime = {};
    for (const { environment, range, stats } of entries) {
      (result[environment] ??= {})[range] = stats;
    }
    return result;
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [api, systemRef, key]);
}
