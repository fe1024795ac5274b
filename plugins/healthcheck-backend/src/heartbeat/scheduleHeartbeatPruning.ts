import type {
  LoggerService,
  SchedulerService,
} from '@backstage/backend-plugin-api';
import type { DatabaseHeartbeatStore } from './DatabaseHeartbeatStore';

/**
 * Prunes the heartbeat rows of slices that are gone, hourly, on one
 * instance at a time (the slices' tombstones are kept an hour, so a row
 * goes within two hours of its slice).
 * @internal
 */
export async function scheduleHeartbeatPruning(options: {
  scheduler: SchedulerService;
  store: Pick<DatabaseHeartbeatStore, 'pruneOrphans'>;
  logger: LoggerService;
}): Promise<void> {
  const { scheduler, store, logger } = options;
  await scheduler.scheduleTask({
    id: 'healthcheck-heartbeat-pruning',
    scope: 'global',
    frequency: { hours: 1 },
    timeout: { minutes: 5 },
    initialDelay: { minutes: 5 },
    fn: async () => {
      const pruned = await store.pruneOrphans();
      if (pruned > 0) {
        logger.info(
          `Pruned the ping URLs of ${pruned} removed heartbeat slices`,
        );
      }
    },
  });
}
