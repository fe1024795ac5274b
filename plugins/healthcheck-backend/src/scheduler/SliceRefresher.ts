import type { LoggerService } from '@backstage/backend-plugin-api';
import { backoffDelayMs } from './backoff';
import type {
  ScheduledSlice,
  SchedulerClock,
  SliceChange,
  TimerHandle,
} from './types';

/**
 * Options of the loader of desired slices.
 *
 * @internal
 */
export interface SliceRefresherOptions<TSlice extends ScheduledSlice> {
  /** Reads the full desired set of slices (database, catalog). */
  load?: () => Promise<ReadonlyArray<TSlice>>;
  /**
   * Reads what changed since the last call (a first call returns a
   * `replace`); used instead of `load` when given.
   */
  loadChanges?: () => Promise<ReadonlyArray<SliceChange<TSlice>>>;
  /** Hands a change to the driver; waits while the driver's queue is full. */
  submit: (change: SliceChange<TSlice>) => Promise<void>;
  clock: SchedulerClock;
  logger: LoggerService;
  /** Pause between successful loads. Default 60 s. */
  refreshIntervalMs?: number;
  /** First retry delay after a failure; doubles per failure in a row. Default 30 s. */
  backoffBaseMs?: number;
  /** The longest retry delay. Default 300 s. */
  backoffCapMs?: number;
}

const DEFAULT_REFRESH_INTERVAL_MS = 60_000;
const DEFAULT_BACKOFF_BASE_MS = 30_000;
const DEFAULT_BACKOFF_CAP_MS = 300_000;

/**
 * Loads the desired slices in its own task, off the driver: a slow or failing
 * database never delays a tick. On failure it retries with capped exponential
 * backoff and submits nothing, so the driver keeps running the last slices it
 * was given.
 *
 * @internal
 */
export class SliceRefresher<TSlice extends ScheduledSlice> {
  readonly #options: SliceRefresherOptions<TSlice>;
  #timer: TimerHandle | undefined;
  #consecutiveFailures = 0;
  #stopped = false;
  #loading = false;
  #loadAgain = false;

  constructor(options: SliceRefresherOptions<TSlice>) {
    this.#options = options;
  }

  /** Failed loads since the last success. */
  get consecutiveFailures(): number {
    return this.#consecutiveFailures;
  }

  /** Loads now, then keeps loading until stopped. */
  start(): void {
    void this.#loadThenWait();
  }

  /**
   * Loads again as soon as possible, for a change that should not wait for
   * the next refresh (an edit through the API). A load in progress is
   * followed by another; many requests meanwhile make one.
   */
  refreshNow(): void {
    if (this.#stopped) {
      return;
    }
    if (this.#loading) {
      this.#loadAgain = true;
      return;
    }
    if (this.#timer !== undefined) {
      this.#options.clock.clearTimer(this.#timer);
      this.#timer = undefined;
    }
    void this.#loadThenWait();
  }

  /** Stops the loop; a load in progress finishes but submits nothing. */
  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) {
      this.#options.clock.clearTimer(this.#timer);
      this.#timer = undefined;
    }
  }

  async #loadThenWait(): Promise<void> {
    const { load, loadChanges, submit, clock, logger } = this.#options;
    let delayMs: number;
    this.#loading = true;
    this.#loadAgain = false;
    try {
      const changes: ReadonlyArray<SliceChange<TSlice>> = loadChanges
        ? await loadChanges()
        : [{ type: 'replace', slices: (await load?.()) ?? [] }];
      if (this.#stopped) {
        return;
      }
      for (const change of changes) {
        await submit(change);
      }
      this.#consecutiveFailures = 0;
      delayMs = this.#options.refreshIntervalMs ?? DEFAULT_REFRESH_INTERVAL_MS;
    } catch (error) {
      if (this.#stopped) {
        return;
      }
      this.#consecutiveFailures += 1;
      delayMs = backoffDelayMs(
        this.#options.backoffBaseMs ?? DEFAULT_BACKOFF_BASE_MS,
        this.#consecutiveFailures,
        this.#options.backoffCapMs ?? DEFAULT_BACKOFF_CAP_MS,
      );
      logger.warn(
        `Loading desired slices failed (${
          this.#consecutiveFailures
        } in a row); still running the last known slices, retrying in ${Math.round(
          delayMs / 1000,
        )} s`,
        error instanceof Error ? error : { error: String(error) },
      );
    }
    this.#loading = false;
    if (this.#loadAgain && this.#consecutiveFailures === 0) {
      delayMs = 0;
    }
    if (!this.#stopped) {
      this.#timer = clock.setTimer(() => {
        this.#timer = undefined;
        void this.#loadThenWait();
      }, delayMs);
    }
  }
}
