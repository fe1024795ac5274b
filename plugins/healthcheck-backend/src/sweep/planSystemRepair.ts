import type {
  HealthStatus,
  SystemRollup,
} from '@vigil/plugin-healthcheck-common';
import { computeRollup, environmentVerdict } from '../rollup/computeRollup';
import type { EnvironmentSlice, StoredRollup } from '../model';

/**
 * Why the sweep recomputes a system's rollup:
 * - `missed-window`: a window of the system was claimed and its end passed,
 *   but no rollup was computed after the claim (the claimer died, or its
 *   recompute failed);
 * - `drift`: what the slices add up to is not what the rollup says;
 * - `upstream`: an upstream system the rollup names has another status now.
 * @internal
 */
export type RollupRepairReason = 'missed-window' | 'drift' | 'upstream';

/**
 * What the sweep knows of one system, all read from the database.
 * @internal
 */
export interface SystemSnapshot {
  systemRef: string;
  /** Its slices (paused ones too) with their states. */
  slices: readonly EnvironmentSlice[];
  /** The stored status of each environment. */
  environmentStates: ReadonlyMap<
    string,
    { status: HealthStatus; since: number }
  >;
  stored?: StoredRollup;
  /** When the latest window of the system that is past due was claimed. */
  overdueClaimAt?: number;
  /**
   * The stored status of another system; `undefined` when not read. For
   * the upstream systems the stored rollup names.
   */
  statusOf(systemRef: string): HealthStatus | undefined;
}

/**
 * What the sweep repairs of one system.
 * @internal
 */
export interface SystemRepairPlan {
  /** Environments whose stored status is not what their slices say. */
  environments: string[];
  /** Environments with a stored status and no slices any more. */
  goneEnvironments: string[];
  /** Why the rollup is recomputed; absent when it is right. */
  rollup?: RollupRepairReason;
}

/**
 * Whether an environment's stored status needs repair: it differs from the
 * verdict of its slices. An environment never stored whose slices have not
 * run yet has missed nothing.
 * @internal
 */
export function environmentNeedsRepair(
  stored: HealthStatus | undefined,
  verdict: HealthStatus,
): boolean {
  return stored === undefined ? verdict !== 'unknown' : stored !== verdict;
}

/**
 * What of a rollup its slices decide, as text: status, counts, each
 * environment's status and counts, the reasons. Not the times (`since`,
 * `updatedAt`) nor the upstream systems, which the slices do not decide.
 * @internal
 */
export function rollupFingerprint(rollup: SystemRollup): string {
  return JSON.stringify([
    rollup.status,
    rollup.healthy,
    rollup.total,
    rollup.environments.map(e => [e.name, e.status, e.healthy, e.total]),
    rollup.reasons.map(r => [
      r.checkId,
      r.environment,
      r.status,
      r.display,
      r.components ?? [],
    ]),
  ]);
}

/**
 * Compares what a system's slices say with what is stored of it: the
 * environments' statuses and the rollup. Pure: computes the rollup the
 * slices make (cheap) and compares fingerprints, so only what differs is
 * recomputed, with the catalog and the database, by the caller.
 * @internal
 */
export function planSystemRepair(
  snapshot: SystemSnapshot,
  now: number,
): SystemRepairPlan {
  const byEnvironment = new Map<string, EnvironmentSlice[]>();
  for (const slice of snapshot.slices) {
    const list = byEnvironment.get(slice.environment) ?? [];
    list.push(slice);
    byEnvironment.set(slice.environment, list);
  }
  const environments = [...byEnvironment]
    .filter(([name, slices]) =>
      environmentNeedsRepair(
        snapshot.environmentStates.get(name)?.status,
        environmentVerdict(slices).status,
      ),
    )
    .map(([name]) => name)
    .sort();
  const goneEnvironments = [...snapshot.environmentStates.keys()]
    .filter(name => !byEnvironment.has(name))
    .sort();
  const rollup = rollupRepairReason(snapshot, now);
  return { environments, goneEnvironments, ...(rollup && { rollup }) };
}

function rollupRepairReason(
  snapshot: SystemSnapshot,
  now: number,
): RollupRepairReason | undefined {
  const { stored, slices } = snapshot;
  if (
    snapshot.overdueClaimAt !== undefined &&
    (!stored || stored.computedAt < snapshot.overdueClaimAt)
  ) {
    return 'missed-window';
  }
  if (!stored) {
    // Slices that never ran show as `unknown` until the first rollup.
    return slices.length > 0 ? 'drift' : undefined;
  }
  const derived = computeRollup({
    systemRef: snapshot.systemRef,
    slices,
    environmentSince: snapshot.environmentStates,
    upstream: [],
    previous: stored.rollup,
    now,
  });
  if (rollupFingerprint(derived) !== rollupFingerprint(stored.rollup)) {
    return 'drift';
  }
  const upstreamMoved = stored.rollup.upstream.some(upstream => {
    const status = snapshot.statusOf(upstream.systemRef);
    return status !== undefined && status !== upstream.status;
  });
  return upstreamMoved ? 'upstream' : undefined;
}
