import type { SliceStore } from '../database/SliceStore';
import type { SliceChange } from '../scheduler';
import type { DesiredSlice } from './desiredSlices';

/** How often a loader re-reads the whole set even when changes are known. */
const DEFAULT_FULL_READ_EVERY_MS = 10 * 60_000;

/**
 * The scheduler's loader on a backend instance: it runs what the reconciler
 * stored, never the catalog, so every instance runs the same slices. The
 * first load reads them all; later ones only the rows written after the
 * revision last seen (a cheap read of one counter when nothing changed).
 * Now and then it reads everything again, so a tombstone pruned before this
 * instance saw it cannot leave a removed slice running.
 * @internal
 */
export function createStoredSliceLoader(options: {
  slices: SliceStore;
  fullReadEveryMs?: number;
  now?: () => number;
}): { loadChanges(): Promise<Array<SliceChange<DesiredSlice>>> } {
  const { slices } = options;
  const now = options.now ?? Date.now;
  const fullReadEveryMs = options.fullReadEveryMs ?? DEFAULT_FULL_READ_EVERY_MS;
  let revision: number | undefined;
  let lastFullReadAt = 0;
  return {
    async loadChanges() {
      if (revision === undefined || now() - lastFullReadAt >= fullReadEveryMs) {
        const running = await slices.readRunning();
        revision = running.revision;
        lastFullReadAt = now();
        return [{ type: 'replace', slices: running.slices }];
      }
      const changes = await slices.readChangesSince(revision);
      revision = changes.revision;
      const result: Array<SliceChange<DesiredSlice>> = [];
      if (changes.stopped.length > 0) {
        result.push({ type: 'cancel', sliceIds: changes.stopped });
      }
      if (changes.upserted.length > 0) {
        result.push({ type: 'upsert', slices: changes.upserted });
      }
      return result;
    },
  };
}
