import type { SliceStatusState } from '../judge';
import type { SliceStateStore, StoredSliceState } from '../model';

/**
 * How long ticks wait for stored states before they judge from the ones
 * they have: a slow database must not hold a probe back until its next
 * tick, which would be skipped, and read again. A late answer still lands.
 */
const DEFAULT_READ_DEADLINE_MS = 500;

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

  constructor(options: {
    readSliceStates: (
      sliceIds: readonly string[],
    ) => Promise<ReadonlyMap<string, StoredSliceState>>;
    /** Default 500 ms. */
    readDeadlineMs?: number;
  }) {
    this.#read = options.readSliceStates;
    this.#deadlineMs = options.readDeadlineMs ?? DEFAULT_READ_DEADLINE_MS;
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

  /** Forgets slices that no longer run here. */
  forget(sliceIds: Iterable<string>): void {
    for (const id of sliceIds) {
      this.#cache.delete(id);
    }
  }
}
