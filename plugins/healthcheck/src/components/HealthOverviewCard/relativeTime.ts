const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1_000],
];

/** `3 minutes ago`, `yesterday`, `now`: how long ago an ISO 8601 time was. */
export function relativeTime(iso: string, now: number = Date.now()): string {
  const elapsed = new Date(iso).getTime() - now;
  const format = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  for (const [unit, ms] of UNITS) {
    if (Math.abs(elapsed) >= ms) {
      return format.format(Math.round(elapsed / ms), unit);
    }
  }
  return format.format(0, 'second');
}
