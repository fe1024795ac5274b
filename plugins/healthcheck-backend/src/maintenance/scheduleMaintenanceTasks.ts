import { LoggerService, SchedulerService } from '@backstage/backend-plugin-api';
import type { EnvironmentTransitions } from '../rollup/EnvironmentTransitions';
import type { DatabaseMaintenanceStore } from './DatabaseMaintenanceStore';
import type { MaintenanceNotificationHold } from './MaintenanceNotificationHold';

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

/**
 * Tells, every 30 seconds on one instance, the held notifications whose
 * maintenance ended (task `healthcheck-maintenance-release`).
 * @internal
 */
export async function scheduleHeldNotificationRelease(options: {
  scheduler: SchedulerService;
  logger: LoggerService;
  hold: Pick<MaintenanceNotificationHold, 'releaseDue'>;
  transitions: Pick<EnvironmentTransitions, 'releaseHeld'>;
}): Promise<void> {
  const { scheduler, logger, hold, transitions } = options;
  await scheduler.scheduleTask({
    id: 'healthcheck-maintenance-release',
    scope: 'global',
    frequency: { seconds: 30 },
    timeout: { minutes: 5 },
    fn: async () => {
      const told = await hold.releaseDue(transitions, logger);
      if (told > 0) {
        logger.info(`Told ${told} notifications held for maintenance`);
      }
    },
  });
}
