import { backoffDelayMs } from './backoff';

describe('backoffDelayMs', () => {
  it('walks 30, 60, 120, 240 s and then stays at the 300 s cap', () => {
    const delays = [1, 2, 3, 4, 5, 6, 100].map(failures =>
      backoffDelayMs(30_000, failures, 300_000),
    );
    expect(delays).toEqual([
      30_000, 60_000, 120_000, 240_000, 300_000, 300_000, 300_000,
    ]);
  });

  it('never overflows, however long the outage', () => {
    expect(backoffDelayMs(30_000, 1_000_000, 300_000)).toBe(300_000);
  });
});
