/**
 * What a `tcp` check waits for in the peer's answer. Patterns come from every
 * team's catalog files and answers from any server, so matching must stay
 * linear: regular expressions run on RE2 (re2js), which has no backtracking,
 * and the text is not rescanned for every byte a slow peer trickles in.
 */
import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import { ProbeConfigError } from '../probeConfigError';

/**
 * A compiled `expect`: a substring, or `/pattern/flags` as RE2.
 * @public
 */
export interface ExpectedPattern {
  /** The pattern as the check writes it. */
  readonly source: string;
  readonly kind: 'substring' | 'regex';
  /** Whether the text holds the pattern. */
  test(text: string): boolean;
}

/** Flags of JavaScript's syntax that mean something for a match. */
const RE2_FLAGS: Record<string, number> = {
  i: RE2JS.CASE_INSENSITIVE,
  m: RE2JS.MULTILINE,
  s: RE2JS.DOTALL,
};
/** Flags that change nothing for one test: `g` and `y` carry state, `u` is always on, `d` records indices. */
const IGNORED_FLAGS = 'gyud';
const REGEX_LITERAL = /^\/(.*)\/([a-z]*)$/s;

const compiled = new LRUCache<string, ExpectedPattern>({ max: 512 });

/**
 * Reads an `expect`: `/regex/flags` is a regular expression in RE2's syntax
 * (JavaScript's, less backreferences and lookaround, which cannot run in
 * linear time), anything else a substring. Compiled patterns are cached.
 *
 * @throws ProbeConfigError naming the pattern and why it does not compile.
 * @public
 */
export function parseExpectedPattern(expect: string): ExpectedPattern {
  let pattern = compiled.get(expect);
  if (!pattern) {
    pattern = compile(expect);
    compiled.set(expect, pattern);
  }
  return pattern;
}

/**
 * Why an `expect` cannot be used, or `undefined` when it can; for checking
 * a check when it is loaded rather than when it runs.
 * @public
 */
export function expectedPatternProblem(expect: string): string | undefined {
  try {
    parseExpectedPattern(expect);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

function compile(expect: string): ExpectedPattern {
  const literal = REGEX_LITERAL.exec(expect);
  if (!literal) {
    return {
      source: expect,
      kind: 'substring',
      test: text => text.includes(expect),
    };
  }
  const [, body, flagText] = literal;
  let flags = 0;
  for (const flag of flagText) {
    if (RE2_FLAGS[flag] !== undefined) {
      flags |= RE2_FLAGS[flag];
    } else if (!IGNORED_FLAGS.includes(flag)) {
      throw new ProbeConfigError(
        `Pattern ${expect} has the unknown flag '${flag}'; use i, m or s`,
      );
    }
  }
  let regex: RE2JS;
  try {
    regex = RE2JS.compile(body, flags);
  } catch (error) {
    throw new ProbeConfigError(
      `Pattern ${expect} is not a valid regular expression in RE2's linear-time syntax (no backreferences or lookaround): ${
        (error as Error).message
      }`,
    );
  }
  return {
    source: expect,
    kind: 'regex',
    test: text => regex.matcher(text).find(),
  };
}

/** Below this many characters a rescan costs next to nothing. */
const CHEAP_RESCAN_CHARS = 4096;
/** The shortest wait between two regular-expression scans of a long answer. */
const MIN_RESCAN_GAP_MS = 25;

/**
 * Looks for an expected pattern in an answer that arrives in pieces, as
 * often as is cheap: a substring is searched for only in what is new (and
 * the pattern's length before it), so the whole search is linear in the
 * answer; a regular expression over a long answer is rescanned at most once
 * per gap, the gap growing with the scan's own cost, so a peer that sends
 * one byte at a time cannot keep the event loop busy. A scan deferred by the
 * gap runs on a timer; `finish` scans what is left.
 * @public
 */
export class ExpectedPatternWatcher {
  readonly #pattern: ExpectedPattern;
  readonly #onMatch: () => void;
  readonly #now: () => number;
  #text = '';
  /** The last characters before the new piece that a substring may start in. */
  #tail = '';
  #unscanned = false;
  #lastScanAt = -Infinity;
  #gapMs = MIN_RESCAN_GAP_MS;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #matched = false;

  constructor(options: {
    pattern: ExpectedPattern;
    onMatch: () => void;
    now?: () => number;
  }) {
    this.#pattern = options.pattern;
    this.#onMatch = options.onMatch;
    this.#now = options.now ?? (() => performance.now());
  }

  /** All the text received so far. */
  get text(): string {
    return this.#text;
  }

  /** The next piece of the answer. */
  append(piece: string): void {
    if (this.#matched) {
      return;
    }
    this.#text += piece;
    if (this.#pattern.kind === 'substring') {
      const window = this.#tail + piece;
      if (window.includes(this.#pattern.source)) {
        this.#found();
        return;
      }
      this.#tail = window.slice(
        -(this.#pattern.source.length - 1) || window.length,
      );
      return;
    }
    this.#unscanned = true;
    const wait = this.#lastScanAt + this.#gapMs - this.#now();
    if (this.#text.length <= CHEAP_RESCAN_CHARS || wait <= 0) {
      this.#scan();
    } else {
      this.#timer ??= setTimeout(() => {
        this.#timer = undefined;
        this.#scan();
      }, wait);
    }
  }

  /** The answer is complete: scans what was not scanned yet; whether it matched. */
  finish(): boolean {
    if (this.#unscanned) {
      this.#scan();
    }
    this.dispose();
    return this.#matched;
  }

  /** Stops any deferred scan. */
  dispose(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }

  #scan() {
    if (this.#matched) {
      return;
    }
    const started = this.#now();
    this.#unscanned = false;
    const found = this.#pattern.test(this.#text);
    const finished = this.#now();
    this.#lastScanAt = finished;
    this.#gapMs = Math.max(MIN_RESCAN_GAP_MS, 4 * (finished - started));
    if (found) {
      this.#found();
    }
  }

  #found() {
    this.#matched = true;
    this.dispose();
    this.#onMatch();
  }
}
