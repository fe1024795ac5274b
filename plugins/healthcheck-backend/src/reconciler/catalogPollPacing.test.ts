import { nextCatalogPollAt } from './catalogPollPacing';

const pacing = {
  catalogPollIntervalMs: 30_000,
  catalogPollBudget: 0.01,
  intervalMs: 300_000,
};

describe('nextCatalogPollAt', () => {
  it('lets the first poll run at once', () => {
    expect(nextCatalogPollAt(undefined, pacing)).toBe(-Infinity);
  });

  it("spaces polls by the last one's time over the budget", () => {
    // 1.8 s at 1%: 180 s.
    expect(
      nextCatalogPollAt({ startedAt: 1_000_000, tookMs: 1_800 }, pacing),
    ).toBe(1_180_000);
    // 5%: 36 s.
    expect(
      nextCatalogPollAt(
        { startedAt: 1_000_000, tookMs: 1_800 },
        { ...pacing, catalogPollBudget: 0.05 },
      ),
    ).toBe(1_036_000);
  });

  it("leaves a quick poll to the task's own interval", () => {
    expect(
      nextCatalogPollAt({ startedAt: 1_000_000, tookMs: 120 }, pacing),
    ).toBe(1_012_000);
  });

  it("waits no longer than a full pass's interval, or the poll interval where that is longer", () => {
    expect(
      nextCatalogPollAt({ startedAt: 1_000_000, tookMs: 60_000 }, pacing),
    ).toBe(1_300_000);
    expect(
      nextCatalogPollAt(
        { startedAt: 1_000_000, tookMs: 60_000 },
        { ...pacing, catalogPollIntervalMs: 600_000 },
      ),
    ).toBe(1_600_000);
  });

  it('reads a negative time as none', () => {
    expect(
      nextCatalogPollAt({ startedAt: 1_000_000, tookMs: -5 }, pacing),
    ).toBe(1_000_000);
  });
});
