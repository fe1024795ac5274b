import { randomSource } from '../tooling/randomSource';
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

  it('grows past its initial capacity and stays ordered (10,000 random entries)', () => {
    const random = randomSource(42).next;
    const heap = new DueHeap<number>(2);
    const pushed: Array<[number, number]> = [];
    for (let seq = 0; seq < 10_000; seq++) {
      const dueAt = Math.floor(random() * 1_000);
      heap.push(dueAt, seq, seq);
      pushed.push([dueAt, seq]);
    }
    pushed.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(drain(heap).map(([dueAt, seq]) => [dueAt, seq])).toEqual(pushed);
  });

  it('replaceTop equals pop then push', () => {
    const random = randomSource(7).next;
    const a = new DueHeap<number>();
    const b = new DueHeap<number>();
    for (let seq = 0; seq < 500; seq++) {
      const dueAt = Math.floor(random() * 10_000);
      a.push(dueAt, seq, seq);
      b.push(dueAt, seq, seq);
    }
    for (let step = 0; step < 2_000; step++) {
      const next = a.peekDueAt() + Math.floor(random() * 5_000);
      const seq = a.peekSeq();
      const item = a.peekItem() as number;
      a.replaceTop(next, seq, item);
      b.pop();
      b.push(next, seq, item);
      expect(a.peekDueAt()).toBe(b.peekDueAt());
    }
    expect(drain(a)).toEqual(drain(b));
  });

  it('retain keeps only accepted entries, in heap order, and counts the dropped', () => {
    const heap = new DueHeap<{ live: boolean }>();
    const random = randomSource(99).next;
    const expected: number[] = [];
    for (let seq = 0; seq < 1_000; seq++) {
      const dueAt = Math.floor(random() * 100_000);
      const live = seq % 3 === 0;
      heap.push(dueAt, seq, { live });
      if (live) expected.push(dueAt);
    }
    expect(heap.retain((_dueAt, _seq, item) => item.live)).toBe(666);
    expect(heap.size).toBe(334);
    expect(drain(heap).map(([dueAt]) => dueAt)).toEqual(
      expected.sort((x, y) => x - y),
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
