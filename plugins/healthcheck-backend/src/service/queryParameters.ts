/* The query parameters the read routes share. */

/**
 * A problem for each parameter that is not known or not given once as text.
 * @internal
 */
export function parameterProblems(
  query: Record<string, unknown>,
  known: readonly string[],
): string[] {
  const problems: string[] = [];
  for (const key of Object.keys(query)) {
    if (!known.includes(key)) {
      problems.push(`${key}: unknown parameter (known: ${known.join(', ')})`);
    } else if (typeof query[key] !== 'string') {
      problems.push(`${key}: give it once, as text`);
    }
  }
  return problems;
}

/**
 * A time parameter as epoch ms; undefined if absent, or wrong (noted).
 * @internal
 */
export function timeParameter(
  query: Record<string, unknown>,
  key: string,
  problems: string[],
): number | undefined {
  const text = query[key];
  if (typeof text !== 'string') {
    return undefined;
  }
  const value = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isFinite(value)) {
    problems.push(`${key}: '${text}' is neither an ISO 8601 time nor epoch ms`);
    return undefined;
  }
  return value;
}
