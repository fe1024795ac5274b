import fc from 'fast-check';
import {
  claimKeyAt,
  firstDueAt,
  firstProbeWindowMs,
  gridPointAfter,
  gridPointAtOrAfter,
  missedTicks,
  nextTick,
  staggerOffsetMs,
} from './tickGrid';

const bytesArb = fc.array(fc.integer({ min: 0, max: 255 }), {
  minLength: 16,
  maxLength: 16,
});

function formatUuid(bytes: number[]): string {
  const hex = bytes.map(b => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(
    12,
    16,
  )}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * `count` ids from a fixed seed: the spread below is a statistic over one
 * sample, which a fresh sample each run would now and then miss.
 */
function sampleIds(
  arbitrary: fc.Arbitrary<string>,
  seed: number,
  count: number,
) {
  return fc.sample(arbitrary, { seed, numRuns: count });
}

const randomUuidArb = bytesArb.map(bytes => {
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return formatUuid(bytes);
});

/** UUIDv7s created in one millisecond: the first 48 bits are all equal. */
const uuidV7FromOneMillisecondArb = bytesArb.map(bytes => {
  const millis = 1_767_225_600_000; // 2026-01-01T00:00:00Z
  for (let i = 0; i < 6; i++) {
    bytes[i] = Math.floor(millis / 2 ** (8 * (5 - i))) & 0xff;
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return formatUuid(bytes);
});

const ID_SHAPES: Array<[string, string[]]> = [
  ['random UUIDs', sampleIds(randomUuidArb, 0xdeadbeef, 1000)],
  [
    'UUIDv7s from one millisecond',
    sampleIds(uuidV7FromOneMillisecondArb, 0x7e57, 1000),
  ],
  [
    'sequential names check-1..check-1000',
    Array.from({ length: 1000 }, (_, i) => `check-${i + 1}`),
  ],
  [
    'slice ids sharing a long prefix',
    Array.from(
      { length: 1000 },
      (_, i) =>
        `healthcheck:api-check:system%3Adefault%2Fpayments:production-${i + 1}`,
    ),
  ],
];

function tenBuckets(values: number[], range: number): number[] {
  const buckets = new Array<number>(10).fill(0);
  for (const value of values) {
    buckets[Math.min(9, Math.floor((value * 10) / range))] += 1;
  }
  return buckets;
}

describe('staggerOffsetMs', () => {
  it.each(ID_SHAPES)(
    'spreads %s evenly: each tenth of a 60 s interval gets 60..160 of 1,000',
    (_shape, ids) => {
      const intervalMs = 60_000;
      const buckets = tenBuckets(
        ids.map(id => staggerOffsetMs(id, intervalMs)),
        intervalMs,
      );
      for (const count of buckets) {
        expect(count).toBeGreaterThanOrEqual(60);
        expect(count).toBeLessThanOrEqual(160);
      }
    },
  );

  it.each(ID_SHAPES)(
    'spreads %s evenly over 1 s and 1 day intervals too',
    (_shape, ids) => {
      for (const intervalMs of [1_000, 86_400_000]) {
        const buckets = tenBuckets(
          ids.map(id => staggerOffsetMs(id, intervalMs)),
          intervalMs,
        );
        expect(Math.min(...buckets)).toBeGreaterThanOrEqual(60);
        expect(Math.max(...buckets)).toBeLessThanOrEqual(160);
      }
    },
  );

  it('is a whole millisecond inside the interval', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.constantFrom('a', 'check-7', 'x'.repeat(500)),
          fc.string({ unit: 'binary', maxLength: 200 }),
        ),
        fc.integer({ min: 1, max: 7 * 86_400_000 }),
        (id, intervalMs) => {
          const offset = staggerOffsetMs(id, intervalMs);
          expect(Number.isInteger(offset)).toBe(true);
          expect(offset).toBeGreaterThanOrEqual(0);
          expect(offset).toBeLessThan(intervalMs);
        },
      ),
      { numRuns: 1_000 },
    );
    expect(staggerOffsetMs('check-7', 1)).toBe(0);
  });
});

