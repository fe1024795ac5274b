/**
 * A span of time `[from, to)` in epoch ms.
 *
 * @internal
 */
export interface Interval {
  readonly from: number;
  readonly to: number;
}

/**
 * The intervals sorted and merged where they overlap or touch; empty and
 * inverted ones dropped.
 *
 * @internal
 */
export function mergeIntervals(intervals: readonly Interval[]): Interval[] {
  const sorted = intervals
    .filter(interval => interval.to > interval.from)
    .slice()
    .sort((a, b) => a.from - b.from);
  const merged: Interval[] = [];
  for (const interval of sorted) {
    const last = merged[merged.length - 1];
    if (last && interval.from <= last.to) {
      merged[merged.length - 1] = {
        from: last.from,
        to: Math.max(last.to, interval.to),
      };
    } else {
      merged.push(interval);
    }
  }
  return merged;
}

/**
 * The parts of `range` that none of `excluded` covers, in order.
 * `excluded` must be merged ({@link mergeIntervals}).
 *
 * @internal
 */
export function subtractIntervals(
  range: Interval,
  excluded: readonly Interval[],
): Interval[] {
  const parts: Interval[] = [];
  let cursor = range.from;
  for (const interval of excluded) {
    if (interval.to <= cursor) {
      continue;
    }
    if (interval.from >= range.to) {
      break;
    }
    if (interval.from > cursor) {
      parts.push({ from: cursor, to: interval.from });
    }
    cursor = Math.max(cursor, interval.to);
  }
  if (cursor < range.to) {
    parts.push({ from: cursor, to: range.to });
  }
  return parts;
}

/**
 * How much of `[from, to)` the sorted, disjoint `parts` cover, in ms.
 *
 * @internal
 */
export function coveredMs(
  parts: readonly Interval[],
  from: number,
  to: number,
): number {
  let total = 0;
  for (const part of parts) {
    if (part.from >= to) {
      break;
    }
    total += Math.max(0, Math.min(part.to, to) - Math.max(part.from, from));
  }
  return total;
}

/**
 * Where two lists of sorted, disjoint intervals overlap, in order.
 *
 * @internal
 */
export function intersectIntervals(
  a: readonly Interval[],
  b: readonly Interval[],
): Interval[] {
  const overlaps: Interval[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const from = Math.max(a[i].from, b[j].from);
    const to = Math.min(a[i].to, b[j].to);
    if (to > from) {
      overlaps.push({ from, to });
    }
    if (a[i].to < b[j].to) {
      i++;
    } else {
      j++;
    }
  }
  return overlaps;
}
