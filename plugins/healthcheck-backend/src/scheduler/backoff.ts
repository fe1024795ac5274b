/**
 * Exponential backoff: `base`, `2 * base`, `4 * base`, ... capped at `capMs`,
 * so after a long outage the loader notices recovery within `capMs`.
 *
 * @param consecutiveFailures - 1 for the first failure in a row
 * @internal
 */
export function backoffDelayMs(
  baseMs: number,
  consecutiveFailures: number,
  capMs: number,
): number {
  const doublings = Math.min(Math.max(consecutiveFailures - 1, 0), 52);
  return Math.min(capMs, baseMs * 2 ** doublings);
}
