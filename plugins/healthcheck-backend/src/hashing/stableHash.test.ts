import fc from 'fast-check';
import { stableHash } from './stableHash';

describe('stableHash', () => {
  it('is a pure function of the text, so every instance and restart agrees', () => {
    expect(stableHash('check-1')).toBe(stableHash('check-1'));
    // Pinned: a change here moves every slice to a new slot on upgrade.
    expect(stableHash('check-1')).toBe(2242801739687509);
    expect(stableHash('')).toBe(3809637064457906);
  });

  it('returns a non-negative safe integer of up to 53 bits', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.uuid(),
          fc.nat().map(n => `check-${n}`),
        ),
        text => {
          const hash = stableHash(text);
          expect(Number.isSafeInteger(hash)).toBe(true);
          expect(hash).toBeGreaterThanOrEqual(0);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it('tells apart texts that differ in one code unit, or in order', () => {
    expect(stableHash('ab\nc')).not.toBe(stableHash('a\nbc'));
    expect(stableHash('check-12')).not.toBe(stableHash('check-21'));
    expect(stableHash('\ud800')).not.toBe(stableHash('\udc00'));
  });
});
