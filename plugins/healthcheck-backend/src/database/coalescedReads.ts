import DataLoader from 'dataloader';

/**
 * A keyed read whose calls are coalesced: every key asked for in one turn
 * of the event loop goes to `readMany` together, as one query.
 *
 * Under load, many HTTP requests are parsed in the same turn (one poll
 * phase); each would otherwise send its own statement, and the cost of a
 * round trip (query building, socket writes, row parsing) dominates a
 * one-row read. The batch is dispatched from `setImmediate`, after the
 * poll phase, so that requests arriving on different sockets share it;
 * DataLoader's default (after the current microtasks) would only batch
 * reads of one request. Nothing is cached: each batch reads afresh.
 * @internal
 */
export function coalescedReads<K, V>(
  readMany: (keys: readonly K[]) => Promise<ReadonlyMap<K, V>>,
  options: { fallback: (key: K) => V; maxBatchSize: number },
): (key: K) => Promise<V> {
  const loader = new DataLoader<K, V>(
    async keys => {
      const found = await readMany(keys);
      return keys.map(key =>
        found.has(key) ? found.get(key)! : options.fallback(key),
      );
    },
    {
      cache: false,
      maxBatchSize: options.maxBatchSize,
      batchScheduleFn: dispatch => setImmediate(dispatch),
    },
  );
  return key => loader.load(key);
}
