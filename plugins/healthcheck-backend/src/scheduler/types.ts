import type { LoggerService } from '@backstage/backend-plugin-api';
import type { MetricsService } from '@backstage/backend-plugin-api/alpha';
import type { SchedulerMetrics } from './metrics';

/**
 * What the scheduler needs to know about a slice: its id and its interval.
 * Everything else (the check's config, the system, the environment) rides
 * along untouched and comes back in each {@link DueTick}.
 *
 * @internal
 */
export interface ScheduledSlice {
  /** The slice id; also the input of the stagger hash. */
  readonly id: string;
  /** Whole milliseconds, at least 1. */
  readonly intervalMs: number;
}

/**
 * One tick of one slice that fell due.
 *
 * @internal
 */
export interface DueTick<TSlice extends ScheduledSlice = ScheduledSlice> {
  readonly sliceId: string;
  /** The grid time this tick belongs to (epoch ms), never the time it ran. */
  readonly scheduledAt: number;
  /** The schedule version; compare with `SliceScheduler.isCurrent`. */
  readonly generation: number;
  readonly slice: TSlice;
}

/**
 * Receives the ticks that fell due in one wake-up, as one batch, so the next
 * stage can claim them in one database round trip. Must return quickly: start
 * the work and return promises.
 *
 * Return each tick's run keyed by the very tick object of the batch (see
 * {@link TickRuns}) to track each run on its own, or one promise for the
 * whole batch, or nothing (untracked). While a tracked run has not settled,
 * the slice's next ticks are skipped.
 *
 * @internal
 */
export type TickExecutor<TSlice extends ScheduledSlice = ScheduledSlice> = (
  batch: ReadonlyArray<DueTick<TSlice>>,
) => void | PromiseLike<unknown> | TickRuns<TSlice>;

/**
 * The runs of a batch, each keyed by its tick (the batch's own object), so a
 * run is never paired with another slice's tick; a tick left out is not
 * tracked.
 *
 * @internal
 */
export type TickRuns<TSlice extends ScheduledSlice = ScheduledSlice> =
  ReadonlyMap<DueTick<TSlice>, PromiseLike<unknown>>;

/**
 * A change to the set of scheduled slices. `replace` is a full desired set
 * (slices not in it are cancelled); `upsert` and `cancel` are partial.
 *
 * @internal
 */
export type SliceChange<TSlice extends ScheduledSlice = ScheduledSlice> =
  | { readonly type: 'replace'; readonly slices: ReadonlyArray<TSlice> }
  | { readonly type: 'upsert'; readonly slices: ReadonlyArray<TSlice> }
  | { readonly type: 'cancel'; readonly sliceIds: ReadonlyArray<string> };

/**
 * Opaque handle of a timer set through a {@link SchedulerClock}.
 *
 * @internal
 */
export type TimerHandle = unknown;

/**
 * Time as the scheduler sees it; injectable so tests run on a fake clock.
 *
 * @internal
 */
export interface SchedulerClock {
  /** Unix epoch milliseconds. */
  now(): number;
  setTimer(callback: () => void, delayMs: number): TimerHandle;
  clearTimer(handle: TimerHandle): void;
}

export type { SkipReason } from './metrics';

/**
 * Counters and sizes of a running scheduler, cumulative since start.
 *
 * @internal
 */
export interface SchedulerStats {
  liveSlices: number;
  heapSize: number;
  staleEntries: number;
  inFlight: number;
  queuedChanges: number;
  firedTicks: number;
  skippedInFlight: number;
  missedTicks: number;
  stalePops: number;
  compactions: number;
}

/**
 * Tuning of a `SliceScheduler`; every field has a default.
 *
 * @internal
 */
export interface SliceSchedulerOptions<TSlice extends ScheduledSlice> {
  /**
   * Ticks due within this many ms after a dispatch wait and go out together
   * in the next batch; an isolated tick is never delayed. 0 turns it off.
   * Default 2.
   */
  coalesceWindowMs?: number;
  /** Upper bound of the first-probe window (which is also at most half the interval). Default 5000. */
  firstProbeWindowCapMs?: number;
  /** Changes the driver holds before producers wait. Default 8. */
  inputQueueCapacity?: number;
  /** Slices of a change applied per wake-up, so due ticks are not held up. Default 1000. */
  applyChunkSize?: number;
  /**
   * When an upserted slice counts as unchanged (no new generation). Default:
   * same object, or the same own enumerable properties compared with
   * `Object.is`.
   */
  isUnchanged?: (previous: TSlice, next: TSlice) => boolean;
  /**
   * Told, on the driver, the ids of slices a change removed (cancelled, or
   * left out of a replace), so what is kept per slice elsewhere can go too.
   * Must return quickly.
   */
  onCancelled?: (sliceIds: readonly string[]) => void;
  /**
   * Loads the desired slices periodically, off the driver: either the full
   * set (`load`, applied as a replace) or the changes since the last load
   * (`loadChanges`, applied in order).
   */
  loader?: {
    load?: () => Promise<ReadonlyArray<TSlice>>;
    loadChanges?: () => Promise<ReadonlyArray<SliceChange<TSlice>>>;
    /** Pause between successful loads. Default 60 s. */
    refreshIntervalMs?: number;
    /** First retry delay after a failure, doubling per failure. Default 30 s. */
    backoffBaseMs?: number;
    /** The longest retry delay. Default 300 s. */
    backoffCapMs?: number;
  };
}

/**
 * What `SliceScheduler.create` needs.
 *
 * @internal
 */
export interface SliceSchedulerDependencies<TSlice extends ScheduledSlice> {
  logger: LoggerService;
  executor: TickExecutor<TSlice>;
  /** Backstage's metrics service, or a recorder implementing `SchedulerMetrics`. */
  metrics?: MetricsService | SchedulerMetrics;
  clock?: SchedulerClock;
  options?: SliceSchedulerOptions<TSlice>;
}
