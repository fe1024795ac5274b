import {
  createPingToken,
  hashPingToken,
  isPingTokenShaped,
  pingTokenHint,
} from './pingTokens';

describe('ping tokens', () => {
  it('are 32 URL-safe random characters, different each time', () => {
    const tokens = new Set(Array.from({ length: 100 }, createPingToken));
    expect(tokens.size).toBe(100);
    for (const token of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{32}$/);
      expect(isPingTokenShaped(token)).toBe(true);
    }
  });

  it('are stored as their SHA-256 and shown by their last four characters', () => {
    expect(hashPingToken('abc')).toBe(
      'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad',
    );
    expect(pingTokenHint('abcdefgh')).toBe('…efgh');
  });

  it('tells texts that cannot be tokens', () => {
    expect(isPingTokenShaped('short')).toBe(false);
    expect(isPingTokenShaped(`${'a'.repeat(31)}/`)).toBe(false);
  });
});
