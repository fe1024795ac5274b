import type { LoggerService } from '@backstage/backend-plugin-api';
import type { MetricsService } from '@backstage/backend-plugin-api/alpha';
import { stringifyError } from '@backstage/errors';
import { answerWithin } from '../database/answerWithin';
import type { DueTick, ScheduledSlice } from '../scheduler/types';
import type { ClaimMetrics, ClaimOutcome } from './metrics';
import {
  createClaimMetrics,
  isMetricsService,
  noopClaimMetrics,
} from './metrics';
import { WriteCoalescer } from './WriteCoalescer';
import type { ClaimStore, TickKey } from '../model';

/**
 * Claim statements one instance runs at once. Batches that fall due while
 * they run share the next statement, so the claim rate is not capped by
 * commits per second.
 */
const DEFAULT_MAX_CLAIMS_IN_FLIGHT = 2;

/**
 * With outage mode, a claim that has not answered by then leaves its
 * ticks to run unclaimed: a slow database must not hold probes back past
 * their interval (the claim still lands, and the result fills it in).
 */
const DEFAULT_CLAIM_DEADLINE_MS = 1_000;

/**
 * Least time between two claim statements. Ticks fall due one by one, so
 * without it a few hundred ticks a second make a statement of one or two
 * ticks each; 50 ms makes them 25 at 500 a second, for at most 50 ms of
 * queue wait on grids of seconds. A statement costs the instance a few
 * hundred microseconds of CPU whatever it carries (knex, the driver, the
 * round trip): at 25 ms the claims alone cost 40 of them a second.
 */
const DEFAULT_CLAIM_SPACING_MS = 50;

/** Ticks per claim statement when a backlog drains (the store's chunk). */
const MAX_TICKS_PER_CLAIM = 5_000;

/**
 * Where owned ticks go whose claim failed (usually outage mode): those it
 * hands back run unclaimed. Told too when a claim succeeds again.
 *
 * @internal
 */
export interface UnclaimedTicks {
  runUnclaimed<T extends TickKey>(ticks: T[], error: unknown): T[];
  databaseAnswered(): void;
}

/**
 * Counters of a {@link TickClaimer}, cumulative since start.
 *
 * @internal
 */
export type ClaimStats = Record<ClaimOutcome, number> & {
  /** Claim statements sent; batches that arrive together share one. */
  statements: number;
};

/**
 * The stage between the scheduler and the probe: of a batch of due ticks,
 * keeps the ones this instance owns, claims them, and hands back those it
 * won. A tick that is not handed back must not run.
 *
 * A batch is claimed in one statement, shared with the batches that fell due
 * while earlier claims were running (see {@link WriteCoalescer}).
 *
 * When the claim fails (the database is unreachable) the owned ticks go to
 * `unclaimed` (outage mode), which runs them unclaimed; without it they do
 * not run.
 *
 * @internal
 */
export class TickClaimer {
  readonly #membership: {
    readonly instanceId: string;
    isOwner(sliceId: string): boolean;
  };
  readonly #metrics: ClaimMetrics;
  readonly #unclaimed: UnclaimedTicks | undefined;
  readonly #deadlineMs: number;
  readonly #coalescer: WriteCoalescer<
    DueTick<ScheduledSlice>,
    Set<DueTick<ScheduledSlice>>
  >;
  readonly #stats: ClaimStats = {
    claimed: 0,
    lost: 0,
    'not-owned': 0,
    failed: 0,
    unclaimed: 0,
    statements: 0,
  };

  constructor(deps: {
    store: ClaimStore;
    /** Usually an `InstanceMembership`. */
    membership: {
      readonly instanceId: string;
      isOwner(sliceId: string): boolean;
    };
    logger: LoggerService;
    /** Backstage's metrics service, or a recorder implementing `ClaimMetrics`. */
    metrics?: MetricsService | ClaimMetrics;
    clock?: { now(): number };
    /** Claim statements at once. Default 2. */
    maxClaimsInFlight?: number;
    /** Least time between two claim statements. Default 50 ms. */
    claimSpacingMs?: number;
    /**
     * Runs owned ticks whose claim failed, or did not answer within
     * `claimDeadlineMs`; without it they do not run.
     */
    unclaimed?: UnclaimedTicks;
    /** Default 1 s; only with `unclaimed`. */
    claimDeadlineMs?: number;
  }) {
    const { store, logger } = deps;
    this.#membership = deps.membership;
    this.#unclaimed = deps.unclaimed;
    this.#deadlineMs = deps.claimDeadlineMs ?? DEFAULT_CLAIM_DEADLINE_MS;
    const metrics = deps.metrics ?? noopClaimMetrics;
    this.#metrics = isMetricsService(metrics)
      ? createClaimMetrics(metrics)
      : metrics;
    const clock = deps.clock ?? Date;

    this.#coalescer = new WriteCoalescer(
      async ticks => {
        this.#stats.statements++;
        const startedAt = performance.now();
        try {
          const won = await store.claimTicks(
            this.#membership.instanceId,
            ticks,
            clock.now(),
          );
          this.#metrics.recordClaimDuration(performance.now() - startedAt);
          this.#unclaimed?.databaseAnswered();
          return new Set(won);
        } catch (error) {
          if (this.#unclaimed) {
            throw error; // outage mode says so, once per outage
          }
          // Once per statement, not per batch it carried.
          logger.warn(
            `Could not claim ${
              ticks.length
            } due tick(s); they do not run: ${stringifyError(error)}`,
          );
          throw error;
        }
      },
      {
        maxInFlight: deps.maxClaimsInFlight ?? DEFAULT_MAX_CLAIMS_IN_FLIGHT,
        maxItems: MAX_TICKS_PER_CLAIM,
        minSpacingMs: deps.claimSpacingMs ?? DEFAULT_CLAIM_SPACING_MS,
      },
    );
  }

  /** The ticks of the batch this instance owns and claimed, in batch order. */
  async claim<TSlice extends ScheduledSlice>(
    batch: ReadonlyArray<DueTick<TSlice>>,
  ): Promise<DueTick<TSlice>[]> {
    const owned = batch.filter(tick => this.#membership.isOwner(tick.sliceId));
    this.#count('not-owned', batch.length - owned.length);
    if (owned.length === 0) {
      return [];
    }

    let won: Set<DueTick<ScheduledSlice>>;
    try {
      won = await this.#withinDeadline(this.#coalescer.submit(owned));
    } catch (error) {
      const unclaimed = this.#unclaimed?.runUnclaimed(owned, error) ?? [];
      this.#count('unclaimed', unclaimed.length);
      this.#count('failed', owned.length - unclaimed.length);
      return unclaimed;
    }
    const claimed = owned.filter(tick => won.has(tick));
    this.#count('claimed', claimed.length);
    this.#count('lost', owned.length - claimed.length);
    return claimed;
  }

  /** With outage mode, the claim's answer, or a rejection at the deadline. */
  async #withinDeadline<T>(claim: Promise<T>): Promise<T> {
    if (!this.#unclaimed) {
      return await claim;
    }
    // A late answer is left unread; its rows are this instance's claims.
    return await answerWithin(
      claim,
      this.#deadlineMs,
      `the claim had no answer within ${this.#deadlineMs} ms`,
    );
  }

  stats(): ClaimStats {
    return { ...this.#stats };
  }

  #count(outcome: ClaimOutcome, count: number): void {
    if (count > 0) {
      this.#stats[outcome] += count;
      this.#metrics.addTicks(count, outcome);
    }
  }
}
