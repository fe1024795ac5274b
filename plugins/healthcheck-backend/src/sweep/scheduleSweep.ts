import { SchedulerService } from '@backstage/backend-plugin-api';
import type { HealthSweep } from './HealthSweep';
import type { SweepSettings } from './sweepSettings';

/**
 * The id of the sweep in Backstage's scheduler.
 * @internal
 */
export const SWEEP_TASK_ID = 'healthcheck-sweep';

/**
 * Registers the sweep as a Backstage scheduler task, `healthcheck-sweep`:
 * global scope, so one instance at a time runs it, every
 * `settings.intervalMs`, the first one interval after start.
 * @internal
 */
export async function scheduleSweep(options: {
  scheduler: SchedulerService;
  sweep: Pick<HealthSweep, 'rederiveNow'>;
  settings: SweepSettings;
}): Promise<void> {
  const { scheduler, sweep, settings } = options;
  await scheduler.scheduleTask({
    id: SWEEP_TASK_ID,
    scope: 'global',
    frequency: { milliseconds: settings.intervalMs },
    timeout: { milliseconds: Math.max(settings.intervalMs, 10 * 60_000) },
    initialDelay: { milliseconds: settings.intervalMs },
    fn: async () => {
      await sweep.rederiveNow();
    },
  });
}
