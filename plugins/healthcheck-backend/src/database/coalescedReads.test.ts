import { coalescedReads } from './coalescedReads';

describe('coalescedReads', () => {
  function setup() {
    const batches: string[][] = [];
    const read = coalescedReads(
      async (keys: readonly string[]) => {
        batches.push([...keys]);
        return new Map(
          keys.filter(k => k !== 'missing').map(k => [k, k.toUpperCase()]),
        );
      },
      { fallback: () => 'none', maxBatchSize: 3 },
    );
    return { read, batches };
  }

  it('sends the reads of one turn of the event loop as one batch', async () => {
    const { read, batches } = setup();
    const first = read('a');
    // Another request's read, in a later callback of the same turn.
    const second = new Promise<string>(resolve =>
      process.nextTick(() => resolve(read('b'))),
    );
    expect(await Promise.all([first, second])).toEqual(['A', 'B']);
    expect(batches).toEqual([['a', 'b']]);
  });

  it('answers a key the batch did not find with the fallback', async () => {
    const { read } = setup();
    expect(await Promise.all([read('a'), read('missing')])).toEqual([
      'A',
      'none',
    ]);
  });

  it('splits a batch at the largest size and reads afresh every turn', async () => {
    const { read, batches } = setup();
    await Promise.all(['a', 'b', 'c', 'd'].map(read));
    await read('a');
    expect(batches).toEqual([['a', 'b', 'c'], ['d'], ['a']]);
  });

  it('fails every read of a batch that fails, and only those', async () => {
    let fail = true;
    const read = coalescedReads(
      async (keys: readonly string[]) => {
        if (fail) throw new Error('database gone');
        return new Map(keys.map(k => [k, k]));
      },
      { fallback: () => '', maxBatchSize: 10 },
    );
    const failed = await Promise.allSettled([read('a'), read('b')]);
    expect(failed.map(r => r.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await read('c')).toBe('c');
  });
});
