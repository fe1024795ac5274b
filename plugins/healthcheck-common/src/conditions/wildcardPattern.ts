/**
 * Whether text matches a `pat()` pattern as a whole: `*` stands for any run
 * of characters (none included), `?` for exactly one; everything else
 * matches itself.
 *
 * Runs in linear time per `*`-separated segment (no backtracking regular
 * expression), so a pattern cannot stall on a large body.
 * @internal
 */
export function matchesWildcardPattern(pattern: string, text: string): boolean {
  const segments = pattern.split('*').map(compileSegment);
  if (segments.length === 1) {
    return segments[0].matchAt(text, 0) === text.length;
  }
  let position = segments[0].matchAt(text, 0);
  for (let i = 1; i < segments.length - 1 && position >= 0; i++) {
    // The earliest match of each middle segment leaves the most room for
    // the ones after it, so it is the only one worth trying.
    position = segments[i].findFrom(text, position);
  }
  return (
    position >= 0 && segments[segments.length - 1].endsAfter(text, position)
  );
}

interface Segment {
  /** End of the segment matched exactly at `start`, or -1. */
  matchAt(text: string, start: number): number;
  /** End of the earliest match at or after `start`, or -1. */
  findFrom(text: string, start: number): number;
  /** Whether the segment matches the end of text, starting at or after `start`. */
  endsAfter(text: string, start: number): boolean;
}

function compileSegment(segment: string): Segment {
  if (!segment.includes('?')) {
    return {
      matchAt: (text, start) =>
        text.startsWith(segment, start) ? start + segment.length : -1,
      findFrom: (text, start) => {
        const found = text.indexOf(segment, start);
        return found < 0 ? -1 : found + segment.length;
      },
      endsAfter: (text, start) =>
        text.length - segment.length >= start && text.endsWith(segment),
    };
  }
  // `?` is one character, which may be two UTF-16 units: the `u` flag
  // counts code points, and the source has no quantifier to backtrack over.
  const source = Array.from(segment, character =>
    character === '?' ? '.' : character.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&'),
  ).join('');
  const sticky = new RegExp(source, 'suy');
  const global = new RegExp(source, 'sug');
  const atEnd = new RegExp(`(?:${source})$`, 'sug');
  const endOfMatch = (regexp: RegExp, text: string, start: number) => {
    regexp.lastIndex = start;
    const match = regexp.exec(text);
    return match ? match.index + match[0].length : -1;
  };
  return {
    matchAt: (text, start) => endOfMatch(sticky, text, start),
    findFrom: (text, start) => endOfMatch(global, text, start),
    endsAfter: (text, start) => endOfMatch(atEnd, text, start) >= 0,
  };
}
