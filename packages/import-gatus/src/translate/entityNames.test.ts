import { toEntityName, uniqueEntityNames } from './entityNames';

describe('toEntityName', () => {
  it('writes a Gatus name as a lower-case entity name', () => {
    expect(
      toEntityName('random endpoint that is not part of a group', 'x'),
    ).toBe('random-endpoint-that-is-not-part-of-a-group');
    expect(toEntityName('  Other_Example! ', 'x')).toBe('other-example');
  });

  it('keeps at most 63 characters and never ends in a dash', () => {
    const name = toEntityName(`${'a'.repeat(62)} b`, 'x');
    expect(name).toBe('a'.repeat(62));
  });

  it('falls back when nothing is left', () => {
    expect(toEntityName('!!!', 'endpoint')).toBe('endpoint');
  });
});

describe('uniqueEntityNames', () => {
  it('puts the group before a shared name, and a number after when that is not enough', () => {
    expect(
      uniqueEntityNames([
        { name: 'website', group: 'core' },
        { name: 'website', group: 'other' },
        { name: 'api' },
        { name: 'API' },
      ]),
    ).toEqual(['core-website', 'other-website', 'api', 'api-2']);
  });
});
