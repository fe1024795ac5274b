/*
 * How long ago (or until) a time is, in words: the one formatter the Health
 * tab and the overview card share.
 */

const relativeFormat = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/** Epoch ms of an ISO 8601 text or a number; undefined if neither. */
export function toMillis(
  value: string | number | undefined,
): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  const ms = typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(ms) ? ms : undefined;
}

/** `2 minutes ago`, `in 5 seconds`, `now`; `never` without a time. */
export function formatRelative(
  value: string | number | undefined,
  now: number = Date.now(),
): string {
  const ms = toMillis(value);
  if (ms === undefined) {
    return 'never';
  }
  const diff = ms - now;
  for (const [unit, size] of UNITS) {
    if (Math.abs(diff) >= size || unit === 'second') {
      return relativeFormat.format(Math.round(diff / size), unit);
    }
  }
  return relativeFormat.format(0, 'second');
}
