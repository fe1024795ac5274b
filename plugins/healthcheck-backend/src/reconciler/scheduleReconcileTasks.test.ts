import { mockServices } from '@backstage/backend-test-utils';
import type {
  SchedulerService,
  SchedulerServiceTaskScheduleDefinition,
} from '@backstage/backend-plugin-api';
import type {
  CatalogChangePoller,
  CatalogPollOutcome,
} from './CatalogChangePoller';
import type { ReconcileOutcome, Reconciler } from './Reconciler';
import { scheduleReconcileTasks } from './scheduleReconcileTasks';
import type { SliceStore } from '../model';

/** The tasks as Backstage's scheduler would hold them, run by hand. */
function recordingScheduler() {
  const tasks = new Map<
    string,
    SchedulerServiceTaskScheduleDefinition & { fn: () => Promise<void> }
  >();
  const scheduler = {
    scheduleTask: async (task: { id: string; fn: () => Promise<void> }) => {
      tasks.set(task.id, task as never);
    },
  } as unknown as SchedulerService;
  return {
    scheduler,
    run: (id: string) => tasks.get(id)!.fn(),
    frequencyOf: (id: string) => tasks.get(id)!.frequency,
  };
}

function fullPass(changedSystems: string[]): ReconcileOutcome {
  return {
    scope: 'full',
    ran: true,
    scheduled: changedSystems.length,
    rescheduled: 0,
    cancelled: 0,
    changedSystems,
    revision: 1,
  };
}

async function setup(next: {
  poll: CatalogPollOutcome;
  fullPass: ReconcileOutcome;
}) {
  const { scheduler, run, frequencyOf } = recordingScheduler();
  let refreshed = 0;
  await scheduleReconcileTasks({
    scheduler,
    logger: mockServices.logger.mock(),
    settings: {
      intervalMs: 300_000,
      catalogPollIntervalMs: 30_000,
      tombstoneRetentionMs: 3_600_000,
    },
    reconciler: {
      reconcileAll: async () => next.fullPass,
    } as unknown as Reconciler,
    poller: { poll: async () => next.poll } as unknown as CatalogChangePoller,
    slices: { pruneRemoved: async () => 0 } as unknown as SliceStore,
    onSlicesChanged: () => {
      refreshed += 1;
    },
  });
  return { run, frequencyOf, refreshed: () => refreshed };
}

describe('scheduleReconcileTasks', () => {
  it('polls the catalog every catalogPollInterval and has the slices a poll changed read at once', async () => {
    const next = {
      poll: { pass: 'scoped', changedSystems: ['system:default/a'] },
      fullPass: fullPass([]),
    } as { poll: CatalogPollOutcome; fullPass: ReconcileOutcome };
    const { run, frequencyOf, refreshed } = await setup(next);
    expect(frequencyOf('healthcheck-catalog-changes')).toEqual({
      milliseconds: 30_000,
    });

    await run('healthcheck-catalog-changes');
    expect(refreshed()).toBe(1);

    next.poll = { pass: 'none', changedSystems: [] };
    await run('healthcheck-catalog-changes');
    expect(refreshed()).toBe(1);
  });

  it('has the slices a full pass changed read at once, and nothing read after one that changed none', async () => {
    const next = {
      poll: { pass: 'none', changedSystems: [] },
      fullPass: fullPass(['system:default/a']),
    } as { poll: CatalogPollOutcome; fullPass: ReconcileOutcome };
    const { run, refreshed } = await setup(next);

    await run('healthcheck-full-reconcile');
    expect(refreshed()).toBe(1);

    next.fullPass = fullPass([]);
    await run('healthcheck-full-reconcile');
    expect(refreshed()).toBe(1);
  });
});
