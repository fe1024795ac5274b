import { LoggerService } from '@backstage/backend-plugin-api';
import type { HealthStatus } from '@vigil/plugin-healthcheck-common';
import pLimit from 'p-limit';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { EnvironmentTransitions } from '../rollup/EnvironmentTransitions';
import { systemOfRollupBucket } from '../rollup/RollupConsumer';
import type { RollupService } from '../rollup/RollupService';
import {
  planSystemRepair,
  RollupRepairReason,
  SystemRepairPlan,
} from './planSystemRepair';
import { noopSweepMetrics, SweepMetrics, SweepOutcome } from './sweepMetrics';
import type { EnvironmentSlice } from '../model';

/** Systems read together: a few statements each, whatever their number. */
const DEFAULT_PAGE_SIZE = 250;

/** Rollups one sweep recomputes at once (each may ask the catalog). */
const RECOMPUTES_AT_ONCE = 4;

/**
 * How long after its window's end a claim may still be in the works (a
 * recompute queued behind others, a shutdown running it) before the sweep
 * takes it for missed.
 */
const CLAIM_GRACE_MS = 60_000;

/**
 * How long rollup claims are kept after their window's end: the sweeps of
 * that time each look for missed windows among them, then they are pruned.
 */
const CLAIM_RETENTION_MS = 15 * 60_000;

/** Systems scoped asks may name together before the next sweep covers all. */
const MAX_SCOPED_SYSTEMS = 10_000;

/**
 * What a sweep covers: every system, or some.
 * @internal
 */
export type SweepScope = 'all' | ReadonlySet<string>;

/**
 * The scope of the next sweep once another ask joins it: every system if
 * either asks for all or together they name more than `maxSystems`.
 * @internal
 */
export function joinSweepScopes(
  a: SweepScope,
  b: SweepScope,
  maxSystems: number,
): SweepScope {
  if (a === 'all' || b === 'all') {
    return 'all';
  }
  const joined = new Set([...a, ...b]);
  return joined.size > maxSystems ? 'all' : joined;
}

/**
 * Re-derives what follows from the slice states, from durable state only:
 * each environment's status and each system's rollup. It repairs what
 * differs as the live path would have (a compare-and-set transition with
 * its event and notification, so a missed one is told once across every
 * instance and sweep; a recompute that announces a changed status), picks
 * up rollup windows claimed and never computed, and prunes old claims.
 *
 * Cheap when nothing is wrong: it reads a page of systems at a time (their
 * slices with states, their stored statuses and rollups), compares in
 * memory, and recomputes only what differs.
 * @internal
 */
export class HealthSweep {
  readonly #store: DatabaseStateStore;
  readonly #transitions: Pick<EnvironmentTransitions, 'check'>;
  readonly #rollups: Pick<RollupService, 'recompute'>;
  readonly #logger: LoggerService;
  readonly #metrics: SweepMetrics;
  readonly #rollupWindowMs: number;
  readonly #pageSize: number;
  readonly #now: () => number;
  #running: Promise<SweepOutcome> | undefined;
  #next: { scope: SweepScope; outcome: Promise<SweepOutcome> } | undefined;

