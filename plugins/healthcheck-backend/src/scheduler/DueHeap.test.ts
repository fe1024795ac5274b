import fc from 'fast-check';
import { DueHeap } from './DueHeap';

function drain<T>(heap: DueHeap<T>): Array<[number, number, T]> {
  const out: Array<[number, number, T]> = [];
  while (heap.size > 0) {
    out.push([heap.peekDueAt(), heap.peekSeq(), heap.peekItem() as T]);
    heap.pop();
  }
  return out;
}

describe('DueHeap', () => {
  it('pops the earliest due entry first', () => {
    const heap = new DueHeap<string>();
    heap.push(3_000, 1, 'c');
    heap.push(1_000, 2, 'a');
    heap.push(2_000, 3, 'b');
    expect(drain(heap).map(([, , item]) => item)).toEqual(['a', 'b', 'c']);
  });

  it('breaks ties on due time by seq, lowest first, whatever the push order', () => {
    const heap = new DueHeap<string>();
    heap.push(1_000, 7, 'seven');
    heap.push(1_000, 2, 'two');
    heap.push(1_000, 5, 'five');
    heap.push(999, 9, 'earlier');
    expect(drain(heap).map(([, , item]) => item)).toEqual([
      'earlier',
      'two',
      'five',
      'seven',
    ]);
  });

  it('reports Infinity and no item when empty, so an empty heap sets no timer', () => {
    const heap = new DueHeap<string>();
    expect(heap.peekDueAt()).toBe(Infinity);
    expect(heap.peekItem()).toBeUndefined();
    heap.pop();
    expect(heap.size).toBe(0);
  });

  it('grows past its initial capacity and stays ordered (up to 10,000 random entries)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 999 }), {
          minLength: 3,
          maxLength: 10_000,
          size: 'max',
        }),
        dueTimes => {
          const heap = new DueHeap<number>(2);
          const pushed = dueTimes.map((dueAt, seq): [number, number] => {
            heap.push(dueAt, seq, seq);
            return [dueAt, seq];
          });
          pushed.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
          expect(drain(heap).map(([dueAt, seq]) => [dueAt, seq])).toEqual(
            pushed,
          );
        },
      ),
      { numRuns: 30 },
    );
  });

  it('replaceTop equals pop then push', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 9_999 }), {
          minLength: 1,
          maxLength: 500,
          size: 'max',
        }),
        fc.array(fc.integer({ min: 0, max: 4_999 }), {
          maxLength: 2_000,
          size: 'max',
        }),
        (dueTimes, delays) => {
          const a = new DueHeap<number>();
          const b = new DueHeap<number>();
          dueTimes.forEach((dueAt, seq) => {
            a.push(dueAt, seq, seq);
            b.push(dueAt, seq, seq);
          });
          for (const delay of delays) {
            const next = a.peekDueAt() + delay;
            const seq = a.peekSeq();
            const item = a.peekItem() as number;
            a.replaceTop(next, seq, item);
            b.pop();
            b.push(next, seq, item);
            expect(a.peekDueAt()).toBe(b.peekDueAt());
          }
          expect(drain(a)).toEqual(drain(b));
        },
      ),
      { numRuns: 50 },
    );
  });

  it('retain keeps only accepted entries, in heap order, and counts the dropped', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            dueAt: fc.integer({ min: 0, max: 99_999 }),
            live: fc.boolean(),
          }),
          { maxLength: 1_000, size: 'max' },
        ),
        entries => {
          const heap = new DueHeap<{ live: boolean }>();
          entries.forEach(({ dueAt, live }, seq) =>
            heap.push(dueAt, seq, { live }),
          );
          const expected = entries
            .filter(entry => entry.live)
            .map(entry => entry.dueAt)
            .sort((x, y) => x - y);
          expect(heap.retain((_dueAt, _seq, item) => item.live)).toBe(
            entries.length - expected.length,
          );
          expect(heap.size).toBe(expected.length);
          expect(drain(heap).map(([dueAt]) => dueAt)).toEqual(expected);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('releases the payload of popped entries', () => {
    const heap = new DueHeap<object>();
    heap.push(1, 1, {});
    heap.push(2, 2, {});
    heap.pop();
    heap.pop();
    heap.clear();
    expect(heap.peekItem()).toBeUndefined();
    expect(heap.size).toBe(0);
  });
});
