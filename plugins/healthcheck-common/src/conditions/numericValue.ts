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
// Go's time.ParseDuration syntax: every component carries its unit.
const DURATION = /^[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/;
const DURATION_COMPONENT = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g;
const MILLISECONDS_PER_UNIT: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

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
  if (DURATION.test(text)) {
    return readDurationMs(text);
  }
  return undefined;
}

function readDurationMs(text: string): number {
  let total = 0;
  for (const [, amount, unit] of text.matchAll(DURATION_COMPONENT)) {
    total += Number(amount) * MILLISECONDS_PER_UNIT[unit];
  }
  return text.startsWith('-') ? -total : total;
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

/**
 * Milliseconds as Gatus shows a time left: whole seconds, trailing zero
 * units dropped (`336h`, `1h30m`, `1h0m15s`, `45s`, `-24h`, `0s`).
 * @internal
 */
export function formatDurationMs(ms: number): string {
  const totalSeconds = Math.trunc(ms / 1000);
  if (!Number.isFinite(totalSeconds) || totalSeconds === 0) {
    return Number.isFinite(totalSeconds) ? '0s' : String(ms);
  }
  const sign = totalSeconds < 0 ? '-' : '';
  const seconds = Math.abs(totalSeconds);
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  let text: string;
  if (h > 0) {
    text = `${h}h${m > 0 || s > 0 ? `${m}m` : ''}${s > 0 ? `${s}s` : ''}`;
  } else if (m > 0) {
    text = `${m}m${s > 0 ? `${s}s` : ''}`;
  } else {
    text = `${s}s`;
  }
  return sign + text;
}
