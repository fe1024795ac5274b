import { clampWholeNumber, truncateText } from './probeLimits';

describe('clampWholeNumber', () => {
  const limits = { fallback: 5, max: 20 };

  it.each([
    [0, 0],
    [7, 7],
    [20, 20],
    [21, 20],
    [1e9, 20],
    [Number.MAX_SAFE_INTEGER, 20],
    [-1, 0],
    [3.9, 3],
  ])('brings %p within 0 to 20: %p', (value, expected) => {
    expect(clampWholeNumber(value, limits)).toBe(expected);
  });

  it.each([[undefined], [null], ['100'], [NaN], [Infinity], [{}]])(
    'gives the fallback for %p, which is no finite number',
    value => {
      expect(clampWholeNumber(value, limits)).toBe(5);
    },
  );

  it('never gives a fallback above the maximum', () => {
    expect(clampWholeNumber(undefined, { fallback: 50, max: 20 })).toBe(20);
  });
});

describe('truncateText', () => {
  it('keeps text within the limit as it is', () => {
    expect(truncateText('abc', 3)).toBe('abc');
  });

  it('cuts longer text to the limit, the ellipsis included', () => {
    expect(truncateText('abcdef', 4)).toBe('abc…');
    expect(truncateText('abcdef', 4)).toHaveLength(4);
  });
});
