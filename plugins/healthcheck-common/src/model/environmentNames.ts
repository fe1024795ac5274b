import { canonicalEnvironmentName } from './environmentOverrides';

/**
 * What a canonical environment name (see `canonicalEnvironmentName`) must
 * be: 1 to 63 lower-case letters, digits and `-`, starting and ending with a
 * letter or digit. That is one DNS label, so a name can stand in a target's
 * host without adding a label or naming another host, and in a path, a
 * slice id or a badge URL without escaping.
 * @public
 */
export const ENVIRONMENT_NAME_PATTERN =
  /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * {@link ENVIRONMENT_NAME_PATTERN} in words, for the end of a reason.
 * @public
 */
export const ENVIRONMENT_NAME_RULE =
  'an environment name is 1 to 63 letters, digits and "-", starting and ending with a letter or digit, compared in lower case';

const MAX_LENGTH = 63;

/**
 * Why a written environment name (from an annotation, an Environment entity,
 * a check's `environments` or an `environmentOverrides` key) cannot name an
 * environment; `undefined` when it can. It is canonicalised first (trimmed,
 * lower-cased), so `Production` is fine and means `production`.
 * @public
 */
export function environmentNameProblem(name: string): string | undefined {
  const canonical = canonicalEnvironmentName(name);
  if (ENVIRONMENT_NAME_PATTERN.test(canonical)) {
    return undefined;
  }
  return `${JSON.stringify(name)} is not an environment name: ${whatIsWrong(
    canonical,
  )}; ${ENVIRONMENT_NAME_RULE}`;
}

function whatIsWrong(canonical: string): string {
  if (canonical === '') {
    return 'it is empty';
  }
  const bad = /[^a-z0-9-]/u.exec(canonical);
  if (bad) {
    return `${JSON.stringify(bad[0])} is not allowed`;
  }
  if (canonical.length > MAX_LENGTH) {
    return `it has ${canonical.length} characters`;
  }
  return canonical.startsWith('-') ? 'it starts with "-"' : 'it ends with "-"';
}

/**
 * One environment name of a check that is not one, and where it is written.
 * @public
 */
export type CheckEnvironmentNameProblem =
  | { field: 'environments'; index: number; reason: string }
  | { field: 'environmentOverrides'; key: string; reason: string };

/**
 * The environment names a check spec writes that are not names (see
 * {@link environmentNameProblem}): items of its `environments` filter and
 * keys of its `environmentOverrides`. Values of the wrong type are left to
 * the schema. Empty when every name is fine. Pure, for the catalog
 * processor, the API and the form alike.
 * @public
 */
export function validateCheckEnvironmentNames(
  spec: unknown,
): CheckEnvironmentNameProblem[] {
  const problems: CheckEnvironmentNameProblem[] = [];
  if (typeof spec !== 'object' || spec === null) {
    return problems;
  }
  const { environments, environmentOverrides } = spec as Record<
    string,
    unknown
  >;
  if (Array.isArray(environments)) {
    environments.forEach((name, index) => {
      const reason =
        typeof name === 'string' ? environmentNameProblem(name) : undefined;
      if (reason) {
        problems.push({ field: 'environments', index, reason });
      }
    });
  }
  if (
    typeof environmentOverrides === 'object' &&
    environmentOverrides !== null &&
    !Array.isArray(environmentOverrides)
  ) {
    for (const key of Object.keys(environmentOverrides)) {
      const reason = environmentNameProblem(key);
      if (reason) {
        problems.push({ field: 'environmentOverrides', key, reason });
      }
    }
  }
  return problems;
}
