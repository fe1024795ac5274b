import { ConcurrencyGate } from './ConcurrencyGate';

describe('ConcurrencyGate', () => {
  it('starts tasks at once while slots are free, then queues them in arrival order', () => {
    const gate = new ConcurrencyGate({ maxActive: 2, maxQueued: 5 });
    const started: number[] = [];

    for (const n of [1, 2, 3, 4]) {
      expect(gate.enter(() => started.push(n)).admitted).toBe(true);
    }
    expect(started).toEqual([1, 2]);
    expect(gate.stats()).toMatchObject({ active: 2, queued: 2 });

    gate.release();
    expect(started).toEqual([1, 2, 3]);
    gate.release();
    gate.release();
    expect(started).toEqual([1, 2, 3, 4]);
    expect(gate.stats()).toEqual({
      active: 1,
      queued: 0,
      peakActive: 2,
      rejected: 0,
    });
  });

  it('turns a task away at once when the queue is full, and never starts it', () => {
    const gate = new ConcurrencyGate({ maxActive: 1, maxQueued: 2 });
    const started: number[] = [];
    const entries = [1, 2, 3, 4, 5].map(n => gate.enter(() => started.push(n)));

    expect(entries.map(entry => entry.admitted)).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
    gate.release();
    gate.release();
    gate.release();
    expect(started).toEqual([1, 2, 3]);
    expect(gate.stats()).toMatchObject({ queued: 0, rejected: 2 });
  });

  it('lets a waiting task withdraw, which frees its place in the queue', () => {
    const gate = new ConcurrencyGate({ maxActive: 1, maxQueued: 1 });
    const started: string[] = [];
    gate.enter(() => started.push('a'));
    const waiting = gate.enter(() => started.push('b'));

    expect(waiting.withdraw()).toBe(true);
    expect(waiting.withdraw()).toBe(false);
    expect(gate.enter(() => started.push('c')).admitted).toBe(true);
    gate.release();
    expect(started).toEqual(['a', 'c']);
  });

  it('refuses limits that could never start a task', () => {
    expect(() => new ConcurrencyGate({ maxActive: 0, maxQueued: 1 })).toThrow(
      'A gate needs maxActive of at least 1',
    );
  });
});
