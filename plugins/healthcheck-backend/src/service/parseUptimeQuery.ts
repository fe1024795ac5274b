import { InputError } from '@backstage/errors';
import { parameterProblems, timeParameter } from './queryParameters';

/**
 * `to` (ISO 8601 or epoch ms; default now, and never later): the end of the
 * up-time windows; every problem listed in one InputError.
 * @internal
 */
export function parseUptimeQuery(
  query: Record<string, unknown>,
  now: number,
): { to: number } {
  const problems = parameterProblems(query, ['to']);
  const to = timeParameter(query, 'to', problems) ?? now;
  if (problems.length > 0) {
    throw new InputError(`Invalid query: ${problems.join('; ')}`);
  }
  return { to: Math.min(to, now) };
}
