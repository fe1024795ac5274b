import type { SliceStatusState } from '../judge';
import type { SliceStateStore, StoredSliceState } from '../model';

/**
 * How long ticks wait for stored states before they judge from the ones
 * they have: a slow database must not hold a probe back until its next
 * tick, which would be skipped, and read again. A late answer still lands.
 */
const DEFAULT_READ_DEADLINE_MS = 500;

/**
 * How long a run, once probed, waits for a read its tick gave up on: the
 * cached state is then another instance's past, and judging from it makes
 * statuses flap (a slice that recovered elsewhere judged from its old
 * failure), so waiting a little more, off the probe's path, is the better
 * trade. Past this the run judges from what it has.
 */
const DEFAULT_SETTLE_DEADLINE_MS = 5_000;

interface CachedState {
  state: SliceStatusState;
  /** Grid time of the run the state follows. */
  scheduledAt: number;
}

/**
 * Slice states for the runner: kept in memory, and read from the database
 * (in one query per batch) for a tick whose slice did not run its previous
 * tick here, because another instance may have run it since. A slice that
 * stays with one instance is never read back.
 * @internal
 */
export class CachedSliceStates implements SliceStateStore {
  readonly #cache = new Map<string, CachedState>();
  readonly #read: (
    sliceIds: readonly string[],
  ) => Promise<ReadonlyMap<string, StoredSliceState>>;

  readonly #deadlineMs: number;
  readonly #settleDeadlineMs: number;
  /** Reads under way, by slice; each entry goes when its read settles. */
  readonly #reading = new Map<string, Promise<void>>();

  constructor(options: {
    readSliceStates: (
      sliceIds: readonly string[],
    ) => Promise<ReadonlyMap<string, StoredSliceState>>;
    /** Default 500 ms. */
    readDeadlineMs?: number;
    /** Default 5 s. */
    settleDeadlineMs?: number;
  }) {
    this.#read = options.readSliceStates;
    this.#deadlineMs = options.readDeadlineMs ?? DEFAULT_READ_DEADLINE_MS;
    this.#settleDeadlineMs =
      options.settleDeadlineMs ?? DEFAULT_SETTLE_DEADLINE_MS;
  }

  get(sliceId: string): SliceStatusState | undefined {
    return this.#cache.get(sliceId)?.state;
  }

  set(sliceId: string, state: SliceStatusState, scheduledAt: number): void {
    const cached = this.#cache.get(sliceId);
    if (!cached || cached.scheduledAt <= scheduledAt) {
      this.#cache.set(sliceId, { state, scheduledAt });
    }
  }

  async prepare(
    ticks: ReadonlyArray<{
      sliceId: string;
      scheduledAt: number;
      intervalMs: number;
    }>,
  ): Promise<void> {
    const stale = ticks
      .filter(tick => {
        const cached = this.#cache.get(tick.sliceId);
        // The previous grid tick ran here: nobody else can have run a later one.
        return (
          !cached || cached.scheduledAt < tick.scheduledAt - tick.intervalMs
        );
      })
      .map(tick => tick.sliceId);
    if (stale.length === 0) {
      return;
    }
    const read = this.#read(stale).then(stored => {
      for (const [sliceId, state] of stored) {
        this.set(sliceId, state, state.lastScheduledAt);
      }
    });
    const settled = read.then(
      () => {},
      () => {},
    );
    for (const sliceId of stale) {
      this.#reading.set(sliceId, settled);
    }
    void settled.then(() => {
      for (const sliceId of stale) {
        if (this.#reading.get(sliceId) === settled) {
          this.#reading.delete(sliceId);
        }
      }
    });
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new Error(
              `Stored states of ${stale.length} slice(s) not read within ${
                this.#deadlineMs
              } ms`,
            ),
          ),
        this.#deadlineMs,
      );
    });
    read.catch(() => {}); // a late failure is the same as a slow one
    try {
      await Promise.race([read, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Waits, up to the settle deadline, for a read of the slice's stored
   * state that `prepare` gave up on; at once when none is under way.
   */
  async settled(sliceId: string): Promise<void> {
    const reading = this.#reading.get(sliceId);
    if (!reading) {
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      reading,
      new Promise<void>(resolve => {
        timer = setTimeout(resolve, this.#settleDeadlineMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** Forgets slices that no longer run here. */
  forget(sliceIds: Iterable<string>): void {
    for (const id of sliceIds) {
      this.#cache.delete(id);
    }
  }
}
