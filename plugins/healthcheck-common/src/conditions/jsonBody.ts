import { BodyPathStep } from './types';

/**
 * A JSON number whose text says more than a double can: `1.0`, or an id past
 * 2^53. Kept as written so comparisons and displays stay exact.
 * @internal
 */
export class JsonNumberText {
  constructor(readonly source: string) {}
}

/** @internal */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false };

interface JsonParseContext {
  source?: string;
}

// Engines that let a reviver see a number's source text (Node 21+, current
// browsers) also offer JSON.rawJSON to write it back; elsewhere numbers are
// plain doubles.
const rawJson = (JSON as { rawJSON?: (text: string) => unknown }).rawJSON;

function keepNumberText(
  _key: string,
  value: unknown,
  context?: JsonParseContext,
): unknown {
  if (
    typeof value === 'number' &&
    context?.source !== undefined &&
    context.source !== String(value)
  ) {
    return new JsonNumberText(context.source);
  }
  return value;
}

function writeNumberText(_key: string, value: unknown): unknown {
  if (value instanceof JsonNumberText) {
    return rawJson ? rawJson(value.source) : Number(value.source);
  }
  return value;
}

// Number text a double writes back differently: 16 or more significant
// digits, an exponent, a fraction ending in 0, or 6 zeros after the point
// (written 1e-7). Without any, no number changes, and the plain parse is ten
// times faster than one with a reviver. Text in strings may match too; that
// only costs the slower parse.
const MAY_CHANGE_AS_DOUBLE = /\d(?:\.?\d){15}|\d[eE]|\.\d*0(?!\d)|\.0{6}/;

/**
 * Whether some number in the JSON text may read back differently as a double.
 * @internal
 */
export function mayChangeAsDouble(text: string): boolean {
  return MAY_CHANGE_AS_DOUBLE.test(text);
}

/**
 * Parses JSON, keeping numbers whose text a double would change.
 * @internal
 */
export function parseJsonKeepingNumbers(text: string): JsonParseResult {
  try {
    const reviver = mayChangeAsDouble(text) ? keepNumberText : undefined;
    return { ok: true, value: JSON.parse(text, reviver) };
  } catch {
    return { ok: false };
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    !(value instanceof JsonNumberText)
  );
}

/**
 * The value at a `[BODY]` path, or undefined when the path is missing, walks
 * through something that is not an object or an array, or ends on `null`.
 * @internal
 */
export function valueAtPath(root: unknown, path: BodyPathStep[]): unknown {
  let value = root;
  for (const step of path) {
    if ('key' in step) {
      if (!isRecord(value) || !Object.hasOwn(value, step.key)) {
        return undefined;
      }
      value = value[step.key];
    } else {
      if (!Array.isArray(value) || step.index >= value.length) {
        return undefined;
      }
      value = value[step.index];
    }
  }
  return value === null ? undefined : value;
}

/**
 * A JSON value as text: strings as they are, numbers as written, objects and
 * arrays as compact JSON.
 * @internal
 */
export function jsonValueText(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  if (value instanceof JsonNumberText) {
    return value.source;
  }
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value, writeNumberText) ?? String(value);
    } catch {
      // Too deep, cyclic or holding a bigint: still show something.
      return String(value);
    }
  }
  return String(value);
}

/**
 * What `len()` counts: the elements of an array, the characters of anything
 * else as text.
 * @internal
 */
export function jsonValueLength(value: unknown): number {
  if (Array.isArray(value)) {
    return value.length;
  }
  return countCharacters(jsonValueText(value));
}

/**
 * Characters (Unicode code points), not UTF-16 units.
 * @internal
 */
export function countCharacters(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return text.length - pairs;
}

/**
 * The first `limit` characters of text, marked `...(truncated)` when there
 * were more.
 * @internal
 */
export function truncateCharacters(text: string, limit: number): string {
  if (text.length <= limit) {
    return text;
  }
  let kept = 0;
  let end = 0;
  for (const character of text) {
    if (kept === limit) {
      return `${text.slice(0, end)}...(truncated)`;
    }
    kept++;
    end += character.length;
  }
  return text;
}
