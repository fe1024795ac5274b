import {
  canonicalEntityRef,
  HEALTH_STATUSES,
  HealthStatus,
  SystemHealthSummary,
  SystemListResponse,
} from '@vigil/plugin-healthcheck-common';
import type { SystemListQuery } from './parseSystemListQuery';

/**
 * Filters, sorts (worst first, then by name) and pages systems, and counts
 * the statuses of all that match.
 * @internal
 */
export function listSystems(
  systems: readonly SystemHealthSummary[],
  query: SystemListQuery,
): SystemListResponse {
  const search = query.search?.toLowerCase();
  // Written as a user would (`guests`, `group:guests`), compared in full.
  const owner =
    query.owner === undefined
      ? undefined
      : canonicalEntityRef(query.owner, { defaultKind: 'group' }) ??
        query.owner.toLowerCase();
  const environment = query.environment?.toLowerCase();
  const matching = systems.filter(
    system =>
      (!owner || system.owner?.toLowerCase() === owner) &&
      (!environment ||
        system.environments.some(e => e.name.toLowerCase() === environment)) &&
      (!search ||
        system.name.toLowerCase().includes(search) ||
        system.title?.toLowerCase().includes(search) ||
        system.systemRef.includes(search)),
  );
  const counts = Object.fromEntries(
    HEALTH_STATUSES.map(status => [status, 0]),
  ) as Record<HealthStatus, number>;
  for (const system of matching) {
    counts[system.status] += 1;
  }
  const filtered = query.statuses
    ? matching.filter(system => query.statuses!.includes(system.status))
    : matching;
  const rank = (status: HealthStatus) => HEALTH_STATUSES.indexOf(status);
  const sorted = [...filtered].sort(
    (a, b) =>
      (query.sort === 'status' ? rank(b.status) - rank(a.status) : 0) ||
      a.systemRef.localeCompare(b.systemRef),
  );
  const end = query.offset + query.limit;
  return {
    items: sorted.slice(query.offset, end),
    totalCount: filtered.length,
    counts,
    nextCursor:
      end < sorted.length
        ? Buffer.from(String(end), 'utf8').toString('base64url')
        : undefined,
  };
}
