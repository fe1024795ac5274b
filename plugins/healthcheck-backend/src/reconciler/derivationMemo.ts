import type { DesiredSlice, PausedSlice, RefusedSlice } from './desiredSlices';

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
 * catalog's pairs. Under another context (the settings, the Environment
 * entities) nothing is reused. A pass that fails before `end` leaves the
 * last finished pass's memo as it was.
 * @internal
 */
export class DerivationMemo {
  #context: string | undefined;
  #before = new Map<string, CheckEntry>();
  #now = new Map<string, CheckEntry>();
  #reused = 0;
  #derived = 0;
  /** Pairs the last finished pass derived or reused. */
  #pairsBefore = 0;

  /** Starts a pass in `context`: what shapes every pair besides its own parts. */
  begin(context: string): void {
    if (context !== this.#context) {
      this.#before = new Map();
      this.#pairsBefore = 0;
      this.#context = context;
    }
    this.#now = new Map();
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
    let derivation = entry.pairs.get(systemKey) ?? entry.kept?.get(systemKey);
    if (derivation) {
      this.#reused += 1;
    } else {
      derivation = derive();
      this.#derived += 1;
    }
    entry.pairs.set(systemKey, derivation);
    return derivation;
  }

  /** The check's problems as judged at this version, or `judge`'s. */
  judgement(checkId: string, version: string, judge: () => string[]): string[] {
    const entry = this.#entryOf(checkId, version);
    entry.problems ??= entry.keptProblems ?? judge();
    return entry.problems;
  }

  /**
   * Ends the pass: what it did not use is forgotten. `unchanged`: it
   * derived nothing and gave back every pair of the last finished pass, so
   * its slices are those of that pass, the very objects.
   */
  end(): MemoPass {
    for (const entry of this.#now.values()) {
      entry.kept = undefined;
      entry.keptProblems = undefined;
    }
    const unchanged =
      this.#derived === 0 &&
      this.#reused === this.#pairsBefore &&
      this.#before.size > 0;
    this.#before = this.#now;
    this.#now = new Map();
    this.#pairsBefore = this.#reused + this.#derived;
    return { reused: this.#reused, derived: this.#derived, unchanged };
  }

  /** Checks kept for the next pass. */
  get size(): number {
    return this.#before.size;
  }

  #entryOf(checkId: string, version: string): CheckEntry {
    let entry = this.#now.get(checkId);
    if (entry?.version !== version) {
      const before = this.#before.get(checkId);
      const same = before?.version === version;
      entry = {
        version,
        pairs: new Map(),
        kept: same ? before.pairs : undefined,
        keptProblems: same ? before.problems : undefined,
      };
      this.#now.set(checkId, entry);
    }
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
  /** This pass's pairs. */
  pairs: Map<string, PairDerivation>;
  problems?: string[];
  /** The last pass's, while this one runs. */
  kept?: ReadonlyMap<string, PairDerivation>;
  keptProblems?: string[];
}
