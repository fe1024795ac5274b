import { isValidSlice, sameOwnProperties } from './sliceChecks';

describe('isValidSlice', () => {
  it('accepts an id with a whole-millisecond interval of at least 1', () => {
    expect(isValidSlice({ id: 'a', intervalMs: 1 })).toBe(true);
    expect(isValidSlice({ id: 'a', intervalMs: 86_400_000 })).toBe(true);
  });

  it.each([
    ['an empty id', { id: '', intervalMs: 1_000 }],
    ['a fractional interval', { id: 'a', intervalMs: 1.5 }],
    ['a zero interval', { id: 'a', intervalMs: 0 }],
    ['a negative interval', { id: 'a', intervalMs: -1_000 }],
    ['an infinite interval', { id: 'a', intervalMs: Infinity }],
    ['a NaN interval', { id: 'a', intervalMs: NaN }],
  ])('rejects %s', (_case, slice) => {
    expect(isValidSlice(slice)).toBe(false);
  });
});

describe('sameOwnProperties', () => {
  it('treats equal copies as unchanged', () => {
    expect(
      sameOwnProperties(
        { id: 'a', intervalMs: 1_000, target: 'https://x' },
        { id: 'a', intervalMs: 1_000, target: 'https://x' },
      ),
    ).toBe(true);
  });

  it('sees a changed, added or removed property', () => {
    const base = { id: 'a', intervalMs: 1_000, target: 'https://x' };
    expect(sameOwnProperties(base, { ...base, target: 'https://y' })).toBe(
      false,
    );
    expect(sameOwnProperties<object>(base, { ...base, timeoutMs: 5_000 })).toBe(
      false,
    );
    expect(
      sameOwnProperties<object>(base, { id: 'a', intervalMs: 1_000 }),
    ).toBe(false);
  });

  it('compares nested objects by reference, so a rebuilt config counts as a change', () => {
    const config = { headers: { a: '1' } };
    expect(sameOwnProperties({ config }, { config })).toBe(true);
    expect(
      sameOwnProperties({ config }, { config: { headers: { a: '1' } } }),
    ).toBe(false);
  });
});
