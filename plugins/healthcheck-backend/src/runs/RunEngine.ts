import { LoggerService } from '@backstage/backend-plugin-api';
import { MetricsService } from '@backstage/backend-plugin-api/alpha';
import { Config } from '@backstage/config';
import {
  AdmissionOptions,
  Bulkhead,
  createAdmissionMetrics,
} from '../admission';
import { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';
import {
  ScheduledSlice,
  SchedulerClock,
  SliceChange,
  SliceScheduler,
} from '../scheduler';
import { sameOwnProperties } from '../scheduler/sliceChecks';
import { readEngineSettings } from './engineSettings';
import { createRunMetrics } from './runMetrics';
import { TickRunner } from './TickRunner';
import type { RunRecord, SliceStateStore } from '../model';
import type { RunnableSlice, TickClaims } from '../model';

/**
 * Loads the desired slices, in full or as changes; see the scheduler's
 * loader.
 */
export interface SliceSource<TSlice extends ScheduledSlice> {
  load?(): Promise<ReadonlyArray<TSlice>>;
  loadChanges?(): Promise<ReadonlyArray<SliceChange<TSlice>>>;
  refreshIntervalMs?: number;
}

/** How often an instance looks for changed slices unless configured. */
const DEFAULT_REFRESH_INTERVAL_MS = 2_000;

/** How long shutdown waits for probes in flight before aborting them. */
const SHUTDOWN_AWAIT_IN_FLIGHT_MS = 10_000;

/**
 * The probing machinery of one backend instance: the heap scheduler decides
 * what runs next, the bulkhead whether it may run now, the runner probes and
 * judges. Slices come in through {@link RunEngine.scheduler}'s `submit`.
 */
export class RunEngine<TSlice extends RunnableSlice = RunnableSlice> {
  readonly scheduler: SliceScheduler<TSlice>;
  readonly runner: TickRunner<TSlice>;
  readonly bulkhead: Bulkhead;

  static fromConfig<TSlice extends RunnableSlice = RunnableSlice>(options: {
    config: Config;
    logger: LoggerService;
    probeTypes: ProbeTypeRegistry;
    metrics?: MetricsService;
    states?: SliceStateStore;
    onRun?: (record: RunRecord) => void | Promise<void>;
    loader?: SliceSource<TSlice>;
    claims?: TickClaims;
    isEffective?: (slice: TSlice) => boolean;
  }): RunEngine<TSlice> {
    const settings = readEngineSettings(options.config, options.logger);
    return new RunEngine<TSlice>({
      ...options,
      loader: options.loader && {
        load: options.loader.load && (() => options.loader!.load!()),
        loadChanges:
          options.loader.loadChanges && (() => options.loader!.loadChanges!()),
        refreshIntervalMs:
          settings.refreshIntervalMs ??
          options.loader.refreshIntervalMs ??
          DEFAULT_REFRESH_INTERVAL_MS,
      },
      coalesceWindowMs: settings.coalesceWindowMs,
      admission: settings.admission,
    });
  }

  constructor(options: {
    logger: LoggerService;
    probeTypes: ProbeTypeRegistry;
    metrics?: MetricsService;
    states?: SliceStateStore;
    onRun?: (record: RunRecord) => void | Promise<void>;
    admission?: Partial<AdmissionOptions>;
    coalesceWindowMs?: number;
    clock?: SchedulerClock;
    /** Where the desired slices come from; refreshed off the driver. */
    loader?: SliceSource<TSlice>;
    /** Claims across instances; without it every due tick runs here. */
    claims?: TickClaims;
    /**
     * Whether the slice still runs as of the latest read of the desired
     * slices (its environment still one of its system's); checked for each
     * tick, ahead of the scheduler applying the read. Default yes.
     */
    isEffective?: (slice: TSlice) => boolean;
  }) {
    const { logger, metrics, clock } = options;
    this.bulkhead = new Bulkhead(options.admission, {
      clock,
      metrics: metrics ? createAdmissionMetrics(metrics) : undefined,
    });
    this.runner = new TickRunner<TSlice>({
      probeTypes: options.probeTypes,
      bulkhead: this.bulkhead,
      logger: logger.child({ component: 'runner' }),
      isCurrent: tick =>
        this.scheduler.isCurrent(tick.sliceId, tick.generation),
      isEffective: options.isEffective,
      states: options.states,
      onRun: options.onRun,
      claims: options.claims,
      metrics: metrics ? createRunMetrics(metrics) : undefined,
      clock,
    });
    this.scheduler = SliceScheduler.create<TSlice>({
      logger: logger.child({ component: 'scheduler' }),
      metrics,
      clock,
      executor: this.runner.execute,
      options: {
        coalesceWindowMs: options.coalesceWindowMs,
        loader: options.loader,
        isUnchanged: sameRunDefinition,
        onCancelled: sliceIds => this.runner.forget(sliceIds),
      },
    });
  }

  start(): void {
    this.scheduler.start();
  }

  /** Stops scheduling, waits a bounded time for probes in flight, then aborts the rest. */
  async stop(options: { awaitInFlightMs?: number } = {}): Promise<void> {
    await this.scheduler.stop({
      awaitInFlightMs: options.awaitInFlightMs ?? SHUTDOWN_AWAIT_IN_FLIGHT_MS,
    });
    this.runner.abortAll();
  }
}

/**
 * Reloaded slices are new objects; a slice that carries a config hash is
 * unchanged when its hash and timing are, so a reload does not restart it.
 */
function sameRunDefinition<TSlice extends RunnableSlice>(
  previous: TSlice,
  next: TSlice,
): boolean {
  const hashOf = (slice: TSlice) =>
    (slice as { configHash?: unknown }).configHash;
  if (hashOf(previous) === undefined || hashOf(next) === undefined) {
    return sameOwnProperties(previous, next);
  }
  return (
    hashOf(previous) === hashOf(next) &&
    previous.intervalMs === next.intervalMs &&
    previous.timeoutMs === next.timeoutMs
  );
}
