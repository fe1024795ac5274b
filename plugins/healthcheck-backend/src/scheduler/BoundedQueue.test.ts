import { BoundedQueue } from './BoundedQueue';

describe('BoundedQueue', () => {
  it('accepts up to its capacity at once, then makes producers wait', async () => {
    const queue = new BoundedQueue<number>({ capacity: 8 });
    const accepted: number[] = [];
    for (let i = 1; i <= 10; i++) {
      void queue.put(i).then(() => accepted.push(i));
    }
    await Promise.resolve();
    expect(accepted).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(queue.length).toBe(8);
    expect(queue.waiting).toBe(2);
  });

  it('lets the longest-waiting producer in when the consumer takes one', async () => {
    const queue = new BoundedQueue<string>({ capacity: 1 });
    await queue.put('a');
    let bIn = false;
    let cIn = false;
    void queue.put('b').then(() => (bIn = true));
    void queue.put('c').then(() => (cIn = true));
    expect(queue.take()).toBe('a');
    await Promise.resolve();
    expect([bIn, cIn]).toEqual([true, false]);
    expect(queue.take()).toBe('b');
    expect(queue.take()).toBe('c');
    expect(queue.take()).toBeUndefined();
  });

  it('tells the consumer when an item arrives in an empty queue, once', async () => {
    const onAvailable = jest.fn();
    const queue = new BoundedQueue<number>({ capacity: 8, onAvailable });
    await queue.put(1);
    await queue.put(2);
    expect(onAvailable).toHaveBeenCalledTimes(1);
    queue.take();
    queue.take();
    await queue.put(3);
    expect(onAvailable).toHaveBeenCalledTimes(2);
  });

  it('rejects waiting and later producers once closed', async () => {
    const queue = new BoundedQueue<number>({ capacity: 1 });
    await queue.put(1);
    const waiting = queue.put(2);
    queue.close(new Error('stopped'));
    await expect(waiting).rejects.toThrow('stopped');
    await expect(queue.put(3)).rejects.toThrow('stopped');
  });

  it('refuses a capacity below 1', () => {
    expect(() => new BoundedQueue({ capacity: 0 })).toThrow(RangeError);
  });
});
