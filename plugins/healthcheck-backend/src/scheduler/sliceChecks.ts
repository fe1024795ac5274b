import type { ScheduledSlice } from './types';

/**
 * Whether the scheduler can place a slice on a grid: an id, and a whole
 * number of milliseconds of at least 1 as its interval.
 *
 * @internal
 */
export function isValidSlice(slice: ScheduledSlice): boolean {
  return (
    typeof slice.id === 'string' &&
    slice.id.length > 0 &&
    Number.isSafeInteger(slice.intervalMs) &&
    slice.intervalMs >= 1
  );
}

/**
 * The default test for "this upsert changes nothing": the same object, or the
 * same own enumerable properties compared with `Object.is`. Cheap enough to
 * run on every slice of every full reload.
 *
 * @internal
 */
export function sameOwnProperties<T extends object>(
  previous: T,
  next: T,
): boolean {
  if (previous === next) {
    return true;
  }
  const keys = Object.keys(previous) as Array<keyof T>;
  if (keys.length !== Object.keys(next).length) {
    return false;
  }
  return keys.every(
    key =>
      Object.prototype.hasOwnProperty.call(next, key) &&
      Object.is(previous[key], next[key]),
  );
}
