import { InputError } from '@backstage/errors';
import { parameterProblems, timeParameter } from './queryParameters';

const DAY_MS = 24 * 60 * 60_000;

/**
 * `from` and `to` (ISO 8601 or epoch ms; default the last 24 hours),
 * `limit` and `cursor`; every problem listed in one InputError.
 * @internal
 */
export function parseHistoryQuery(
  query: Record<string, unknown>,
  now: number,
  extraKeys: string[] = [],
): { from: number; to: number; limit?: number; cursor?: string } {
  const problems = parameterProblems(query, [
    'from',
    'to',
    'limit',
    'cursor',
    ...extraKeys,
  ]);
  const to = timeParameter(query, 'to', problems) ?? now;
  const from = timeParameter(query, 'from', problems) ?? to - DAY_MS;
  if (from >= to) {
    problems.push('from: must be before to');
  }
  let limit: number | undefined;
  if (typeof query.limit === 'string') {
    limit = Number(query.limit);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
      problems.push(
        `limit: '${query.limit}' is not a whole number from 1 to 1000`,
      );
    }
  }
  if (problems.length > 0) {
    throw new InputError(`Invalid query: ${problems.join('; ')}`);
  }
  return {
    from,
    to,
    limit,
    cursor: typeof query.cursor === 'string' ? query.cursor : undefined,
  };
}
