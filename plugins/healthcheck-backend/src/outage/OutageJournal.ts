import { noopJournalMetrics, type JournalMetrics } from './journalMetrics';
import type { TickKey } from '../model';

/**
 * What a flush did: entries written, and entries still waiting (the batch
 * that failed and everything after it).
 * @internal
 */
export interface JournalFlush {
  written: number;
  remaining: number;
  /** The write's error when a batch failed; the rest stays for the next flush. */
  error?: unknown;
}

/**
 * Results of runs the database could not take yet, in memory, in the order
 * they finished: one entry per tick (a second result of the same tick is
 * dropped as a duplicate), at most `maxEntries` (past the bound the oldest
 * entry is dropped and counted). Written back in batches by
 * {@link OutageJournal.flush}; a batch that fails stays, with everything
 * after it, for the next flush.
 * @internal
 */
export class OutageJournal<TEntry extends TickKey> {
  /** By tick; a Map keeps insertion order, which is the order of writing. */
  readonly #entries = new Map<string, TEntry>();
  readonly #maxEntries: number;
  readonly #metrics: JournalMetrics;
  #flushing: Promise<JournalFlush> | undefined;

  constructor(options: { maxEntries: number; metrics?: JournalMetrics }) {
    if (!Number.isSafeInteger(options.maxEntries) || options.maxEntries < 1) {
      throw new Error(
        `The outage journal's maxEntries must be a whole number of at least 1, got ${options.maxEntries}`,
      );
    }
    this.#maxEntries = options.maxEntries;
    this.#metrics = options.metrics ?? noopJournalMetrics;
    this.#metrics.observeSize(() => this.#entries.size);
  }

  get size(): number {
    return this.#entries.size;
  }

  /** Whether a flush is under way. */
  get flushing(): boolean {
    return this.#flushing !== undefined;
  }

  /**
   * Keeps an entry until it is written. A tick already journaled keeps its
   * first result: false. Past the bound the oldest entry makes room.
   */
  add(entry: TEntry): boolean {
    const key = keyOf(entry);
    if (this.#entries.has(key)) {
      this.#metrics.addEntries(1, 'duplicate');
      return false;
    }
    this.#entries.set(key, entry);
    this.#metrics.addEntries(1, 'journaled');
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value as string;
      this.#entries.delete(oldest);
      this.#metrics.addEntries(1, 'dropped');
    }
    return true;
  }

  /**
   * Writes the entries, oldest first, `batchSize` at a time; a batch also
   * ends before a second entry of the same `groupOf` (so what a batch
   * writes is one moment of each group, and the next batch sees it
   * written). Entries added meanwhile wait for the next flush, so that a
   * flush ends even while entries keep coming. Stops at the first batch
   * that fails, which stays with the rest. A call while a flush runs joins
   * it.
   */
  flush(
    write: (batch: TEntry[]) => Promise<void>,
    options: { batchSize: number; groupOf?: (entry: TEntry) => string },
  ): Promise<JournalFlush> {
    if (!this.#flushing) {
      this.#flushing = this.#flush(write, options).finally(() => {
        this.#flushing = undefined;
      });
    }
    return this.#flushing;
  }

  async #flush(
    write: (batch: TEntry[]) => Promise<void>,
    options: { batchSize: number; groupOf?: (entry: TEntry) => string },
  ): Promise<JournalFlush> {
    let written = 0;
    const due = this.#entries.size;
    while (this.#entries.size > 0 && written < due) {
      const batch: TEntry[] = [];
      const groups = new Set<string>();
      for (const entry of this.#entries.values()) {
        const group = options.groupOf?.(entry);
        if (
          batch.length >= Math.min(options.batchSize, due - written) ||
          (group !== undefined && groups.has(group))
        ) {
          break;
        }
        batch.push(entry);
        if (group !== undefined) {
          groups.add(group);
        }
      }
      try {
        await write(batch);
      } catch (error) {
        return { written, remaining: this.#entries.size, error };
      }
      for (const entry of batch) {
        // Dropped over the bound while it was written: nothing to delete.
        if (this.#entries.get(keyOf(entry)) === entry) {
          this.#entries.delete(keyOf(entry));
        }
      }
      written += batch.length;
      this.#metrics.addEntries(batch.length, 'written');
    }
    return { written, remaining: this.#entries.size };
  }
}

function keyOf(tick: TickKey): string {
  return `${tick.sliceId}@${tick.scheduledAt}`;
}