  constructor(options: {
    store: DatabaseStateStore;
    transitions: Pick<EnvironmentTransitions, 'check'>;
    rollups: Pick<RollupService, 'recompute'>;
    logger: LoggerService;
    metrics?: SweepMetrics;
    /** The rollup debounce window: a claim is due at its end. */
    rollupWindowMs: number;
    pageSize?: number;
    now?: () => number;
  }) {
    this.#store = options.store;
    this.#transitions = options.transitions;
    this.#rollups = options.rollups;
    this.#logger = options.logger;
    this.#metrics = options.metrics ?? noopSweepMetrics;
    this.#rollupWindowMs = options.rollupWindowMs;
    this.#pageSize = options.pageSize ?? DEFAULT_PAGE_SIZE;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Re-derives now, on this instance: every system, or only `systemRefs`.
   * For the periodic task, and for whoever knows durable state moved
   * without its follow-ups (the database came back from an outage).
   *
   * One sweep at a time per instance: asked while one runs, it waits for
   * it and then runs one more, which every ask meanwhile shares (that one
   * may have read before the caller's writes). Sweeps on other instances
   * may overlap it; every repair is safe to make twice.
   *
   * @returns what the sweep found and did
   * @throws the database's error when the sweep could not read or write;
   *   nothing is lost, a later sweep does it
   */
  rederiveNow(
    options: { systemRefs?: readonly string[] } = {},
  ): Promise<SweepOutcome> {
    const scope: SweepScope = options.systemRefs
      ? new Set(options.systemRefs.map(ref => ref.toLowerCase()))
      : 'all';
    if (this.#next) {
      this.#next.scope = joinSweepScopes(
        this.#next.scope,
        scope,
        MAX_SCOPED_SYSTEMS,
      );
      return this.#next.outcome;
    }
    if (!this.#running) {
      return this.#start(scope);
    }
    const next: { scope: SweepScope; outcome: Promise<SweepOutcome> } = {
      scope,
      outcome: this.#running
        .catch(() => undefined)
        .then((): Promise<SweepOutcome> => {
          this.#next = undefined;
          return this.#start(next.scope);
        }),
    };
    this.#next = next;
    return next.outcome;
  }

  #start(scope: SweepScope): Promise<SweepOutcome> {
    const run: Promise<SweepOutcome> = this.#sweep(scope).finally(() => {
      if (this.#running === run) {
        this.#running = undefined;
      }
    });
    this.#running = run;
    return run;
  }

  async #sweep(scope: SweepScope): Promise<SweepOutcome> {
    const startedAt = this.#now();
    const outcome: SweepOutcome = {
      scope: scope === 'all' ? 'all' : [...scope].sort(),
      systems: 0,
      slices: 0,
      environments: 0,
      goneEnvironments: 0,
      rollups: { 'missed-window': 0, drift: 0, upstream: 0 },
      failedRollups: 0,
      prunedClaims: 0,
      durationMs: 0,
    };
    const overdue = await this.#overdueClaims(startedAt);
    for await (const page of this.#pages(scope)) {
      await this.#sweepPage(page, overdue, outcome);
    }
    if (scope === 'all') {
      outcome.prunedClaims = await this.#store.pruneRollupClaims(
        startedAt - this.#rollupWindowMs - CLAIM_RETENTION_MS,
      );
    }
    outcome.durationMs = this.#now() - startedAt;
    this.#metrics.recordSweep(outcome);
    this.#report(outcome);
    return outcome;
  }

  /**
   * The systems whose window was claimed, ended a grace ago, and may have
   * been computed by no one, with the latest such claim's time.
   */
  async #overdueClaims(now: number): Promise<Map<string, number>> {
    const claims = await this.#store.readRollupClaims({
      from: now - this.#rollupWindowMs - CLAIM_RETENTION_MS,
      to: now - this.#rollupWindowMs - CLAIM_GRACE_MS,
    });
    const latest = new Map<string, number>();
    for (const claim of claims) {
      const systemRef = systemOfRollupBucket(claim.id);
      if (systemRef) {
        latest.set(
          systemRef,
          Math.max(latest.get(systemRef) ?? 0, claim.claimedAt),
        );
      }
    }
    return latest;
  }

  /**
   * The systems to sweep, a page at a time: every system in order (each
   * page all the systems from its first to its last), or the ones asked.
   */
  async *#pages(
    scope: SweepScope,
  ): AsyncGenerator<{ systemRefs: string[]; wholeRange: boolean }> {
    if (scope !== 'all') {
      const refs = [...scope].sort();
      for (let at = 0; at < refs.length; at += this.#pageSize) {
        yield {
          systemRefs: refs.slice(at, at + this.#pageSize),
          wholeRange: false,
        };
      }
      return;
    }
    let after: string | undefined;
    for (;;) {
      const page = await this.#store.listSystemsPage(after, this.#pageSize);
      if (page.length > 0) {
        yield { systemRefs: page, wholeRange: true };
      }
      if (page.length < this.#pageSize) {
        return;
      }
      after = page[page.length - 1];
    }
  }

  /** What is stored of a page of systems. */
  async #readPage(page: { systemRefs: string[]; wholeRange: boolean }) {
    const { systemRefs } = page;
    if (page.wholeRange) {
      return await this.#store.readSystemsBetween(
        systemRefs[0],
        systemRefs[systemRefs.length - 1],
      );
    }
    const [slices, environmentStates, rollups] = await Promise.all([
      this.#store.readEnvironmentSlices(
        systemRefs.map(systemRef => ({ systemRef })),
      ),
      this.#store.readEnvironmentStatesOf(systemRefs),
      this.#store.readStoredRollups(systemRefs),
    ]);
    return { slices, environmentStates, rollups };
  }

  async #sweepPage(
    page: { systemRefs: string[]; wholeRange: boolean },
    overdue: ReadonlyMap<string, number>,
    outcome: SweepOutcome,
  ): Promise<void> {
    const { systemRefs } = page;
    const {
      slices,
      environmentStates,
      rollups: stored,
    } = await this.#readPage(page);
    // The upstream systems the stored rollups name, for their status now.
    const upstreamRefs = new Set<string>();
    for (const { rollup } of stored.values()) {
      rollup.upstream
        .filter(upstream => !stored.has(upstream.systemRef))
        .forEach(upstream => upstreamRefs.add(upstream.systemRef));
    }
    const upstream = upstreamRefs.size
      ? await this.#store.readStoredRollups([...upstreamRefs])
      : new Map();
    const statusOf = (ref: string): HealthStatus | undefined =>
      (stored.get(ref) ?? upstream.get(ref))?.rollup.status;
    const slicesOf = new Map<string, EnvironmentSlice[]>();
    for (const slice of slices) {
      const list = slicesOf.get(slice.systemRef) ?? [];
      list.push(slice);
      slicesOf.set(slice.systemRef, list);
    }

    const now = this.#now();
    const plans = new Map<string, SystemRepairPlan>(
      systemRefs.map(systemRef => [
        systemRef,
        planSystemRepair(
          {
            systemRef,
            slices: slicesOf.get(systemRef) ?? [],
            environmentStates: environmentStates.get(systemRef) ?? new Map(),
            stored: stored.get(systemRef),
            overdueClaimAt: overdue.get(systemRef),
            statusOf,
          },
          now,
        ),
      ]),
    );
    outcome.systems += systemRefs.length;
    outcome.slices += slices.length;

    // Environments first: the rollup shows since when each has its status.
    const missed = [...plans].flatMap(([systemRef, plan]) =>
      plan.environments.map(environment => ({ systemRef, environment })),
    );
    if (missed.length > 0) {
      outcome.environments += (await this.#transitions.check(missed)).length;
    }
    const withGone = [...plans]
      .filter(([, plan]) => plan.goneEnvironments.length > 0)
      .map(([systemRef]) => systemRef);
    if (withGone.length > 0) {
      outcome.goneEnvironments += await this.#store.forgetGoneEnvironments(
        withGone,
      );
    }

    const limit = pLimit(RECOMPUTES_AT_ONCE);
    await Promise.all(
      [...plans]
        .filter(([, plan]) => plan.rollup)
        .map(([systemRef, plan]) =>
          limit(() => this.#recompute(systemRef, plan.rollup!, outcome)),
        ),
    );
  }

  async #recompute(
    systemRef: string,
    reason: RollupRepairReason,
    outcome: SweepOutcome,
  ): Promise<void> {
    try {
      await this.#rollups.recompute(systemRef);
      outcome.rollups[reason] += 1;
    } catch (error) {
      outcome.failedRollups += 1;
      this.#logger.warn(
        `Sweep could not recompute the rollup of ${systemRef} (${reason}); the next sweep will try again`,
        error as Error,
      );
    }
  }

  #report(outcome: SweepOutcome): void {
    const rollups = Object.entries(outcome.rollups).filter(([, n]) => n > 0);
    const repaired =
      outcome.environments + outcome.goneEnvironments + rollups.length;
    const summary = `Sweep of ${outcome.systems} systems (${
      outcome.slices
    } slices) in ${outcome.durationMs} ms: ${
      outcome.environments
    } missed environment transitions made, ${
      outcome.goneEnvironments
    } gone environments forgotten, rollups recomputed: ${
      rollups.map(([reason, n]) => `${n} ${reason}`).join(', ') || 'none'
    }; ${outcome.prunedClaims} old rollup claims pruned`;
    if (repaired > 0 || outcome.failedRollups > 0) {
      this.#logger.info(summary);
    } else {
      this.#logger.debug(summary);
    }
  }
}
