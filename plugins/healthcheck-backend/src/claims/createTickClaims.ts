import type { RunRecord, TickClaims } from '../executor/SliceRunner';
import type { ClaimStore } from './ClaimStore';
import type { TickClaimer } from './TickClaimer';
import { WriteCoalescer } from './WriteCoalescer';

/** Results written per statement when runs finish together. */
const MAX_RESULTS_PER_WRITE = 1_000;

/**
 * Binds the claim stage to the slice runner: claims go through the
 * claimer (ownership, one statement per batch), deferred ticks are given
 * back, and results of runs that finish together share one write.
 *
 * @internal
 */
export function createTickClaims(deps: {
  claimer: TickClaimer;
  store: ClaimStore;
  membership: { readonly instanceId: string };
  /** After a batch of results is written: slice states, transitions. */
  afterComplete?: (records: RunRecord[]) => Promise<void>;
}): TickClaims {
  const { claimer, store, membership, afterComplete } = deps;
  const results = new WriteCoalescer(
    async (runs: RunRecord[]) => {
      await store.completeRuns(runs);
      await afterComplete?.(runs);
    },
    { maxInFlight: 1, maxItems: MAX_RESULTS_PER_WRITE },
  );
  return {
    // The claimer hands back the very tick objects it was given.
    claim: ticks => claimer.claim(ticks) as Promise<any>,
    release: async ticks => {
      await store.releaseClaims(membership.instanceId, ticks);
    },
    complete: async record => {
      await results.submit([record]);
    },
  };
}
