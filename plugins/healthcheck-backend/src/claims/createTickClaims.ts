import type { LoggerService } from '@backstage/backend-plugin-api';
import { toError } from '@backstage/errors';
import type { OutageMode } from '../outage/OutageMode';
import { claimsWindowOf, holderOf, planRunNow } from './planRunNow';
import type { TickClaimer } from './TickClaimer';
import type { ClaimStore, TickKey } from '../model';
import type { ClaimedRunNow, RunnableSlice, TickClaims } from '../model';

/**
 * Beyond its timeout, how long a run's claim without a result still counts
 * as a run under way: room for a wait in the bulkhead and for the write.
 */
const RUN_UNDER_WAY_GRACE_MS = 10_000;

/** Looks at a run now's claims again at most this often when raced. */
const MAX_RUN_NOW_ATTEMPTS = 3;

/**
 * Binds the claim stage to the slice runner: claims go through the
 * claimer (ownership, one statement per batch; unclaimed in an outage),
 * deferred ticks that were claimed are given back, and results are handed
 * to outage mode, which writes them behind the probe: `complete` resolves
 * once its journal holds the run.
 *
 * @internal
 */
export function createTickClaims(deps: {
  claimer: TickClaimer;
  store: ClaimStore;
  membership: { readonly instanceId: string };
  /** Where results go: the journal, written behind the probes. */
  results: Pick<OutageMode, 'record' | 'claimedOf'>;
  /** Told when the ticks a run now held cannot be given back. */
  logger?: LoggerService;
}): TickClaims {
  const { claimer, store, membership, results, logger } = deps;
  return {
    // The claimer hands back the very tick objects it was given.
    claim: ticks => claimer.claim(ticks) as Promise<any>,
    release: async ticks => {
      const claimed = results.claimedOf(ticks);
      if (claimed.length > 0) {
        await store.releaseClaims(membership.instanceId, claimed);
      }
    },
    complete: async record => {
      results.record(record);
    },
    claimNow: (slice, at) =>
      claimRunNow(store, membership.instanceId, slice, at, logger),
  };
}

/**
 * A run now's claim, whoever owns the slice: the slice's run under way on
 * any instance is joined; otherwise the run is claimed under `at`, with the
 * slice's free grid ticks near it held (claimed by a marked holder), so no
 * instance probes the slice beside it. Someone taking a tick in between
 * gives everything back and looks again.
 */
async function claimRunNow(
  store: ClaimStore,
  instanceId: string,
  slice: RunnableSlice,
  at: number,
  logger: LoggerService | undefined,
): Promise<ClaimedRunNow> {
  const holder = holderOf(instanceId);
  const underWayMs = slice.timeoutMs + RUN_UNDER_WAY_GRACE_MS;
  const window = claimsWindowOf({
    intervalMs: slice.intervalMs,
    at,
    underWayMs,
  });
  const giveBack = async (run: TickKey[], holds: TickKey[]) => {
    await store.releaseClaims(instanceId, run);
    await store.releaseClaims(holder, holds);
  };
  for (let attempt = 0; attempt < MAX_RUN_NOW_ATTEMPTS; attempt++) {
    const plan = planRunNow({
      sliceId: slice.id,
      intervalMs: slice.intervalMs,
      at,
      underWayMs,
      claims: await store.readSliceClaims(slice.id, window.from, window.to),
    });
    if ('join' in plan) {
      return joined(plan.join);
    }
    const holds = plan.hold.map(scheduledAt => ({
      sliceId: slice.id,
      scheduledAt,
    }));
    // The run's own claim first: whoever then finds a tick held can see
    // the run that holds it, and join it.
    const wonRun = await store.claimTicks(
      instanceId,
      [{ sliceId: slice.id, scheduledAt: at }],
      at,
    );
    const wonHolds = await store.claimTicks(holder, holds, at);
    if (wonRun.length === 1 && wonHolds.length === holds.length) {
      return {
        scheduledAt: at,
        claimed: true,
        releaseHolds: () =>
          store
            .releaseClaims(holder, holds)
            .then(() => {})
            .catch(error =>
              logger?.warn(
                `Could not give back the ticks of ${slice.id} a run now held`,
                toError(error),
              ),
            ),
      };
    }
    await giveBack(wonRun, wonHolds);
  }
  throw new Error(
    `Could not start a run of ${slice.id} now: other runs of it kept starting`,
  );
}

function joined(scheduledAt: number): ClaimedRunNow {
  return { scheduledAt, claimed: false, releaseHolds: async () => {} };
}
