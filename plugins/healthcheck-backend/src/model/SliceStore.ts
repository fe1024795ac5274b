import type { DesiredSlice } from './slices';

/**
 * What the planner needs of a stored slice: its timing, config hash and
 * targeted components, not its definition.
 * @internal
 */
export interface StoredSliceHeader {
  id: string;
  systemRef: string;
  intervalMs: number;
  timeoutMs: number;
  configHash: string;
  /** Canonical component refs, sorted; absent when the check names none. */
  components?: string[];
}

/**
 * A slice to write: running (with its definition) or paused (without).
 * @internal
 */
export type SliceWrite =
  | { paused: false; slice: DesiredSlice }
  | {
      paused: true;
      slice: Pick<
        DesiredSlice,
        'id' | 'checkId' | 'systemRef' | 'environment' | 'components'
      >;
    };

/**
 * What changed in the stored slices after some revision.
 * @internal
 */
export interface SliceChanges {
  /** The revision the changes bring a reader up to. */
  revision: number;
  /** Slices to run, new or changed. */
  upserted: DesiredSlice[];
  /** Slices that no longer run: removed, or paused. */
  stopped: string[];
}

/**
 * The durable desired-slice set the reconciler writes and every instance's
 * scheduler loads.
 * @internal
 */
export interface SliceStore {
  /** Headers of the slices that exist (running or paused), optionally of some systems only. */
  listSliceHeaders(options?: {
    systemRefs?: readonly string[];
  }): Promise<StoredSliceHeader[]>;

  /**
   * Writes one reconcile's outcome atomically: upserts `write`, removes
   * `remove`, under one new revision. Writes nothing and keeps the revision
   * when both are empty.
   */
  applyChanges(changes: {
    write: readonly SliceWrite[];
    remove: readonly string[];
    /**
     * Slices that became paused: each gets a `paused` marker in its run
     * history, so up-time leaves the paused time out.
     */
    pausedNow?: readonly string[];
  }): Promise<{ revision: number }>;

  /** The revision of the last write. */
  readRevision(): Promise<number>;

  /** The running slices and the revision they are as of. */
  readRunning(): Promise<{ revision: number; slices: DesiredSlice[] }>;

  /** What changed after `revision`. */
  readChangesSince(revision: number): Promise<SliceChanges>;

  /** Deletes tombstones of slices removed before `before` (epoch ms). */
  pruneRemoved(before: number): Promise<number>;

  /** The stored catalog fingerprints, by system ref. */
  readFingerprints(): Promise<Map<string, string>>;

  /** Replaces the fingerprints of the given systems; `undefined` deletes one. */
  writeFingerprints(
    fingerprints: ReadonlyMap<string, string | undefined>,
  ): Promise<void>;

  /** The last catalog poll, whichever instance ran it; none before the first. */
  readCatalogPoll(): Promise<CatalogPollRecord | undefined>;

  /** Records a catalog poll that was run. */
  writeCatalogPoll(record: CatalogPollRecord): Promise<void>;
}

/**
 * The last catalog poll, as every instance reads it: the poll is a global
 * task that any instance may run next.
 * @internal
 */
export interface CatalogPollRecord {
  /** When the poll began reading the catalog (epoch ms). */
  startedAt: number;
  /** How long reading and comparing took, not the pass it started. */
  tookMs: number;
}
