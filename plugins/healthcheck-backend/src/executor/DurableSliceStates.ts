import type { SliceStatusState } from '../judge';
import type { StoredSliceState } from '../database/DatabaseStateStore';
import type { SliceStateStore } from './SliceRunner';

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
export class DurableSliceStates implements SliceStateStore {
  readonly #cache = new Map<string, CachedState>();
  readonly #read: (
    sliceIds: readonly string[],
  ) => Promise<ReadonlyMap<string, StoredSliceState>>;

  constructor(options: {
    readSliceStates: (
      sliceIds: readonly string[],
    ) => Promise<ReadonlyMap<string, StoredSliceState>>;
  }) {
    this.#read = options.readSliceStates;
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
    const stored = await this.#read(stale);
    for (const [sliceId, state] of stored) {
      this.set(sliceId, state, state.lastScheduledAt);
    }
  }

  /** Forgets slices that no longer run here. */
  forget(sliceIds: Iterable<string>): void {
    for (const id of sliceIds) {
      this.#cache.delete(id);
    }
  }
}
