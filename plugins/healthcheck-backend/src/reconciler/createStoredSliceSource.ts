import type { SliceChange } from '../scheduler';
import type { DesiredSlice } from '../model';
import type { SliceStore } from '../model';

/** How often a loader re-reads the whole set even when changes are known. */
const DEFAULT_FULL_READ_EVERY_MS = 10 * 60_000;

/**
 * The scheduler's loader on a backend instance: it runs what the reconciler
 * stored, never the catalog, so every instance runs the same slices. The
 * first load reads them all; later ones only the rows written after the
 * revision last seen (a cheap read of one counter when nothing changed).
 * Now and then it reads everything again, so a tombstone pruned before this
 * instance saw it cannot leave a removed slice running.
 *
 * `isRunning` answers from the latest read, before the scheduler has
 * applied it: a slice whose environment left its system (or whose check
 * stopped) is no longer running as soon as this instance has read so.
 * @internal
 */
export function createStoredSliceSource(options: {
  slices: SliceStore;
  fullReadEveryMs?: number;
  now?: () => number;
}): {
  loadChanges(): Promise<Array<SliceChange<DesiredSlice>>>;
  isRunning(sliceId: string): boolean;
} {
  const { slices } = options;
  const now = options.now ?? Date.now;
  const fullReadEveryMs = options.fullReadEveryMs ?? DEFAULT_FULL_READ_EVERY_MS;
  let revision: number | undefined;
  let lastFullReadAt = 0;
  /** The ids of the running slices as of the latest read: no more. */
  let running = new Set<string>();
  return {
    async loadChanges() {
      if (revision === undefined || now() - lastFullReadAt >= fullReadEveryMs) {
        const read = await slices.readRunning();
        revision = read.revision;
        lastFullReadAt = now();
        running = new Set(read.slices.map(slice => slice.id));
        return [{ type: 'replace', slices: read.slices }];
      }
      const changes = await slices.readChangesSince(revision);
      revision = changes.revision;
      const result: Array<SliceChange<DesiredSlice>> = [];
      if (changes.stopped.length > 0) {
        changes.stopped.forEach(id => running.delete(id));
        result.push({ type: 'cancel', sliceIds: changes.stopped });
      }
      if (changes.upserted.length > 0) {
        changes.upserted.forEach(slice => running.add(slice.id));
        result.push({ type: 'upsert', slices: changes.upserted });
      }
      return result;
    },
    isRunning: sliceId => running.has(sliceId),
  };
}
