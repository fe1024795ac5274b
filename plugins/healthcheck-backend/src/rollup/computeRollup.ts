import {
  EnvironmentRollup,
  HealthStatus,
  RollupReason,
  SystemRollup,
  UpstreamProblem,
  worstStatus,
} from '@vigil/plugin-healthcheck-common';
import type { EnvironmentSlice, EnvironmentVerdict } from '../model';

function statusOf(slice: EnvironmentSlice): HealthStatus {
  return slice.paused ? 'paused' : slice.state?.status ?? 'unknown';
}

/**
 * The status of an environment: the worst of its slices; a paused slice
 * counts only when all are paused, a slice that has not run is `unknown`.
 * @internal
 */
export function environmentVerdict(
  slices: readonly EnvironmentSlice[],
): EnvironmentVerdict {
  const status = worstStatus(slices.map(statusOf));
  const active = slices.filter(slice => !slice.paused);
  return {
    status,
    healthy: active.filter(slice => statusOf(slice) === 'healthy').length,
    total: active.length,
    responsible:
      status === 'healthy' || status === 'paused'
        ? []
        : slices.filter(slice => statusOf(slice) === status),
  };
}

const REASON_ORDER: HealthStatus[] = ['unhealthy', 'degraded', 'unknown'];

/**
 * The rollup of one system from its slices, the stored environment statuses
 * (for their `since`), the statuses of the systems it depends on, and the
 * rollup stored before (for the system's `since`). Pure: equal inputs give
 * an equal rollup.
 * @internal
 */
export function computeRollup(input: {
  systemRef: string;
  slices: readonly EnvironmentSlice[];
  environmentSince: ReadonlyMap<
    string,
    { status: HealthStatus; since: number }
  >;
  upstream: ReadonlyArray<{ systemRef: string; status: HealthStatus }>;
  /** Per environment, the upstream system that explains its outage. */
  causes?: ReadonlyMap<string, string>;
  previous?: SystemRollup;
  now: number;
}): SystemRollup {
  const byEnvironment = new Map<string, EnvironmentSlice[]>();
  for (const slice of input.slices) {
    const list = byEnvironment.get(slice.environment);
    if (list) {
      list.push(slice);
    } else {
      byEnvironment.set(slice.environment, [slice]);
    }
  }
  const environments: EnvironmentRollup[] = [];
  const reasons: RollupReason[] = [];
  let healthy = 0;
  let total = 0;
  for (const name of [...byEnvironment.keys()].sort()) {
    const slices = byEnvironment.get(name)!;
    const verdict = environmentVerdict(slices);
    const stored = input.environmentSince.get(name);
    environments.push({
      name,
      status: verdict.status,
      healthy: verdict.healthy,
      total: verdict.total,
      since: new Date(
        stored && stored.status === verdict.status ? stored.since : input.now,
      ).toISOString(),
      ...(verdict.status === 'unhealthy' && input.causes?.get(name)
        ? { causedBy: input.causes.get(name) }
        : {}),
    });
    healthy += verdict.healthy;
    total += verdict.total;
    for (const slice of slices) {
      const status = statusOf(slice);
      if (REASON_ORDER.includes(status) && status !== 'unknown') {
        reasons.push({
          checkId: slice.checkId,
          environment: name,
          status,
          display: slice.state?.lastReason ?? status,
          ...(slice.components?.length ? { components: slice.components } : {}),
        });
      }
    }
  }
  reasons.sort(
    (a, b) =>
      REASON_ORDER.indexOf(a.status) - REASON_ORDER.indexOf(b.status) ||
      a.environment.localeCompare(b.environment) ||
      a.checkId.localeCompare(b.checkId),
  );
  const status = worstStatus(environments.map(e => e.status));
  const upstream: UpstreamProblem[] = input.upstream
    .filter(u => u.status === 'unhealthy' || u.status === 'degraded')
    .map(u => ({ systemRef: u.systemRef, status: u.status }))
    .sort((a, b) => a.systemRef.localeCompare(b.systemRef));
  const now = new Date(input.now).toISOString();
  return {
    systemRef: input.systemRef.toLowerCase(),
    status,
    environments,
    reasons,
    healthy,
    total,
    upstream,
    updatedAt: now,
    since:
      input.previous && input.previous.status === status
        ? input.previous.since
        : now,
  };
}
