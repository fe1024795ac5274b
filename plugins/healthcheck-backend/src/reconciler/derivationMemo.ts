import type { DesiredSlice, PausedSlice, RefusedSlice } from '../model';

/**
 * What one check derived on one system: its slices (those its
 * `validateSlice` let through), paused slices and refusals.
 * @internal
 */
export interface PairDerivation {
  slices: DesiredSlice[];
  paused: PausedSlice[];
  refused: RefusedSlice[];
}

/**
 * What the last full pass derived, kept for the next: per check and system,
 * under a key naming the version of each (a HealthCheck entity's etag, a
 * system's name, owner and environments), and each check's judgement. A
 * pass over an unchanged catalog then renders, hashes and judges nothing
 * again: at 60,000 slices, deriving took most of a no-op pass.
 *
 * A pass keeps only what it used, so the memo never holds more than one
 * catalog's pairs. Under another context (the settings) nothing is reused.
 * A pass that fails before `end` may leave some of its own derivations for
 * the next, which then is not `unchanged`.
 * @internal
 */
export class DerivationMemo {
  #context: string | undefined;
  readonly #checks = new Map<string, CheckEntry>();
  /** The pass under way, or the last one; entries carry the pass that used them. */
  #pass = 0;
  #open = false;
  #reused = 0;
  #derived = 0;
  /** Pairs the last finished pass used; NaN when a pass after it did not finish. */
  #pairsBefore = Number.NaN;

  /** Starts a pass in `context`: what shapes every pair besides its own parts. */
  begin(context: string): void {
    if (context !== this.#context) {
      this.#checks.clear();
      this.#context = context;
      this.#pairsBefore = Number.NaN;
    }
    if (this.#open) {
      // The last pass stopped half way: what it kept is not a pass's whole.
      this.#pairsBefore = Number.NaN;
    }
    this.#open = true;
    this.#pass += 1;
    this.#reused = 0;
    this.#derived = 0;
  }

  /**
   * The derivation of a check at `version` on the system that `systemKey`
   * describes, from the last pass, or `derive`'s. A check of no known
   * version is derived every time.
   */
  pair(
    checkId: string,
    version: string | undefined,
    systemKey: string,
    derive: () => PairDerivation,
  ): PairDerivation {
    if (version === undefined) {
      this.#derived += 1;
      return derive();
    }
    const entry = this.#entryOf(checkId, version);
    const kept = entry.pairs.get(systemKey);
    if (kept) {
      if (kept.pass !== this.#pass) {
        kept.pass = this.#pass;
        this.#reused += 1;
      }
      return kept.derivation;
    }
    const derivation = derive();
    this.#derived += 1;
    entry.pairs.set(systemKey, { derivation, pass: this.#pass });
    return derivation;
  }

  /** The check's problems as judged at this version, or `judge`'s. */
  judgement(checkId: string, version: string, judge: () => string[]): string[] {
    const entry = this.#entryOf(checkId, version);
    entry.problems ??= judge();
    return entry.problems;
  }

  /**
   * Ends the pass: what it did not use is forgotten. `unchanged`: it
   * derived nothing and gave back every pair of the last finished pass, so
   * its slices are those of that pass, the very objects.
   */
  end(): MemoPass {
    for (const [checkId, entry] of this.#checks) {
      if (entry.pass !== this.#pass) {
        this.#checks.delete(checkId);
        continue;
      }
      for (const [systemKey, kept] of entry.pairs) {
        if (kept.pass !== this.#pass) {
          entry.pairs.delete(systemKey);
        }
      }
    }
    const unchanged =
      this.#derived === 0 &&
      this.#reused === this.#pairsBefore &&
      this.#reused > 0;
    this.#open = false;
    this.#pairsBefore = this.#reused + this.#derived;
    return { reused: this.#reused, derived: this.#derived, unchanged };
  }

  /** Checks kept for the next pass. */
  get size(): number {
    return this.#checks.size;
  }

  #entryOf(checkId: string, version: string): CheckEntry {
    let entry = this.#checks.get(checkId);
    if (entry?.version !== version) {
      entry = { version, pairs: new Map(), pass: this.#pass };
      this.#checks.set(checkId, entry);
    }
    entry.pass = this.#pass;
    return entry;
  }
}

/**
 * What one pass took from the memo.
 * @internal
 */
export interface MemoPass {
  /** Check and system pairs given back as the last pass derived them. */
  reused: number;
  /** Pairs derived: new, changed, or of a check of no known version. */
  derived: number;
  unchanged: boolean;
}

/** A check at one version: its pairs by system key, and its judgement. */
interface CheckEntry {
  version: string;
  pairs: Map<string, { derivation: PairDerivation; pass: number }>;
  problems?: string[];
  /** The last pass that used it. */
  pass: number;
}
