/*
 * Durations in Go's `time.ParseDuration` syntax, where every number carries
 * its unit (`500ms`, `1.5s`, `1h30m`), read two ways: strictly for what a
 * check is configured with ({@link parseDuration}: whole milliseconds, no
 * sign, exact, with an error that says what is wrong), and as Gatus reads
 * a condition's operand ({@link readGoDuration}: signs and sub-millisecond
 * units too, in floating point, so teams' Gatus conditions keep working).
 */

/** Milliseconds per unit of Go's duration syntax. */
const GO_UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** The units a configured duration may use: none finer than a millisecond. */
const MILLISECONDS_PER_UNIT: Readonly<Record<string, bigint>> =
  Object.fromEntries(
    (['ms', 's', 'm', 'h'] as const).map(unit => [
      unit,
      BigInt(GO_UNIT_MS[unit]),
    ]),
  );

/** One `<number><unit>` of Go's syntax, as written. */
interface GoComponent {
  written: string;
  integerDigits: string;
  /** Undefined without a point. */
  fractionDigits?: string;
  /** Any run of letters: each reader checks it against its units. */
  unit: string;
}

const GO_COMPONENT = /(\d*)(?:\.(\d*))?([a-zA-Zµμ]*)/y;

/**
 * The component of Go's duration syntax that starts at `position`, the one
 * tokenizer of both readers below; undefined where no number starts.
 */
function goComponentAt(
  text: string,
  position: number,
): GoComponent | undefined {
  GO_COMPONENT.lastIndex = position;
  const match = GO_COMPONENT.exec(text);
  if (!match || (match[1] === '' && !match[2])) {
    return undefined;
  }
  const [written, integerDigits, fractionDigits, unit] = match;
  return { written, integerDigits, fractionDigits, unit };
}

const DURATION_HINT = 'use ms, s, m or h, as in 500ms, 10s, 1m or 1h30m';

/**
 * Thrown by {@link parseDuration} for a text that is not a duration; `reason`
 * says what is wrong without repeating the text.
 * @public
 */
export class DurationParseError extends Error {
  readonly duration: string;
  readonly reason: string;

  constructor(duration: string, reason: string) {
    super(`Invalid duration ${JSON.stringify(duration)}: ${reason}`);
    this.name = 'DurationParseError';
    this.duration = duration;
    this.reason = reason;
  }
}

/**
 * Reads a duration as checks write it (`500ms`, `10s`, `1m`, `1h30m`,
 * `1.5s`) into whole milliseconds. Every number carries its unit (Go's
 * `time.ParseDuration` syntax without signs or sub-millisecond units), and
 * the total must be a whole number of milliseconds. Fractions are computed
 * exactly, so `0.1h` is 360000, not 360000.00000000006.
 *
 * @throws DurationParseError naming what is wrong and what would be right.
 * @public
 */
export function parseDuration(text: string): number {
  if (typeof text !== 'string') {
    throw new DurationParseError(
      String(text),
      `a duration is a text, not a ${typeof text} (${DURATION_HINT})`,
    );
  }
  if (text === '') {
    throw new DurationParseError(text, `it is empty (${DURATION_HINT})`);
  }
  let total = 0n;
  let position = 0;
  while (position < text.length) {
    const component = goComponentAt(text, position);
    if (!component || component.integerDigits === '') {
      throw new DurationParseError(
        text,
        `expected a number at position ${position}, found ${JSON.stringify(
          text[position],
        )} (${DURATION_HINT})`,
      );
    }
    const { written, integerDigits, fractionDigits = '', unit } = component;
    if (component.fractionDigits === '') {
      throw new DurationParseError(
        text,
        `${JSON.stringify(
          written,
        )} at position ${position} has no digits after its point (${DURATION_HINT})`,
      );
    }
    if (unit === '') {
      throw new DurationParseError(
        text,
        `${JSON.stringify(
          written,
        )} at position ${position} has no unit (${DURATION_HINT})`,
      );
    }
    const unitMs = Object.hasOwn(MILLISECONDS_PER_UNIT, unit)
      ? MILLISECONDS_PER_UNIT[unit]
      : undefined;
    if (unitMs === undefined) {
      throw new DurationParseError(
        text,
        `unknown unit ${JSON.stringify(unit)} at position ${
          position + written.length - unit.length
        } (${DURATION_HINT})`,
      );
    }
    const scale = 10n ** BigInt(fractionDigits.length);
    const scaledMs = BigInt(integerDigits + fractionDigits) * unitMs;
    if (scaledMs % scale !== 0n) {
      throw new DurationParseError(
        text,
        `${JSON.stringify(written)} is not a whole number of milliseconds`,
      );
    }
    total += scaledMs / scale;
    position += written.length;
  }
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new DurationParseError(text, 'it is too long to be an interval');
  }
  return Number(total);
}

/**
 * Milliseconds as a duration text that {@link parseDuration} reads back:
 * `500ms`, `5s`, `1m30s`, `2h`, `1s250ms`, `0s`.
 * @public
 */
export function formatDuration(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0) {
    return `${ms}ms`;
  }
  if (ms === 0) {
    return '0s';
  }
  let rest = ms;
  let text = '';
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1_000],
    ['ms', 1],
  ] as const) {
    if (rest >= size) {
      text += `${Math.floor(rest / size)}${unit}`;
      rest %= size;
    }
  }
  return text;
}

/**
 * Reads a duration as Gatus does (`500ms`, `-1.5s`, `1h30m`, `250us`) into
 * milliseconds, fractions included; undefined for anything else.
 * @internal
 */
export function readGoDuration(text: string): number | undefined {
  const signed = text.startsWith('-') || text.startsWith('+');
  let position = signed ? 1 : 0;
  if (position === text.length) {
    return undefined;
  }
  let total = 0;
  while (position < text.length) {
    const component = goComponentAt(text, position);
    if (!component || !Object.hasOwn(GO_UNIT_MS, component.unit)) {
      return undefined;
    }
    const { integerDigits, fractionDigits, unit } = component;
    total +=
      Number(`${integerDigits || '0'}.${fractionDigits || '0'}`) *
      GO_UNIT_MS[unit];
    position += component.written.length;
  }
  return text.startsWith('-') ? -total : total;
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
