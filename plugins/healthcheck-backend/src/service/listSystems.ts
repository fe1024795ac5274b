import { InputError } from '@backstage/errors';
import {
  canonicalEntityRef,
  HEALTH_STATUSES,
  HealthStatus,
  isHealthStatus,
  SystemHealthSummary,
  SystemListResponse,
} from '@vigil/plugin-healthcheck-common';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/**
 * The query of `GET /v1/systems`, validated.
 * @internal
 */
export interface SystemListQuery {
  statuses?: HealthStatus[];
  owner?: string;
  environment?: string;
  /** Matched, without regard to case, against name, title and ref. */
  search?: string;
  sort: 'status' | 'name';
  limit: number;
  offset: number;
}

/**
 * Reads the query string; every problem is listed in one InputError.
 * @internal
 */
export function parseSystemListQuery(
  query: Record<string, unknown>,
): SystemListQuery {
  const problems: string[] = [];
  const text = (key: string): string | undefined => {
    const value = query[key];
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      problems.push(`${key}: give it once, as text`);
      return undefined;
    }
    return value;
  };
  const known = new Set([
    'status',
    'owner',
    'environment',
    'q',
    'sort',
    'limit',
    'cursor',
  ]);
  for (const key of Object.keys(query)) {
    if (!known.has(key)) {
      problems.push(
        `${key}: unknown parameter (known: ${[...known].join(', ')})`,
      );
    }
  }
  let statuses: HealthStatus[] | undefined;
  const status = text('status');
  if (status !== undefined) {
    statuses = [];
    for (const word of status.split(',').map(s => s.trim())) {
      if (isHealthStatus(word)) {
        statuses.push(word);
      } else {
        problems.push(
          `status: '${word}' is not one of ${HEALTH_STATUSES.join(', ')}`,
        );
      }
    }
  }
  const sort = text('sort') ?? 'status';
  if (sort !== 'status' && sort !== 'name') {
    problems.push(`sort: '${sort}' is not 'status' or 'name'`);
  }
  let limit = DEFAULT_LIMIT;
  const limitText = text('limit');
  if (limitText !== undefined) {
    limit = Number(limitText);
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
      problems.push(
        `limit: '${limitText}' is not a whole number from 1 to ${MAX_LIMIT}`,
      );
    }
  }
  let offset = 0;
  const cursor = text('cursor');
  if (cursor !== undefined) {
    const decoded = Number(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (!Number.isInteger(decoded) || decoded < 0) {
      problems.push('cursor: not one this API gave out');
    } else {
      offset = decoded;
    }
  }
  if (problems.length > 0) {
    throw new InputError(`Invalid query: ${problems.join('; ')}`);
  }
  return {
    statuses,
    owner: text('owner'),
    environment: text('environment'),
    search: text('q'),
    sort: sort as SystemListQuery['sort'],
    limit,
    offset,
  };
}

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
