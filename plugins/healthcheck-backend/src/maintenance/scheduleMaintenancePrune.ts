import { LoggerService, SchedulerService } from '@backstage/backend-plugin-api';
import type { DatabaseMaintenanceStore } from './DatabaseMaintenanceStore';

/**
 * Prunes the API's maintenance windows that ended longer ago than hourly
 * history is kept (their time is excluded from that history's up-time),
 * once an hour on one instance: task `healthcheck-maintenance-prune`.
 * @internal
 */
export async function scheduleMaintenancePrune(options: {
  scheduler: SchedulerService;
  logger: LoggerService;
  store: Pick<DatabaseMaintenanceStore, 'prune'>;
  retentionMs: number;
  now?: () => number;
}): Promise<void> {
  const { scheduler, logger, store, retentionMs } = options;
  const now = options.now ?? Date.now;
  await scheduler.scheduleTask({
    id: 'healthcheck-maintenance-prune',
    scope: 'global',
    frequency: { hours: 1 },
    timeout: { minutes: 5 },
    initialDelay: { minutes: 2 },
    fn: async () => {
      const pruned = await store.prune(now() - retentionMs);
      if (pruned > 0) {
        logger.info(`Pruned ${pruned} ended maintenance windows`);
      }
    },
  });
}
