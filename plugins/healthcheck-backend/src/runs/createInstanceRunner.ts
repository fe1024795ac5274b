import { readConfigDuration } from '@vigil/plugin-healthcheck-node';
import { DatabaseService, LoggerService } from '@backstage/backend-plugin-api';
import { MetricsService } from '@backstage/backend-plugin-api/alpha';
import { Config } from '@backstage/config';
import { toError } from '@backstage/errors';
import {
  createTickClaims,
  DatabaseClaimStore,
  InstanceMembership,
  TickClaimer,
} from '../claims';
import { primeBulkhead } from '../admission';
import {
  createJournalMetrics,
  type JournaledRun,
  OutageJournal,
  OutageMode,
  readOutageSettings,
} from '../outage';
import { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';
import { createStoredSliceSource } from '../reconciler/createStoredSliceSource';
import type { DesiredSlice } from '../model';
import type { SliceChange } from '../scheduler';
import type { RederiveHealth } from '../sweep';
import { RunEngine } from './RunEngine';
import type { SliceStateStore, SliceStore } from '../model';

/**
 * One backend instance's probing: it joins the instances that share the
 * database, loads the slices the reconciler stored, and probes the ticks it
 * claims. What `plugin.ts` starts, and what a test starts several times.
 * @internal
 */
export interface InstanceRunner {
  readonly instanceId: string;
  readonly engine: RunEngine<DesiredSlice>;
  /** Joins the instances sharing the database, and starts probing. */
  start(): Promise<void>;
  /**
   * Stops probing and leaves at once, then waits (bounded) for the runs in
   * flight and writes what it can of the results still waiting (bounded).
   */
  stop(): Promise<void>;
}

/**
 * Builds the engine and this instance's membership; `start` joins the
 * instance set (the first heartbeat: from then on the others leave this
 * instance its slices) and begins probing.
 * @internal
 */
export async function createInstanceRunner(options: {
  config: Config;
  logger: LoggerService;
  database: DatabaseService;
  slices: SliceStore;
  probeTypes: ProbeTypeRegistry;
  metrics?: MetricsService;
  /** Fixed instance id, for tests; default: host name and a random UUID. */
  instanceId?: string;
  /** Where slice states live between runs; default in memory. */
  states?: SliceStateStore;
  /** After a batch of results is written. */
  afterComplete?: (records: JournaledRun[]) => Promise<void>;
  /** After an outage, once its results are written: re-derives health. */
  rederive?: RederiveHealth;
}): Promise<InstanceRunner> {
  const { config, logger, metrics } = options;
  const claimStore = await DatabaseClaimStore.create({
    database: options.database,
  });
  const membership = InstanceMembership.create({
    store: claimStore,
    logger,
    options: {
      heartbeatMs: readConfigDuration(
        config,
        'healthcheck.instances.heartbeatInterval',
      ),
      ttlMs: readConfigDuration(config, 'healthcheck.instances.ttl'),
      instanceId: options.instanceId,
    },
  });
  const outage = new OutageMode({
    instanceId: membership.instanceId,
    store: claimStore,
    journal: new OutageJournal<JournaledRun>({
      maxEntries: readOutageSettings(config).maxJournaledRuns,
      metrics: metrics && createJournalMetrics(metrics),
    }),
    afterWrite: options.afterComplete,
    rederive: options.rederive,
    logger: logger.child({ component: 'outage' }),
  });
  const claimer = new TickClaimer({
    store: claimStore,
    membership,
    logger,
    metrics,
    unclaimed: outage,
  });
  const loader = createStoredSliceSource({ slices: options.slices });
  let primed = false;
  const engine: RunEngine<DesiredSlice> = RunEngine.fromConfig({
    config,
    logger,
    probeTypes: options.probeTypes,
    metrics,
    loader: {
      // The first slices read go to the bulkhead with their stored runs
      // first, so it does not start cold after a restart.
      loadChanges: async () => {
        const changes = await loader.loadChanges();
        if (!primed) {
          primed = true;
          await primeFromStoredRuns(engine, claimStore, changes, logger);
        }
        return changes;
      },
    },
    isEffective: slice => loader.isRunning(slice.id),
    states: options.states,
    claims: createTickClaims({
      claimer,
      store: claimStore,
      membership,
      results: outage,
      logger,
    }),
  });
  // What changed meanwhile, at once rather than after the loader's backoff.
  outage.onDatabaseBack(() => engine.scheduler.refreshDesired());
  return {
    instanceId: membership.instanceId,
    engine,
    start: async () => {
      await membership.join();
      engine.start();
    },
    stop: async () => {
      // Firing stops at the call. Leaving before the drain lets the others
      // take this instance's slices while its probes in flight finish and
      // their results are written, however long a slow shutdown takes; the
      // ticks in flight are claimed, so nobody runs them again.
      const draining = engine.stop();
      await membership.stop();
      await draining;
      await outage.stop();
    },
  };
}

/** Never fails the load: a bulkhead that cannot be primed starts cold. */
async function primeFromStoredRuns(
  engine: RunEngine<DesiredSlice>,
  claimStore: DatabaseClaimStore,
  changes: ReadonlyArray<SliceChange<DesiredSlice>>,
  logger: LoggerService,
): Promise<void> {
  const slices = changes.flatMap(change =>
    change.type === 'cancel' ? [] : change.slices,
  );
  try {
    const primedSlices = await primeBulkhead({
      bulkhead: engine.bulkhead,
      slices,
      readRecentRuns: (ids, since, perSlice) =>
        claimStore.readRecentRuns(ids, since, perSlice),
      now: Date.now(),
    });
    logger.info(
      `Admission starts from the stored runs of ${primedSlices} of ${slices.length} slices`,
    );
  } catch (error) {
    logger.warn(
      'Could not read stored runs for admission; it starts cold',
      toError(error),
    );
  }
}
