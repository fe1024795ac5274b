/**
 * What a probe sends, follows and keeps at most, whatever it is given.
 * Validation bounds a check's fields when it is loaded, but a probe also runs
 * what a backend module hands it and what an old stored row says, so every
 * probe applies its own limits again.
 */

/**
 * A whole-number limit from a check's config, brought within `[0, max]`:
 * a fraction is rounded down, and anything that is not a finite number gets
 * the fallback.
 * @internal
 */
export function clampWholeNumber(
  value: unknown,
  limits: { fallback: number; max: number },
): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return Math.min(limits.fallback, limits.max);
  }
  return Math.min(limits.max, Math.max(0, Math.floor(value)));
}

/**
 * `text` cut to at most `maxChars` characters, saying so with a trailing
 * `…` (counted in the limit).
 * @internal
 */
export function truncateText(text: string, maxChars: number): string {
  return text.length <= maxChars
    ? text
    : `${text.slice(0, Math.max(0, maxChars - 1))}…`;
}