describe('grid points', () => {
  // interval 10 s, offset 3 s: the grid is ..., 3_000, 13_000, 23_000, ...
  it('finds the first grid point at or after a time', () => {
    expect(gridPointAtOrAfter(13_000, 10_000, 3_000)).toBe(13_000);
    expect(gridPointAtOrAfter(13_001, 10_000, 3_000)).toBe(23_000);
    expect(gridPointAtOrAfter(12_999, 10_000, 3_000)).toBe(13_000);
  });

  it('finds the first grid point strictly after a time', () => {
    expect(gridPointAfter(13_000, 10_000, 3_000)).toBe(23_000);
    expect(gridPointAfter(12_999.5, 10_000, 3_000)).toBe(13_000);
  });

  it('anchors the grid to the epoch, not to any start time', () => {
    const now = 1_767_225_612_345;
    const next = gridPointAfter(now, 60_000, 7_000);
    expect(next % 60_000).toBe(7_000);
    expect(next - now).toBeLessThanOrEqual(60_000);
  });
});

describe('firstDueAt', () => {
  const now = 1_767_225_600_000;

  it('fires within min(5 s, interval / 2) of now', () => {
    expect(firstProbeWindowMs(60_000)).toBe(5_000);
    expect(firstProbeWindowMs(4_000)).toBe(2_000);
    for (const [, ids] of ID_SHAPES) {
      for (const id of ids.slice(0, 200)) {
        for (const intervalMs of [1_000, 4_000, 60_000, 3_600_000]) {
          const offset = staggerOffsetMs(id, intervalMs);
          const due = firstDueAt(intervalMs, offset, now);
          expect(due).toBeGreaterThanOrEqual(now);
          expect(due - now).toBeLessThanOrEqual(firstProbeWindowMs(intervalMs));
        }
      }
    }
  });

  it('spreads a bulk import over the window instead of one instant', () => {
    for (const [, ids] of ID_SHAPES) {
      // A day-long interval almost never has a grid point in the window,
      // so the hashed point inside the window decides.
      const delays = ids.map(
        id =>
          firstDueAt(86_400_000, staggerOffsetMs(id, 86_400_000), now) - now,
      );
      const buckets = tenBuckets(delays, 5_000);
      expect(Math.min(...buckets)).toBeGreaterThanOrEqual(60);
      expect(Math.max(...buckets)).toBeLessThanOrEqual(160);
    }
  });

  it('uses the grid point itself when one falls inside the window', () => {
    // interval 60 s, offset such that the grid has a point 4 s from now
    const offset = (now + 4_000) % 60_000;
    expect(firstDueAt(60_000, offset, now)).toBe(now + 4_000);
    expect(firstDueAt(60_000, offset, now + 4_000)).toBe(now + 4_000);
  });
});

describe('claimKeyAt', () => {
  const id =
    'healthcheck:payments-health:system%3Adefault%2Fpayments:production';
  const interval = 10_000;
  const offset = staggerOffsetMs(id, interval);
  const grid = 1_767_225_600_000 - (1_767_225_600_000 % interval) + offset;

  it('keys a grid tick by itself', () => {
    expect(claimKeyAt(id, grid, interval)).toBe(grid);
    expect(claimKeyAt(id, grid + interval, interval)).toBe(grid + interval);
  });

  it('keys a first probe between grid points by the grid point before it, wherever each instance computed it', () => {
    expect(claimKeyAt(id, grid + 1, interval)).toBe(grid);
    expect(claimKeyAt(id, grid + 3_700, interval)).toBe(grid);
    expect(claimKeyAt(id, grid + interval - 1, interval)).toBe(grid);
  });

  it('never gives a first probe the key of the grid tick that follows it', () => {
    for (let delay = 1; delay < interval; delay += 97) {
      const firstProbe = grid + delay;
      const next = gridPointAtOrAfter(
        firstProbe + interval / 2,
        interval,
        offset,
      );
      expect(claimKeyAt(id, firstProbe, interval)).not.toBe(
        claimKeyAt(id, next, interval),
      );
    }
  });
});

