import { LoggerService, SchedulerService } from '@backstage/backend-plugin-api';
import type { CatalogChangePoller } from './CatalogChangePoller';
import { nextCatalogPollAt } from './catalogPollPacing';
import type { Reconciler } from './Reconciler';
import type { ReconcileSettings } from './reconcileSettings';
import type { SliceStore } from '../model';

/**
 * Registers the reconciler's periodic work with Backstage's scheduler, in
 * global scope so one instance at a time runs each: the full pass (at
 * start, then every `intervalMs`; it also prunes old tombstones) and the
 * catalog poll.
 * @internal
 */
export async function scheduleReconcileTasks(options: {
  scheduler: SchedulerService;
  logger: LoggerService;
  settings: ReconcileSettings;
  reconciler: Reconciler;
  poller: CatalogChangePoller;
  slices: SliceStore;
  /**
   * After a pass of either task changed slices: this instance's probe
   * scheduler reads them at once rather than at its next refresh, so a
   * system found moved by a poll is probed without that wait.
   */
  onSlicesChanged?: () => void;
  now?: () => number;
}): Promise<void> {
  const { scheduler, logger, settings, reconciler, poller, slices } = options;
  const now = options.now ?? Date.now;
  const onSlicesChanged = options.onSlicesChanged ?? (() => {});
  await scheduler.scheduleTask({
    id: 'healthcheck-full-reconcile',
    scope: 'global',
    frequency: { milliseconds: settings.intervalMs },
    timeout: { milliseconds: Math.max(settings.intervalMs, 10 * 60_000) },
    initialDelay: { seconds: 0 },
    fn: async () => {
      const outcome = await reconciler.reconcileAll();
      if (outcome.changedSystems.length > 0) {
        onSlicesChanged();
      }
      const pruned = await slices.pruneRemoved(
        now() - settings.tombstoneRetentionMs,
      );
      if (pruned > 0) {
        logger.debug(`Pruned ${pruned} tombstones of removed slices`);
      }
    },
  });
  await scheduler.scheduleTask({
    id: 'healthcheck-catalog-changes',
    scope: 'global',
    frequency: { milliseconds: settings.catalogPollIntervalMs },
    timeout: {
      milliseconds: Math.max(settings.catalogPollIntervalMs, 5 * 60_000),
    },
    initialDelay: { milliseconds: settings.catalogPollIntervalMs },
    fn: async () => {
      const last = await slices.readCatalogPoll();
      if (now() < nextCatalogPollAt(last, settings)) {
        return;
      }
      const startedAt = now();
      const outcome = await poller.poll();
      await slices.writeCatalogPoll({ startedAt, tookMs: outcome.detectMs });
      if (outcome.pass !== 'none') {
        onSlicesChanged();
      }
    },
  });
}
