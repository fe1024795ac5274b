import type { LoggerService } from '@backstage/backend-plugin-api';
import { BoundedQueue } from './BoundedQueue';
import { MAX_TIMER_DELAY_MS, systemClock } from './clock';
import { SliceRefresher } from './SliceRefresher';
import { DueHeap } from './DueHeap';
import {
  createSchedulerMetrics,
  isMetricsService,
  noopSchedulerMetrics,
  type SchedulerMetrics,
} from './metrics';
import {
  FIRST_PROBE_WINDOW_CAP_MS,
  firstDueAt,
  gridPointAfter,
  missedTicks,
  nextTick,
  staggerOffsetMs,
} from './tickGrid';
import { stableHash } from '../hashing/stableHash';
import { isValidSlice, sameOwnProperties } from './sliceChecks';
import type {
  DueTick,
  ScheduledSlice,
  SchedulerClock,
  SchedulerStats,
  SliceChange,
  SliceSchedulerDependencies,
  TickExecutor,
  TickRuns,
  TimerHandle,
} from './types';

const DEFAULT_COALESCE_WINDOW_MS = 2;
const DEFAULT_INPUT_QUEUE_CAPACITY = 8;
/** A few ms of work: a big change never holds due ticks up for longer. */
const DEFAULT_APPLY_CHUNK_SIZE = 1_000;
const DEFAULT_AWAIT_IN_FLIGHT_MS = 10_000;
/** A wall clock stepping back more than this rebuilds the schedule. */
const CLOCK_STEP_BACK_TOLERANCE_MS = 1_000;
const EXECUTOR_ERROR_LOG_INTERVAL_MS = 60_000;
/** The generation of a cancelled slice: no heap entry carries it. */
const CANCELLED = -1;

/** The driver's record of one live slice; its heap entry points here. */
class LiveSlice<TSlice extends ScheduledSlice> {
  slice: TSlice;
  /** Matches the generation of the slice's one valid heap entry. */
  generation: number;
  offsetMs: number;
  dueAt: number;
  /** Whether a tick came due yet (the first probe is still pending if not). */
  hasTicked: boolean;
  /** The last change that named this slice; a replace cancels the others. */
  seenInChange: number;

  constructor(
    slice: TSlice,
    generation: number,
    offsetMs: number,
    dueAt: number,
    seenInChange: number,
  ) {
    this.slice = slice;
    this.generation = generation;
    this.offsetMs = offsetMs;
    this.dueAt = dueAt;
    this.hasTicked = false;
    this.seenInChange = seenInChange;
  }
}

interface ChangeInProgress<TSlice extends ScheduledSlice> {
  change: SliceChange<TSlice>;
  /** Index of the next slice (or id) to apply. */
  position: number;
  invalid: number;
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as PromiseLike<unknown>).then === 'function'
  );
}

/**
 * The one owner of "what runs next" on a backend instance: one min-heap of due
 * ticks, one timer, one driver. Slices fire on an epoch-anchored grid
 * (`k * interval + hash(id) mod interval`); edits and cancels write a new
 * generation and leave the old heap entry to die when it surfaces.
 *
 * The driver never awaits anything: a wake-up applies a chunk of at most one
 * queued change, drains the ticks that are due (never one early), hands them
 * to the executor as one batch, and re-arms the timer.
 *
 * @internal
 */
export class SliceScheduler<TSlice extends ScheduledSlice = ScheduledSlice> {
  readonly #logger: LoggerService;
  readonly #executor: TickExecutor<TSlice>;
  readonly #metrics: SchedulerMetrics;
  readonly #clock: SchedulerClock;
  readonly #coalesceWindowMs: number;
  readonly #firstProbeWindowCapMs: number;
  readonly #applyChunkSize: number;
  readonly #isUnchanged: (previous: TSlice, next: TSlice) => boolean;
  readonly #onCancelled: (sliceIds: readonly string[]) => void;
  readonly #loader: SliceRefresher<TSlice> | undefined;