describe('nextTick', () => {
  it('skips the backlog when behind and keeps the phase (the seed example)', () => {
    const base = 10_000;
    const scheduled = 1_000_000; // on the grid of offset 0
    const now = scheduled + base + base * 2 + base / 2;
    const next = nextTick(scheduled, base, 0, now);
    expect(next).toBeGreaterThan(now);
    expect(next).toBe(scheduled + base * 4);
    expect(missedTicks(scheduled, base, 0, next)).toBe(3);
  });

  it('is one interval later when the tick ran less than half an interval late', () => {
    expect(nextTick(1_003_000, 10_000, 3_000, 1_003_000)).toBe(1_013_000);
    expect(nextTick(1_003_000, 10_000, 3_000, 1_007_999)).toBe(1_013_000);
    expect(missedTicks(1_003_000, 10_000, 3_000, 1_013_000)).toBe(0);
  });

  it('skips the grid tick that would follow a late run within half an interval', () => {
    // ran 6 s late: 13 s would be only 4 s after the run, so 23 s it is
    expect(nextTick(1_003_000, 10_000, 3_000, 1_009_000)).toBe(1_023_000);
    expect(missedTicks(1_003_000, 10_000, 3_000, 1_023_000)).toBe(1);
  });

  it('follows a first probe half an interval before the grid with that grid tick, however few ms late it ran', () => {
    // interval 8 s, window 4 s: the first probe may sit 4 s before the grid
    const first = 1_004_000;
    const grid = 1_008_000;
    for (const lateMs of [0, 1, 40, 800]) {
      expect(nextTick(first, 8_000, 0, first + lateMs)).toBe(grid);
    }
    // Later than timers make it: half an interval after the run.
    expect(nextTick(first, 8_000, 0, first + 801)).toBe(grid + 8_000);
    // A second at most, however long the interval.
    expect(nextTick(1_050_000, 60_000, 0, 1_051_000)).toBe(1_080_000);
    expect(nextTick(1_050_000, 60_000, 0, 1_051_001)).toBe(1_140_000);
  });

  it('is strictly after now when now sits exactly on a grid point', () => {
    expect(nextTick(1_003_000, 10_000, 3_000, 1_013_000)).toBe(1_023_000);
    expect(missedTicks(1_003_000, 10_000, 3_000, 1_023_000)).toBe(1);
  });

  it('never fires twice in one interval when the first probe and the grid coincide', () => {
    // interval 10 s, window 5 s; the grid point lands 1 ms after the window
    const now = 1_000_000;
    const intervalMs = 10_000;
    const offset = (now + 5_001) % intervalMs;
    const first = firstDueAt(intervalMs, offset, now);
    expect(first).toBeLessThan(now + 5_001);
    const second = nextTick(first, intervalMs, offset, first);
    expect(second - first).toBeGreaterThanOrEqual(intervalMs / 2);
    expect((second - offset) % intervalMs).toBe(0);
  });

  it('puts the second tick on the grid, at least half an interval after the first, for any id', () => {
    const now = 1_767_225_600_123;
    for (const [, ids] of ID_SHAPES) {
      for (const id of ids.slice(0, 250)) {
        for (const intervalMs of [1, 2, 999, 10_000, 60_000]) {
          const offset = staggerOffsetMs(id, intervalMs);
          const first = firstDueAt(intervalMs, offset, now);
          const second = nextTick(first, intervalMs, offset, first);
          expect(second - first).toBeGreaterThanOrEqual(
            Math.max(1, Math.floor(intervalMs / 2)),
          );
          expect(second - first).toBeLessThan(1.5 * intervalMs + 1);
          expect(
            (((second - offset) % intervalMs) + intervalMs) % intervalMs,
          ).toBe(0);
        }
      }
    }
  });
});
