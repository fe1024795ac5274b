/**
 * A small seeded generator (mulberry32), so a benchmark's data is the same
 * in every run. (Property tests use fast-check.)
 */
export function randomSource(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (below: number) => Math.floor(next() * below);
  const pick = <T>(items: readonly T[]): T => items[int(items.length)];
  const chance = (probability: number) => next() < probability;
  return { next, int, pick, chance };
}

export type Random = ReturnType<typeof randomSource>;
