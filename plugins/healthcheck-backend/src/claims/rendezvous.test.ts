import { ownerOf } from './rendezvous';

/** 10,000 slice ids shaped like real ones: 500 systems x 20 checks. */
const SLICE_IDS = Array.from(
  { length: 10_000 },
  (_, i) =>
    `healthcheck:check-${i % 20}:system%3Adefault%2Fsystem-${Math.floor(
      i / 20,
    )}:production`,
);

/** Instance ids shaped like the default: host name, then a random UUID. */
function instanceIds(count: number): string[] {
  return Array.from(
    { length: count },
    (_, i) =>
      `vigil-backend-6d9f${i}/7f3c2a9e-1d4b-4c8a-9e2f-${String(i).padStart(
        12,
        '0',
      )}`,
  );
}

function ownership(instances: string[]): Map<string, string> {
  return new Map(
    SLICE_IDS.map(sliceId => [sliceId, ownerOf(sliceId, instances)!]),
  );
}

function sharesOf(owners: Map<string, string>, instances: string[]) {
  const counts = new Map(instances.map(id => [id, 0]));
  for (const owner of owners.values()) {
    counts.set(owner, counts.get(owner)! + 1);
  }
  return instances.map(id => counts.get(id)! / owners.size);
}

describe('ownerOf', () => {
  it('gives each of 3 instances between 30% and 37% of 10,000 slices', () => {
    const instances = instanceIds(3);
    for (const share of sharesOf(ownership(instances), instances)) {
      expect(share).toBeGreaterThanOrEqual(0.3);
      expect(share).toBeLessThanOrEqual(0.37);
    }
  });

  it.each([2, 5, 10])(
    'gives each of %d instances its fair share of 10,000 slices, give or take 15%%',
    count => {
      const instances = instanceIds(count);
      for (const share of sharesOf(ownership(instances), instances)) {
        expect(share).toBeGreaterThanOrEqual(0.85 / count);
        expect(share).toBeLessThanOrEqual(1.15 / count);
      }
    },
  );

  it('moves only the slices of an instance that leaves, and spreads them over the others', () => {
    const [a, b, c] = instanceIds(3);
    const before = ownership([a, b, c]);
    const after = ownership([a, b]);

    const moved = SLICE_IDS.filter(id => before.get(id) !== after.get(id));
    expect(moved.every(id => before.get(id) === c)).toBe(true);
    expect(moved).toHaveLength(
      SLICE_IDS.filter(id => before.get(id) === c).length,
    );
    const toA = moved.filter(id => after.get(id) === a).length;
    expect(toA / moved.length).toBeGreaterThan(0.4);
    expect(toA / moved.length).toBeLessThan(0.6);
  });

  it('gives an instance that joins only slices it takes from the others, about 1/4 of them', () => {
    const [a, b, c, d] = instanceIds(4);
    const before = ownership([a, b, c]);
    const after = ownership([a, b, c, d]);

    const moved = SLICE_IDS.filter(id => before.get(id) !== after.get(id));
    expect(moved.every(id => after.get(id) === d)).toBe(true);
    expect(moved.length / SLICE_IDS.length).toBeGreaterThan(0.22);
    expect(moved.length / SLICE_IDS.length).toBeLessThan(0.28);
  });

  it('does not depend on the order in which the instances are listed', () => {
    const [a, b, c] = instanceIds(3);
    for (const sliceId of SLICE_IDS.slice(0, 1_000)) {
      const owner = ownerOf(sliceId, [a, b, c]);
      expect(ownerOf(sliceId, [c, a, b])).toBe(owner);
      expect(ownerOf(sliceId, [b, c, a])).toBe(owner);
    }
  });

  it('names no owner when no instance is live, and the only one when one is', () => {
    expect(ownerOf('healthcheck:a:b:c', [])).toBeUndefined();
    expect(ownerOf('healthcheck:a:b:c', ['solo'])).toBe('solo');
  });

  it('keeps the same owners across calls (the hash has no hidden state)', () => {
    const instances = instanceIds(3);
    const first = ownership(instances);
    // A long id in between grows the scratch buffer.
    ownerOf(`${'x'.repeat(5_000)}`, instances);
    expect(ownership(instances)).toEqual(first);
  });
});
