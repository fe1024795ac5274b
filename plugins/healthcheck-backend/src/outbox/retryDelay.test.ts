import { retryDelay } from './retryDelay';

const SETTINGS = { baseMs: 1_000, maxMs: 30_000 };

describe('retryDelay', () => {
  it('doubles with each failed delivery, from the base', () => {
    const top = (attempts: number) => retryDelay(attempts, SETTINGS, () => 1);
    expect([1, 2, 3, 4, 5].map(top)).toEqual([
      1_000, 2_000, 4_000, 8_000, 16_000,
    ]);
  });

  it('never waits longer than the maximum, however many deliveries failed', () => {
    expect(retryDelay(6, SETTINGS, () => 1)).toBe(30_000);
    expect(retryDelay(1_000, SETTINGS, () => 1)).toBe(30_000);
  });

  it('draws each delay from the upper half, so retrying instances spread out', () => {
    expect(retryDelay(3, SETTINGS, () => 0)).toBe(2_000);
    expect(retryDelay(3, SETTINGS, () => 0.5)).toBe(3_000);
  });

  it('treats a first delivery that failed as the first attempt', () => {
    expect(retryDelay(0, SETTINGS, () => 1)).toBe(1_000);
  });
});
