import { WriteCoalescer } from './WriteCoalescer';

/** A write whose completion the test controls, recording what it carried. */
function controlledWrite() {
  const writes: Array<{
    items: number[];
    finish: (outcome: string) => void;
    fail: (error: Error) => void;
  }> = [];
  const write = (items: number[]) =>
    new Promise<string>((resolve, reject) => {
      writes.push({ items, finish: resolve, fail: reject });
    });
  return { writes, write };
}

/** Lets every settled write hand over to the next. */
const settle = () => new Promise<void>(resolve => setImmediate(resolve));

describe('WriteCoalescer', () => {
  it('writes an isolated submission at once, on its own', async () => {
    const { writes, write } = controlledWrite();
    const coalescer = new WriteCoalescer(write);

    const done = coalescer.submit([1, 2, 3]);

    expect(writes.map(w => w.items)).toEqual([[1, 2, 3]]);
    writes[0].finish('first');
    await expect(done).resolves.toBe('first');
  });

  it('puts everything submitted while a write runs into the next write', async () => {
    const { writes, write } = controlledWrite();
    const coalescer = new WriteCoalescer(write, { maxInFlight: 1 });

    const first = coalescer.submit([1]);
    const rest = [
      coalescer.submit([2, 3]),
      coalescer.submit([4]),
      coalescer.submit([5]),
    ];
    expect(writes.map(w => w.items)).toEqual([[1]]);

    writes[0].finish('first');
    await expect(first).resolves.toBe('first');
    await settle();
    expect(writes.map(w => w.items)).toEqual([[1], [2, 3, 4, 5]]);

    writes[1].finish('second');
    await expect(Promise.all(rest)).resolves.toEqual([
      'second',
      'second',
      'second',
    ]);
    expect(coalescer.inFlight).toBe(0);
  });

  it('runs up to maxInFlight writes at once before it starts holding submissions', async () => {
    const { writes, write } = controlledWrite();
    const coalescer = new WriteCoalescer(write, { maxInFlight: 2 });

    const submissions = [1, 2, 3, 4, 5].map(item => coalescer.submit([item]));
    expect(writes.map(w => w.items)).toEqual([[1], [2]]);

    writes[1].finish('second');
    await settle();
    expect(writes.map(w => w.items)).toEqual([[1], [2], [3, 4, 5]]);
    expect(coalescer.inFlight).toBe(2);

    writes[0].finish('first');
    writes[2].finish('third');
    await expect(Promise.all(submissions)).resolves.toEqual([
      'first',
      'second',
      'third',
      'third',
      'third',
    ]);
  });

  it('caps a write at maxItems, taking whole submissions oldest first', async () => {
    const { writes, write } = controlledWrite();
    const coalescer = new WriteCoalescer(write, { maxItems: 4 });

    const submissions = [
      coalescer.submit([1]),
      coalescer.submit([2, 3]),
      coalescer.submit([4, 5]),
      coalescer.submit([6, 7, 8, 9, 10]),
      coalescer.submit([11]),
    ];
    for (let i = 0; i < 4; i++) {
      writes[i].finish(`write ${i}`);
      await settle();
    }

    // [6..10] is larger than the cap on its own, and still goes.
    expect(writes.map(w => w.items)).toEqual([
      [1],
      [2, 3, 4, 5],
      [6, 7, 8, 9, 10],
      [11],
    ]);
    await expect(Promise.all(submissions)).resolves.toEqual([
      'write 0',
      'write 1',
      'write 1',
      'write 2',
      'write 3',
    ]);
  });

  it('rejects only the submissions a failed write carried, and goes on', async () => {
    const { writes, write } = controlledWrite();
    const coalescer = new WriteCoalescer(write);

    const first = coalescer.submit([1]);
    const second = coalescer.submit([2]);
    writes[0].fail(new Error('connection reset'));
    await expect(first).rejects.toThrow('connection reset');
    await settle();
    expect(writes.map(w => w.items)).toEqual([[1], [2]]);

    writes[1].finish('ok');
    await expect(second).resolves.toBe('ok');
  });

  it('rejects the submissions of a write that throws before it starts', async () => {
    const coalescer = new WriteCoalescer<number, string>(() => {
      throw new Error('bad input');
    });
    await expect(coalescer.submit([1])).rejects.toThrow('bad input');
    expect(coalescer.inFlight).toBe(0);
  });

  it('refuses fewer than one write in flight or one item per write, or a negative spacing', () => {
    expect(
      () => new WriteCoalescer(async () => 'x', { maxInFlight: 0 }),
    ).toThrow('maxInFlight must be a whole number of at least 1, got 0');
    expect(
      () => new WriteCoalescer(async () => 'x', { maxItems: 0.5 }),
    ).toThrow('maxItems must be a whole number of at least 1, got 0.5');
    expect(
      () => new WriteCoalescer(async () => 'x', { minSpacingMs: -1 }),
    ).toThrow('minSpacingMs must be a finite number of at least 0, got -1');
  });

  describe('with a least spacing between writes', () => {
    beforeEach(() => jest.useFakeTimers());
    afterEach(() => jest.useRealTimers());

    it('writes a submission after a quiet spell at once', async () => {
      const { writes, write } = controlledWrite();
      const coalescer = new WriteCoalescer(write, { minSpacingMs: 25 });

      coalescer.submit([1]);
      expect(writes.map(w => w.items)).toEqual([[1]]);
      writes[0].finish('first');
      await jest.advanceTimersByTimeAsync(30);

      coalescer.submit([2]);
      expect(writes.map(w => w.items)).toEqual([[1], [2]]);
    });

    it('holds what comes within the spacing, even with writes free, and writes it together', async () => {
      const { writes, write } = controlledWrite();
      const coalescer = new WriteCoalescer(write, {
        maxInFlight: 2,
        minSpacingMs: 25,
      });

      const first = coalescer.submit([1]);
      writes[0].finish('first');
      await expect(first).resolves.toBe('first');
      // A steady stream: a submission every 5 ms, each write done at once.
      const rest: Array<Promise<string>> = [];
      for (const item of [2, 3, 4, 5]) {
        await jest.advanceTimersByTimeAsync(5);
        rest.push(coalescer.submit([item]));
      }
      expect(writes.map(w => w.items)).toEqual([[1]]);

      await jest.advanceTimersByTimeAsync(5);
      expect(writes.map(w => w.items)).toEqual([[1], [2, 3, 4, 5]]);
      writes[1].finish('second');
      await expect(Promise.all(rest)).resolves.toEqual(Array(4).fill('second'));
    });
  });
});
