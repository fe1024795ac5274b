const DEFAULT_INITIAL_CAPACITY = 64;

/**
 * A binary min-heap of due entries, ordered by `dueAt` and then by `seq`
 * (so entries due at the same instant come out in a stable, deterministic
 * order). The keys live in typed arrays and only the payload references in a
 * plain array: comparisons never chase a pointer, and an entry costs 24 bytes
 * instead of an object per entry.
 *
 * There is no removal from the middle: the owner marks entries stale
 * elsewhere, drops them when they surface, and calls `retain` to compact.
 *
 * @internal
 */
export class DueHeap<T> {
  #dueAt: Float64Array;
  #seq: Float64Array;
  #items: Array<T | undefined>;
  #size = 0;

  constructor(initialCapacity: number = DEFAULT_INITIAL_CAPACITY) {
    const capacity = Math.max(1, initialCapacity);
    this.#dueAt = new Float64Array(capacity);
    this.#seq = new Float64Array(capacity);
    this.#items = new Array<T | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** The earliest due time, or `Infinity` when empty. */
  peekDueAt(): number {
    return this.#size > 0 ? this.#dueAt[0] : Infinity;
  }

  /** The `seq` of the earliest entry; only meaningful when not empty. */
  peekSeq(): number {
    return this.#seq[0];
  }

  /** The payload of the earliest entry, or `undefined` when empty. */
  peekItem(): T | undefined {
    return this.#size > 0 ? this.#items[0] : undefined;
  }

  push(dueAt: number, seq: number, item: T): void {
    if (this.#size === this.#dueAt.length) {
      this.#grow();
    }
    this.#siftUp(this.#size, dueAt, seq, item);
    this.#size += 1;
  }

  /** Removes the earliest entry. */
  pop(): void {
    if (this.#size === 0) {
      return;
    }
    const last = this.#size - 1;
    this.#size = last;
    if (last === 0) {
      this.#items[0] = undefined;
      return;
    }
    const dueAt = this.#dueAt[last];
    const seq = this.#seq[last];
    const item = this.#items[last] as T;
    this.#items[last] = undefined;
    this.#siftDown(0, dueAt, seq, item);
  }

  /**
   * Pop and push in one pass: the common step of rescheduling the entry that
   * just fell due. Costs one sift instead of two.
   */
  replaceTop(dueAt: number, seq: number, item: T): void {
    if (this.#size === 0) {
      this.push(dueAt, seq, item);
      return;
    }
    this.#siftDown(0, dueAt, seq, item);
  }

  /**
   * Keeps only the entries `keep` accepts and restores heap order in O(n).
   *
   * @returns how many entries were dropped
   */
  retain(keep: (dueAt: number, seq: number, item: T) => boolean): number {
    const dueAts = this.#dueAt;
    const seqs = this.#seq;
    const items = this.#items;
    let kept = 0;
    for (let i = 0; i < this.#size; i++) {
      const item = items[i] as T;
      if (keep(dueAts[i], seqs[i], item)) {
        dueAts[kept] = dueAts[i];
        seqs[kept] = seqs[i];
        items[kept] = item;
        kept += 1;
      }
    }
    const dropped = this.#size - kept;
    items.fill(undefined, kept, this.#size);
    this.#size = kept;
    // Floyd's heapify: sift down every parent, last first.
    for (let i = (kept >>> 1) - 1; i >= 0; i--) {
      this.#siftDown(i, dueAts[i], seqs[i], items[i] as T);
    }
    return dropped;
  }

  clear(): void {
    this.#items.fill(undefined, 0, this.#size);
    this.#size = 0;
  }

  #grow(): void {
    const capacity = this.#dueAt.length * 2;
    const dueAt = new Float64Array(capacity);
    dueAt.set(this.#dueAt);
    const seq = new Float64Array(capacity);
    seq.set(this.#seq);
    this.#dueAt = dueAt;
    this.#seq = seq;
    this.#items.length = capacity;
  }

  /** Moves parents down until the hole at `index` fits the entry, then writes it. */
  #siftUp(index: number, dueAt: number, seq: number, item: T): void {
    const dueAts = this.#dueAt;
    const seqs = this.#seq;
    const items = this.#items;
    let hole = index;
    while (hole > 0) {
      const parent = (hole - 1) >>> 1;
      const parentDueAt = dueAts[parent];
      if (
        parentDueAt < dueAt ||
        (parentDueAt === dueAt && seqs[parent] <= seq)
      ) {
        break;
      }
      dueAts[hole] = parentDueAt;
      seqs[hole] = seqs[parent];
      items[hole] = items[parent];
      hole = parent;
    }
    dueAts[hole] = dueAt;
    seqs[hole] = seq;
    items[hole] = item;
  }

  /** Moves smaller children up until the hole at `index` fits the entry, then writes it. */
  #siftDown(index: number, dueAt: number, seq: number, item: T): void {
    const dueAts = this.#dueAt;
    const seqs = this.#seq;
    const items = this.#items;
    const size = this.#size;
    let hole = index;
    for (;;) {
      let child = 2 * hole + 1;
      if (child >= size) {
        break;
      }
      const right = child + 1;
      if (
        right < size &&
        (dueAts[right] < dueAts[child] ||
          (dueAts[right] === dueAts[child] && seqs[right] < seqs[child]))
      ) {
        child = right;
      }
      const childDueAt = dueAts[child];
      if (dueAt < childDueAt || (dueAt === childDueAt && seq <= seqs[child])) {
        break;
      }
      dueAts[hole] = childDueAt;
      seqs[hole] = seqs[child];
      items[hole] = items[child];
      hole = child;
    }
    dueAts[hole] = dueAt;
    seqs[hole] = seq;
    items[hole] = item;
  }
}
