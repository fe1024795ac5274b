import { InputError } from '@backstage/errors';
import {
  HEALTH_STATUSES,
  HealthStatus,
  isHealthStatus,
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
    const offsetText = Buffer.from(cursor, 'base64url').toString('utf8');
    const decoded = /^\d{1,15}$/.test(offsetText) ? Number(offsetText) : NaN;
    if (!Number.isInteger(decoded)) {
      problems.push('cursor: not one this API gave out');
    } else {
      offset = decoded;
    }
  }
  // Read before judging, so a filter given twice is among the problems.
  const owner = text('owner');
  const environment = text('environment');
  const search = text('q');
  if (problems.length > 0) {
    throw new InputError(`Invalid query: ${problems.join('; ')}`);
  }
  return {
    statuses,
    owner,
    environment,
    search,
    sort: sort as SystemListQuery['sort'],
    limit,
    offset,
  };
}
