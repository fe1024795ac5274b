import { parseRevisionQuery } from './parseRevisionQuery';

describe('parseRevisionQuery', () => {
  it('reads a whole revision of 1 or more, or none', () => {
    expect(parseRevisionQuery(undefined)).toBeUndefined();
    expect(parseRevisionQuery('3')).toBe(3);
  });

  it.each([
    ['0'],
    ['-1'],
    ['1.5'],
    ['3a'],
    [''],
    [['1', '2']],
    ['9'.repeat(20)],
  ])('refuses %j, saying what it must be', value => {
    expect(() => parseRevisionQuery(value)).toThrow(
      /^The query parameter revision must be the whole number 1 or more that the check had when you read it, not /,
    );
  });
});
