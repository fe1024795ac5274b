/*
 * Wrappers the reconciler bench puts around the real slice store and lock,
 * to see where a pass spends its time without touching the reconciler, and
 * the naive store it is compared with.
 */
import { performance } from 'node:perf_hooks';
import { Knex } from 'knex';
import { toSliceRow } from '../../src/database/DatabaseSliceStore';
import type { DesiredSlice } from '../../src/model';
import type { ReconcileLock } from '../../src/reconciler/ReconcileLock';
import type {
  SliceChanges,
  CatalogPollRecord,
  SliceStore,
  SliceWrite,
  StoredSliceHeader,
} from '../../src/model';

/** When the phases of the last pass started and ended (performance.now()). */
export class Timeline {
  readonly marks = new Map<string, number>();

  mark(name: string): void {
    this.marks.set(name, performance.now());
  }

  /** The time between two marks; NaN when either is missing. */
  between(from: string, to: string): number {
    return (this.marks.get(to) ?? NaN) - (this.marks.get(from) ?? NaN);
  }

  clear(): void {
    this.marks.clear();
  }
}

/** A lock that marks when the pass it guards starts and ends. */
export class TimedLock implements ReconcileLock {
  readonly #inner: ReconcileLock;
  readonly #timeline: Timeline;

  constructor(inner: ReconcileLock, timeline: Timeline) {
    this.#inner = inner;
    this.#timeline = timeline;
  }

  tryWith<T>(fn: () => Promise<T>) {
    return this.#inner.tryWith(() => this.#marked(fn));
  }

  with<T>(fn: () => Promise<T>, options?: { waitMs?: number }) {
    return this.#inner.with(() => this.#marked(fn), options);
  }

  async #marked<T>(fn: () => Promise<T>): Promise<T> {
    this.#timeline.mark('passStart');
    try {
      return await fn();
    } finally {
      this.#timeline.mark('passEnd');
    }
  }
}

/** Passes every call on to another store; subclasses replace some. */
class DelegatingSliceStore implements SliceStore {
  constructor(protected readonly inner: SliceStore) {}

  listSliceHeaders(options?: {
    systemRefs?: readonly string[];
  }): Promise<StoredSliceHeader[]> {
    return this.inner.listSliceHeaders(options);
  }

  applyChanges(changes: {
    write: readonly SliceWrite[];
    remove: readonly string[];
  }): Promise<{ revision: number }> {
    return this.inner.applyChanges(changes);
  }

  readRevision(): Promise<number> {
    return this.inner.readRevision();
  }

  readRunning(): Promise<{ revision: number; slices: DesiredSlice[] }> {
    return this.inner.readRunning();
  }

  readChangesSince(revision: number): Promise<SliceChanges> {
    return this.inner.readChangesSince(revision);
  }

  pruneRemoved(before: number): Promise<number> {
    return this.inner.pruneRemoved(before);
  }

  readFingerprints(): Promise<Map<string, string>> {
    return this.inner.readFingerprints();
  }

  writeFingerprints(
    fingerprints: ReadonlyMap<string, string | undefined>,
  ): Promise<void> {
    return this.inner.writeFingerprints(fingerprints);
  }

  readCatalogPoll(): Promise<CatalogPollRecord | undefined> {
    return this.inner.readCatalogPoll();
  }

  writeCatalogPoll(record: CatalogPollRecord): Promise<void> {
    return this.inner.writeCatalogPoll(record);
  }
}

/** A slice store that marks when the pass reads headers and writes changes. */
export class TimedSliceStore extends DelegatingSliceStore {
  readonly #timeline: Timeline;

  constructor(inner: SliceStore, timeline: Timeline) {
    super(inner);
    this.#timeline = timeline;
  }

  async listSliceHeaders(options?: {
    systemRefs?: readonly string[];
  }): Promise<StoredSliceHeader[]> {
    this.#timeline.mark('listStart');
    try {
      return await super.listSliceHeaders(options);
    } finally {
      this.#timeline.mark('listEnd');
    }
  }

  async applyChanges(changes: {
    write: readonly SliceWrite[];
    remove: readonly string[];
  }): Promise<{ revision: number }> {
    this.#timeline.mark('applyStart');
    try {
      return await super.applyChanges(changes);
    } finally {
      this.#timeline.mark('applyEnd');
    }
  }
}

/**
 * The store written the obvious way, for comparison: the same rows, the
 * same transaction and revision bump as DatabaseSliceStore, but one
 * `INSERT ... ON CONFLICT` statement per slice. Reads go to the real store.
 */
export class NaiveSliceStore extends DelegatingSliceStore {
  readonly #db: Knex;

  constructor(inner: SliceStore, db: Knex) {
    super(inner);
    this.#db = db;
  }

  async applyChanges(changes: {
    write: readonly SliceWrite[];
    remove: readonly string[];
  }): Promise<{ revision: number }> {
    if (changes.write.length === 0 && changes.remove.length === 0) {
      return await super.applyChanges(changes);
    }
    const now = Date.now();
    return await this.#db.transaction(async tx => {
      await tx('healthcheck_reconcile_state')
        .where('name', 'slices')
        .update({ revision: tx.raw('revision + 1'), updated_at: now });
      const state = await tx('healthcheck_reconcile_state')
        .where('name', 'slices')
        .first<{ revision: number | string }>('revision');
      const revision = Number(state.revision);
      for (const write of changes.write) {
        await tx('healthcheck_slices')
          .insert(toSliceRow(write, revision, now))
          .onConflict('id')
          .merge();
      }
      for (const id of changes.remove) {
        await tx('healthcheck_slices').where('id', id).update({
          removed: true,
          paused: false,
          definition: null,
          revision,
          updated_at: now,
        });
      }
      return { revision };
    });
  }
}
