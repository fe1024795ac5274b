import { InputError } from '@backstage/errors';

/**
 * `DELETE ...?revision=3` deletes only that revision.
 * @internal
 */
export function parseRevisionQuery(value: unknown): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  const revision = typeof value === 'string' ? Number(value) : NaN;
  if (
    !/^\d+$/.test(String(value)) ||
    !Number.isSafeInteger(revision) ||
    revision < 1
  ) {
    throw new InputError(
      `The query parameter revision must be the whole number 1 or more that the check had when you read it, not ${JSON.stringify(
        value,
      )}`,
    );
  }
  return revision;
}
