import { DerivationMemo, type PairDerivation } from './derivationMemo';

function derivation(label: string): PairDerivation {
  return {
    slices: [],
    paused: [],
    refused: [
      {
        id: label,
        checkId: 'c',
        systemRef: 's',
        environment: 'e',
        reason: label,
      },
    ],
  };
}

describe('DerivationMemo', () => {
  it('gives back what a check of the same version derived on a system of the same key, the very object', () => {
    const memo = new DerivationMemo();
    const first = derivation('first');
    memo.begin('settings');
    expect(memo.pair('check-a', 'etag-1', 'system-1', () => first)).toBe(first);
    expect(memo.end()).toEqual({ reused: 0, derived: 1, unchanged: false });

    memo.begin('settings');
    const derive = jest.fn(() => derivation('again'));
    expect(memo.pair('check-a', 'etag-1', 'system-1', derive)).toBe(first);
    expect(derive).not.toHaveBeenCalled();
    expect(memo.end()).toEqual({ reused: 1, derived: 0, unchanged: true });
  });

  it('derives again for a new version of the check, or another key of the system', () => {
    const memo = new DerivationMemo();
    memo.begin('settings');
    memo.pair('check-a', 'etag-1', 'system-1', () => derivation('1'));
    memo.pair('check-b', 'etag-1', 'system-1', () => derivation('2'));
    memo.end();

    memo.begin('settings');
    const edited = memo.pair('check-a', 'etag-2', 'system-1', () =>
      derivation('edited'),
    );
    const moved = memo.pair('check-b', 'etag-1', 'system-1 renamed', () =>
      derivation('moved'),
    );
    expect([edited.refused[0].id, moved.refused[0].id]).toEqual([
      'edited',
      'moved',
    ]);
    expect(memo.end()).toMatchObject({ derived: 2, unchanged: false });
  });

  it('forgets what a pass did not use, and says a pass that drops a pair changed', () => {
    const memo = new DerivationMemo();
    memo.begin('settings');
    memo.pair('check-a', 'etag-1', 'system-1', () => derivation('a'));
    memo.pair('check-b', 'etag-1', 'system-1', () => derivation('b'));
    memo.end();
    expect(memo.size).toBe(2);

    memo.begin('settings');
    memo.pair('check-a', 'etag-1', 'system-1', () => derivation('a again'));
    expect(memo.end()).toEqual({ reused: 1, derived: 0, unchanged: false });
    expect(memo.size).toBe(1);

    memo.begin('settings');
    const derive = jest.fn(() => derivation('b again'));
    memo.pair('check-b', 'etag-1', 'system-1', derive);
    expect(derive).toHaveBeenCalled();
    memo.end();
  });

  it('reuses nothing under another context, nor for a check of no known version', () => {
    const memo = new DerivationMemo();
    memo.begin('owner');
    memo.pair('check-a', 'etag-1', 'system-1', () => derivation('a'));
    memo.pair('check-api', undefined, 'system-1', () => derivation('api'));
    expect(memo.end()).toMatchObject({ derived: 2 });

    memo.begin('any');
    const derive = jest.fn(() => derivation('a under any'));
    memo.pair('check-a', 'etag-1', 'system-1', derive);
    memo.pair('check-api', undefined, 'system-1', derive);
    expect(derive).toHaveBeenCalledTimes(2);
    expect(memo.end()).toEqual({ reused: 0, derived: 2, unchanged: false });
  });

  it('judges a check once per version', () => {
    const memo = new DerivationMemo();
    const judge = jest.fn(() => ['spec.timeout: too long']);
    memo.begin('settings');
    expect(memo.judgement('check-a', 'etag-1', judge)).toEqual([
      'spec.timeout: too long',
    ]);
    memo.end();

    memo.begin('settings');
    memo.judgement('check-a', 'etag-1', judge);
    expect(judge).toHaveBeenCalledTimes(1);
    memo.judgement('check-a', 'etag-2', judge);
    expect(judge).toHaveBeenCalledTimes(2);
    memo.end();
  });

  it('calls no pass unchanged after one that stopped half way, though it reuses what that one derived', () => {
    const memo = new DerivationMemo();
    memo.begin('settings');
    memo.pair('check-a', 'etag-1', 'system-1', () => derivation('1'));
    memo.end();

    // Throws before its end: its slices were never written.
    memo.begin('settings');
    memo.pair('check-a', 'etag-2', 'system-1', () => derivation('2'));

    memo.begin('settings');
    const derive = jest.fn(() => derivation('2 again'));
    expect(
      memo.pair('check-a', 'etag-2', 'system-1', derive).refused[0].id,
    ).toBe('2');
    expect(derive).not.toHaveBeenCalled();
    expect(memo.end()).toEqual({ reused: 1, derived: 0, unchanged: false });

    memo.begin('settings');
    memo.pair('check-a', 'etag-2', 'system-1', derive);
    expect(memo.end()).toEqual({ reused: 1, derived: 0, unchanged: true });
  });
});
