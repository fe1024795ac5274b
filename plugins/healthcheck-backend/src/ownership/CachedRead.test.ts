import { CachedRead } from './CachedRead';

describe('CachedRead', () => {
  it('serves one read to every caller until it is refreshMs old, or invalidated', async () => {
    let now = 0;
    let reads = 0;
    const cached = new CachedRead(async () => ++reads, {
      now: () => now,
      refreshMs: 1000,
    });
    expect(await Promise.all([cached.get(), cached.get()])).toEqual([1, 1]);
    now = 999;
    expect(await cached.get()).toBe(1);
    now = 1000;
    expect(await cached.get()).toBe(2);
    cached.invalidate();
    expect(await cached.get()).toBe(3);
  });

  it('keeps no failed read: the next caller reads again', async () => {
    let fail = true;
    const cached = new CachedRead(
      async () => {
        if (fail) throw new Error('catalog unavailable');
        return 'windows';
      },
      { now: () => 0, refreshMs: 1000 },
    );
    await expect(cached.get()).rejects.toThrow('catalog unavailable');
    fail = false;
    expect(await cached.get()).toBe('windows');
  });
});
