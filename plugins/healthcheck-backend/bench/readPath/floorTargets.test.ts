import {
  BADGE_TARGET,
  describeFloorTarget,
  judgeAgainstFloor,
  ROLLUP_READ_TARGET,
} from './floorTargets';

const floor = { p99Ms: 20, requestsPerSecond: 4_000 };

describe('judgeAgainstFloor', () => {
  it('passes a route within both ratios of the floor', () => {
    const verdict = judgeAgainstFloor(
      { p99Ms: 24, requestsPerSecond: 3_200 },
      floor,
      ROLLUP_READ_TARGET,
    );
    expect(verdict.p99Ratio).toBeCloseTo(1.2);
    expect(verdict.rateRatio).toBeCloseTo(0.8);
    expect(verdict.met).toBe(true);
    expect(verdict.text).toBe('1.20× p99, 0.80× req/s: PASS');
  });

  it('misses on a p99 over its ratio, whatever the throughput', () => {
    const verdict = judgeAgainstFloor(
      { p99Ms: 22.4, requestsPerSecond: 5_000 },
      floor,
      BADGE_TARGET,
    );
    expect(verdict.met).toBe(false);
    expect(verdict.text).toBe('1.12× p99, 1.25× req/s: MISS (p99)');
  });

  it('misses on a throughput under its ratio, and names both when both miss', () => {
    expect(
      judgeAgainstFloor(
        { p99Ms: 10, requestsPerSecond: 3_000 },
        floor,
        BADGE_TARGET,
      ).text,
    ).toBe('0.50× p99, 0.75× req/s: MISS (throughput)');
    expect(
      judgeAgainstFloor(
        { p99Ms: 40, requestsPerSecond: 1_000 },
        floor,
        BADGE_TARGET,
      ).text,
    ).toBe('2.00× p99, 0.25× req/s: MISS (p99, throughput)');
  });
});

describe('describeFloorTarget', () => {
  it('says both ratios', () => {
    expect(describeFloorTarget(ROLLUP_READ_TARGET)).toBe(
      'p99 ≤ 1.2× floor, req/s ≥ 0.8× floor',
    );
  });
});
