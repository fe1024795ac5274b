/**
 * First in, first out, except that a waiter held back (by its endpoint's
 * share, in the bulkhead) is passed over, and keeps its place, for the next
 * one that may go. Taken items leave holes, swept once they outnumber the
 * waiters.
 */
export class JobQueue<T> {
  #items: Array<T | undefined> = [];
  #head = 0;
  #length = 0;

  get length(): number {
    return this.#length;
  }

  push(item: T): void {
    this.#items.push(item);
    this.#length++;
  }

  /** Removes and returns the oldest item that `accept` takes, if any. */
  takeFirst(accept: (item: T) => boolean): T | undefined {
    const items = this.#items;
    for (let i = this.#head; i < items.length; i++) {
      const item = items[i];
      if (item !== undefined && accept(item)) {
        items[i] = undefined;
        this.#length--;
        this.#sweep();
        return item;
      }
    }
    return undefined;
  }

  #sweep(): void {
    const items = this.#items;
    while (this.#head < items.length && items[this.#head] === undefined) {
      this.#head++;
    }
    if (items.length - this.#head > 2 * this.#length + 1024) {
      this.#items = items.filter(item => item !== undefined);
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > items.length) {
      this.#items = items.slice(this.#head);
      this.#head = 0;
    }
  }
}
