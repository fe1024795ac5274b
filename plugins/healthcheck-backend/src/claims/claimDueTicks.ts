import type { RunnableSlice, TickClaims } from '../model';
import { claimKeyAt, DueTick } from '../scheduler';

/** A due tick this instance won, and the same tick under its claim key. */
export interface WonTick<TSlice extends RunnableSlice> {
  /** The tick as the scheduler handed it over. */
  readonly due: DueTick<TSlice>;
  /** The tick keyed as claimed: `scheduledAt` is its grid tick. */
  readonly claimed: DueTick<TSlice>;
}

/**
 * Claims a batch of due ticks in one go. Each is keyed by its grid tick
 * (`claimKeyAt`), the same on every instance whatever the time it fell due
 * here (a first probe between grid points), so two instances always race
 * for the same row. Resolves to the ticks won, in batch order; the rest
 * belong to another instance this time.
 */
export async function claimDueTicks<TSlice extends RunnableSlice>(
  claims: TickClaims,
  ticks: ReadonlyArray<DueTick<TSlice>>,
): Promise<Array<WonTick<TSlice>>> {
  const keyed = ticks.map(due => ({
    due,
    sliceId: due.sliceId,
    scheduledAt: claimKeyAt(due.sliceId, due.scheduledAt, due.slice.intervalMs),
    generation: due.generation,
    slice: due.slice,
  }));
  const won = await claims.claim(keyed);
  return won.map(key => ({
    due: key.due,
    claimed: { ...key.due, scheduledAt: key.scheduledAt },
  }));
}
