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
import type { CatalogPollRecord, SliceStore } from '../model';

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
  let polls = 0;
  let clock = 1_700_000_000_000;
  // What every instance reads of the last poll, as the store keeps it.
  let lastPoll: CatalogPollRecord | undefined;
  await scheduleReconcileTasks({
    scheduler,
    logger: mockServices.logger.mock(),
    settings: {
      intervalMs: 300_000,
      catalogPollIntervalMs: 30_000,
      catalogPollBudget: 0.01,
      tombstoneRetentionMs: 3_600_000,
    },
    reconciler: {
      reconcileAll: async () => next.fullPass,
    } as unknown as Reconciler,
    poller: {
      poll: async () => {
        polls += 1;
        return next.poll;
      },
    } as unknown as CatalogChangePoller,
    slices: {
      pruneRemoved: async () => 0,
      readCatalogPoll: async () => lastPoll,
      writeCatalogPoll: async (record: CatalogPollRecord) => {
        lastPoll = record;
      },
    } as unknown as SliceStore,
    onSlicesChanged: () => {
      refreshed += 1;
    },
    now: () => clock,
  });
  return {
    run,
    frequencyOf,
    refreshed: () => refreshed,
    polls: () => polls,
    lastPoll: () => lastPoll,
    advance: (ms: number) => {
      clock += ms;
    },
  };
}

const nothingChanged = (detectMs = 40): CatalogPollOutcome => ({
  pass: 'none',
  changedSystems: [],
  detectMs,
});

describe('scheduleReconcileTasks', () => {
  it('polls the catalog every catalogPollInterval and has the slices a poll changed read at once', async () => {
    const next = {
      poll: {
        pass: 'scoped',
        changedSystems: ['system:default/a'],
        detectMs: 40,
      },
      fullPass: fullPass([]),
    } as { poll: CatalogPollOutcome; fullPass: ReconcileOutcome };
    const { run, frequencyOf, refreshed, advance } = await setup(next);
    expect(frequencyOf('healthcheck-catalog-changes')).toEqual({
      milliseconds: 30_000,
    });

    await run('healthcheck-catalog-changes');
    expect(refreshed()).toBe(1);

    next.poll = nothingChanged();
    advance(30_000);
    await run('healthcheck-catalog-changes');
    expect(refreshed()).toBe(1);
  });

  it('polls on every turn while a poll takes under 1% of the interval, and records each', async () => {
    const next = { poll: nothingChanged(250), fullPass: fullPass([]) };
    const { run, polls, lastPoll, advance } = await setup(next);
    for (let turn = 0; turn < 4; turn++) {
      await run('healthcheck-catalog-changes');
      advance(30_000);
    }
    expect(polls()).toBe(4);
    expect(lastPoll()).toEqual({ startedAt: 1_700_000_090_000, tookMs: 250 });
  });

  it('passes its turns while the last poll, whichever instance ran it, took more than 1% of the time since', async () => {
    // A catalog whose poll takes 1.8 s: one poll per 180 s, not per 30 s.
    const next = { poll: nothingChanged(1_800), fullPass: fullPass([]) };
    const { run, polls, advance } = await setup(next);
    await run('healthcheck-catalog-changes');
    expect(polls()).toBe(1);
    for (let turn = 1; turn < 6; turn++) {
      advance(30_000);
      await run('healthcheck-catalog-changes');
      expect(polls()).toBe(1);
    }
    advance(30_000);
    await run('healthcheck-catalog-changes');
    expect(polls()).toBe(2);
  });

  it('polls at least once per full-pass interval however slow the last poll was', async () => {
    const next = { poll: nothingChanged(60_000), fullPass: fullPass([]) };
    const { run, polls, advance } = await setup(next);
    await run('healthcheck-catalog-changes');
    advance(270_000);
    await run('healthcheck-catalog-changes');
    expect(polls()).toBe(1);
    advance(30_000);
    await run('healthcheck-catalog-changes');
    expect(polls()).toBe(2);
  });

  it('has the slices a full pass changed read at once, and nothing read after one that changed none', async () => {
    const next = {
      poll: nothingChanged(),
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