  readonly #live = new Map<string, LiveSlice<TSlice>>();
  readonly #heap = new DueHeap<LiveSlice<TSlice>>();
  readonly #input: BoundedQueue<SliceChange<TSlice>>;
  /** The change being applied, a chunk per wake-up. */
  #applying: ChangeInProgress<TSlice> | undefined;
  #changeSerial = 0;
  /** Settles (never rejects) when the slice's running probe ends. */
  readonly #inFlight = new Map<string, Promise<void>>();
  #nextGeneration = 1;
  #staleEntries = 0;

  #state: 'new' | 'running' | 'stopped' = 'new';
  #timer: TimerHandle | undefined;
  #timerAt = Infinity;
  #lastDrainAt = -Infinity;
  #lastNow = -Infinity;
  #unobserveSizes: () => void = () => {};
  #lastExecutorErrorLogAt = -Infinity;
  #suppressedExecutorErrors = 0;
  readonly #counters = {
    firedTicks: 0,
    skippedInFlight: 0,
    missedTicks: 0,
    stalePops: 0,
    compactions: 0,
  };

  static create<TSlice extends ScheduledSlice>(
    dependencies: SliceSchedulerDependencies<TSlice>,
  ): SliceScheduler<TSlice> {
    return new SliceScheduler(dependencies);
  }

  private constructor(dependencies: SliceSchedulerDependencies<TSlice>) {
    const { logger, executor, metrics, options = {} } = dependencies;
    this.#logger = logger;
    this.#executor = executor;
    if (!metrics) {
      this.#metrics = noopSchedulerMetrics;
    } else {
      this.#metrics = isMetricsService(metrics)
        ? createSchedulerMetrics(metrics)
        : metrics;
    }
    this.#clock = dependencies.clock ?? systemClock;
    this.#coalesceWindowMs = Math.max(
      0,
      options.coalesceWindowMs ?? DEFAULT_COALESCE_WINDOW_MS,
    );
    this.#firstProbeWindowCapMs =
      options.firstProbeWindowCapMs ?? FIRST_PROBE_WINDOW_CAP_MS;
    this.#isUnchanged = options.isUnchanged ?? sameOwnProperties;
    this.#onCancelled = options.onCancelled ?? (() => {});
    this.#applyChunkSize = Math.max(
      1,
      options.applyChunkSize ?? DEFAULT_APPLY_CHUNK_SIZE,
    );
    this.#input = new BoundedQueue({
      capacity: options.inputQueueCapacity ?? DEFAULT_INPUT_QUEUE_CAPACITY,
      onAvailable: () => this.#arm(),
    });
    if (options.loader) {
      this.#loader = new SliceRefresher({
        ...options.loader,
        submit: change => this.submit(change),
        clock: this.#clock,
        logger,
      });
    }
  }

  // ---------------------------------------------------------------- public

  /** Starts the driver (and the loader, if configured). */
  start(): void {
    if (this.#state !== 'new') {
      throw new Error(`Cannot start a scheduler that is ${this.#state}`);
    }
    this.#state = 'running';
    this.#unobserveSizes = this.#metrics.observeSizes(() => ({
      heapSize: this.#heap.size,
      liveSlices: this.#live.size,
    }));
    this.#loader?.start();
    this.#arm();
  }

  /**
   * Stops firing, leaves no timer behind, and waits up to `awaitInFlightMs`
   * for running probes to finish.
   */
  async stop(options: { awaitInFlightMs?: number } = {}): Promise<void> {
    if (this.#state === 'stopped') {
      return;
    }
    this.#state = 'stopped';
    this.#loader?.stop();
    this.#disarm();
    this.#input.close(new Error('The slice scheduler has stopped'));
    this.#unobserveSizes();

    const running = [...this.#inFlight.values()];
    const boundMs = options.awaitInFlightMs ?? DEFAULT_AWAIT_IN_FLIGHT_MS;
    if (running.length === 0 || boundMs <= 0) {
      return;
    }
    let timeout: TimerHandle | undefined;
    const allDone = await Promise.race([
      Promise.all(running).then(() => true),
      new Promise<boolean>(resolve => {
        timeout = this.#clock.setTimer(() => resolve(false), boundMs);
      }),
    ]);
    this.#clock.clearTimer(timeout);
    if (!allDone) {
      this.#logger.warn(
        `Scheduler stopped with ${
          this.#inFlight.size
        } probes still running after ${boundMs} ms`,
      );
    }
  }

  /**
   * Queues a change for the driver. Resolves once queued; waits while the
   * queue is full, so a fast producer cannot outrun the driver.
   */
  submit(change: SliceChange<TSlice>): Promise<void> {
    return this.#input.put(change);
  }

  /** Whether a tick's generation is still the slice's current schedule. */
  isCurrent(sliceId: string, generation: number): boolean {
    return this.#live.get(sliceId)?.generation === generation;
  }

  /** Asks the loader for the desired slices now, not at its next refresh. */
  refreshDesired(): void {
    this.#loader?.refreshNow();
  }

  stats(): SchedulerStats {
    return {
      liveSlices: this.#live.size,
      heapSize: this.#heap.size,
      staleEntries: this.#staleEntries,
      inFlight: this.#inFlight.size,
      queuedChanges:
        this.#input.length + this.#input.waiting + (this.#applying ? 1 : 0),
      ...this.#counters,
    };
  }

  // ---------------------------------------------------------------- driver

  readonly #onTimer = (): void => {
    this.#timer = undefined;
    this.#timerAt = Infinity;
    if (this.#state !== 'running') {
      return;
    }
    this.#applySome(this.#observeNow());
    const now = this.#observeNow();
    if (this.#heap.peekDueAt() <= now) {
      this.#drainDue(now);
    }
    this.#arm();
  };

  /** One timer for the whole heap, aimed at the next thing to do. */
  #arm(): void {
    if (this.#state !== 'running') {
      return;
    }
    const now = this.#clock.now();
    let wakeAt: number;
    if (this.#applying || this.#input.length > 0) {
      wakeAt = now;
    } else if (this.#heap.size > 0) {
      wakeAt = Math.max(
        this.#heap.peekDueAt(),
        this.#lastDrainAt + this.#coalesceWindowMs,
      );
    } else {
      this.#disarm(); // nothing to do: wait for input, without spinning
      return;
    }
    // Round up, never down: a tick must not run before its due time.
    const delayMs = Math.min(
      MAX_TIMER_DELAY_MS,
      Math.max(0, Math.ceil(wakeAt - now)),
    );
    if (this.#timer !== undefined && this.#timerAt <= now + delayMs) {
      return;
    }
    this.#disarm();
    this.#timerAt = now + delayMs;
    this.#timer = this.#clock.setTimer(this.#onTimer, delayMs);
  }

  #disarm(): void {
    if (this.#timer !== undefined) {
      this.#clock.clearTimer(this.#timer);
      this.#timer = undefined;
      this.#timerAt = Infinity;
    }
  }

  /** Pops every tick due by `now` and hands the runnable ones over as one batch. */
  #drainDue(now: number): void {
    const heap = this.#heap;
    const batch: Array<DueTick<TSlice>> = [];
    let stalePops = 0;
    let skippedInFlight = 0;
    let missed = 0;
    while (heap.size > 0 && heap.peekDueAt() <= now) {
      const scheduledAt = heap.peekDueAt();
      const generation = heap.peekSeq();
      const live = heap.peekItem()!;
      if (live.generation !== generation) {
        heap.pop(); // superseded or cancelled: the map holds the truth
        stalePops += 1;
        continue;
      }
      const { slice, offsetMs } = live;
      const next = nextTick(scheduledAt, slice.intervalMs, offsetMs, now);
      missed += missedTicks(scheduledAt, slice.intervalMs, offsetMs, next);
      live.dueAt = next;
      live.hasTicked = true;
      heap.replaceTop(next, generation, live);
      if (this.#inFlight.has(slice.id)) {
        skippedInFlight += 1; // probes of one slice never overlap
        continue;
      }
      batch.push({ sliceId: slice.id, scheduledAt, generation, slice });
      this.#metrics.recordLateness(now - scheduledAt);
    }
    this.#lastDrainAt = now;
    this.#staleEntries -= stalePops;
    this.#count(batch.length, skippedInFlight, missed, stalePops);
    if (batch.length > 0) {
      this.#dispatch(batch);
    }
  }

  #dispatch(batch: Array<DueTick<TSlice>>): void {
    let result: ReturnType<TickExecutor<TSlice>>;
    try {
      result = this.#executor(batch);
    } catch (error) {
      this.#reportExecutorError(error);
      return;
    }
    if (result instanceof Map) {
      const runs: TickRuns<TSlice> = result;
      for (const tick of batch) {
        this.#track([tick], runs.get(tick));
      }
    } else {
      this.#track(batch, result);
    }
  }

  /** Marks the ticks' slices in flight until `run` settles. */
  #track(ticks: Array<DueTick<TSlice>>, run: unknown): void {
    if (!isPromiseLike(run)) {
      return;
    }
    const settled: Promise<void> = Promise.resolve(run).then(
      () => this.#release(ticks, settled),
      error => {
        this.#reportExecutorError(error);
        this.#release(ticks, settled);
      },
    );
    for (const tick of ticks) {
      this.#inFlight.set(tick.sliceId, settled);
    }
  }

  #release(ticks: Array<DueTick<TSlice>>, settled: Promise<void>): void {
    for (const tick of ticks) {
      if (this.#inFlight.get(tick.sliceId) === settled) {
        this.#inFlight.delete(tick.sliceId);
      }
    }
  }

  // --------------------------------------------------------------- changes

  /** Applies the next chunk of the current change, taking a new one if none. */
  #applySome(now: number): void {
    if (!this.#applying) {
      const change = this.#input.take();
      if (!change) {
        return;
      }
      this.#changeSerial += 1;
      this.#applying = { change, position: 0, invalid: 0 };
    }
    const applying = this.#applying;
    const { change } = applying;
    const serial = this.#changeSerial;
    const total =
      change.type === 'cancel' ? change.sliceIds.length : change.slices.length;
    const end = Math.min(total, applying.position + this.#applyChunkSize);
    const cancelled: string[] = [];
    for (let i = applying.position; i < end; i++) {
      if (change.type === 'cancel') {
        this.#cancel(change.sliceIds[i], cancelled);
      } else if (isValidSlice(change.slices[i])) {
        this.#upsert(change.slices[i], now, serial);
      } else {
        applying.invalid += 1;
      }
    }
    applying.position = end;
    if (end < total) {
      this.#tellCancelled(cancelled);
      return; // the rest on the next wake-up, after the ticks now due
    }
    this.#applying = undefined;
    if (change.type === 'replace') {
      for (const [id, live] of this.#live) {
        if (live.seenInChange !== serial) {
          this.#cancel(id, cancelled);
        }
      }
    }
    this.#tellCancelled(cancelled);
    if (applying.invalid > 0) {
      this.#logger.warn(
        `Ignored ${applying.invalid} slices without an id or a whole-millisecond interval >= 1`,
      );
    }
    // Stale entries die when they surface; if edits outpace that, compact.
    if (this.#staleEntries > this.#live.size) {
      this.#heap.retain((_dueAt, generation, live) => {
        return live.generation === generation;
      });
      this.#staleEntries = 0;
      this.#counters.compactions += 1;
    }
  }

  #upsert(slice: TSlice, now: number, serial: number): void {
    const { id, intervalMs } = slice;
    const live = this.#live.get(id);
    if (!live) {
      const hash = stableHash(id);
      const offsetMs = staggerOffsetMs(id, intervalMs, hash);
      const dueAt = firstDueAt(
        intervalMs,
        offsetMs,
        now,
        this.#firstProbeWindowCapMs,
      );
      const created = new LiveSlice(
        slice,
        this.#nextGeneration++,
        offsetMs,
        dueAt,
        serial,
      );
      this.#live.set(id, created);
      this.#heap.push(dueAt, created.generation, created);
      return;
    }
    live.seenInChange = serial;
    if (this.#isUnchanged(live.slice, slice)) {
      live.slice = slice;
      return;
    }
    const previousIntervalMs = live.slice.intervalMs;
    live.slice = slice;
    live.generation = this.#nextGeneration++;
    this.#staleEntries += 1;
    if (intervalMs !== previousIntervalMs) {
      // A new interval is a new grid; otherwise the pending tick (and with
      // it the phase) stays as it was.
      live.offsetMs = staggerOffsetMs(id, intervalMs);
      // The last tick came due no later than now: half an interval from now
      // keeps the two probes apart.
      live.dueAt = live.hasTicked
        ? nextTick(now, intervalMs, live.offsetMs, now)
        : firstDueAt(
            intervalMs,
            live.offsetMs,
            now,
            this.#firstProbeWindowCapMs,
          );
    }
    this.#heap.push(live.dueAt, live.generation, live);
  }

  #cancel(id: string, cancelled: string[]): void {
    const live = this.#live.get(id);
    if (live) {
      this.#live.delete(id);
      live.generation = CANCELLED;
      this.#staleEntries += 1;
      cancelled.push(id);
    }
  }

  #tellCancelled(cancelled: readonly string[]): void {
    if (cancelled.length === 0) {
      return;
    }
    try {
      this.#onCancelled(cancelled);
    } catch (error) {
      this.#logger.warn(
        `Forgetting ${cancelled.length} cancelled slices failed`,
        error instanceof Error ? error : { error: String(error) },
      );
    }
  }

  // ------------------------------------------------------------ edge cases

  /**
   * Reads the clock; if the wall clock stepped back, rebuilds the schedule
   * from now instead of waiting out the step with every slice silent.
   */
  #observeNow(): number {
    const now = this.#clock.now();
    if (now < this.#lastNow - CLOCK_STEP_BACK_TOLERANCE_MS) {
      this.#logger.warn(
        `Wall clock stepped back ${Math.round(
          this.#lastNow - now,
        )} ms; rescheduling ${this.#live.size} slices from now`,
      );
      this.#heap.clear();
      this.#staleEntries = 0;
      this.#lastDrainAt = -Infinity;
      for (const live of this.#live.values()) {
        live.dueAt = gridPointAfter(now, live.slice.intervalMs, live.offsetMs);
        this.#heap.push(live.dueAt, live.generation, live);
      }
    }
    this.#lastNow = now;
    return now;
  }

  #count(
    fired: number,
    skippedInFlight: number,
    missed: number,
    stalePops: number,
  ): void {
    const counters = this.#counters;
    counters.firedTicks += fired;
    counters.skippedInFlight += skippedInFlight;
    counters.missedTicks += missed;
    counters.stalePops += stalePops;
    if (fired > 0) this.#metrics.addFiredTicks(fired);
    if (skippedInFlight > 0) {
      this.#metrics.addSkippedTicks(skippedInFlight, 'in-flight');
    }
    if (missed > 0) this.#metrics.addSkippedTicks(missed, 'missed');
    if (stalePops > 0) this.#metrics.addStalePops(stalePops);
  }

  /** Logs executor failures at most once a minute; the executor owns its errors. */
  #reportExecutorError(error: unknown): void {
    const now = this.#clock.now();
    if (now - this.#lastExecutorErrorLogAt < EXECUTOR_ERROR_LOG_INTERVAL_MS) {
      this.#suppressedExecutorErrors += 1;
      return;
    }
    const suppressed = this.#suppressedExecutorErrors;
    this.#lastExecutorErrorLogAt = now;
    this.#suppressedExecutorErrors = 0;
    this.#logger.error(
      `Tick executor failed${
        suppressed > 0 ? ` (and ${suppressed} more times before)` : ''
      }`,
      error instanceof Error ? error : { error: String(error) },
    );
  }
}
