import { readGoDuration } from '../model/duration';

/**
 * A number read from a condition or a resolved value. Integers are bigints,
 * so ids beyond 2^53 still compare exactly; other numbers are doubles.
 * @internal
 */
export type NumericValue = number | bigint;

// Go's integer literal syntax, which Gatus accepts: decimal, 0x, 0o, 0b, with
// `_` between digits. A leading 0 alone stays decimal (see the README).
const INTEGER =
  /^([+-]?)(0[xX](?:_?[0-9a-fA-F])+|0[oO](?:_?[0-7])+|0[bB](?:_?[01])+|\d(?:_?\d)*)$/;
const DECIMAL = /^[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Reads a number (`200`, `-3`, `0x1F`, `0o17`, `0b101`, `1_000`, `2.5`,
 * `1e3`) or a duration in milliseconds (`500ms`, `1.5s`, `1h30m`); undefined
 * for anything else.
 * @internal
 */
export function readNumericValue(text: string): NumericValue | undefined {
  const integer = INTEGER.exec(text);
  if (integer) {
    const magnitude = BigInt(integer[2].replace(/_/g, ''));
    return integer[1] === '-' ? -magnitude : magnitude;
  }
  if (DECIMAL.test(text)) {
    return Number(text);
  }
  return readGoDuration(text);
}

/**
 * Orders two numbers exactly, whether bigints, doubles or one of each.
 * @internal
 */
export function compareNumericValues(a: NumericValue, b: NumericValue): number {
  if (a < b) return -1;
  if (a > b) return 1;
  return 0;
}
