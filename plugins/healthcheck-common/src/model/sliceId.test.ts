import { Random, randomSource } from '../__testUtils__/randomSource';
import { decodeSliceId, encodeSliceId, SliceKey } from './sliceId';

// Heavy on the characters the escaping is about, and on look-alikes of the
// escapes themselves, plus spaces, non-ASCII and lone surrogates.
const PIECES = [
  ':',
  '/',
  '%',
  '%3A',
  '%2F',
  '%25',
  '%3a',
  '%%',
  'healthcheck',
  'healthcheck:',
  'system:default/payments',
  'a',
  'Z',
  '0',
  '-',
  '_',
  '.',
  ' ',
  '\t',
  'é',
  'Straße',
  '日本',
  '🚀',
  '\ud800',
  '\udfff',
  '\u0000',
];

function randomPart(random: Random): string {
  const length = random.int(6);
  let part = '';
  for (let i = 0; i < length; i++) {
    part +=
      random.next() < 0.8
        ? random.pick(PIECES)
        : String.fromCharCode(random.int(0x10000));
  }
  return part;
}

function randomKey(random: Random): SliceKey {
  return {
    checkId: randomPart(random),
    systemRef: randomPart(random),
    environment: randomPart(random),
  };
}

describe('encodeSliceId', () => {
  it('writes healthcheck:<check>:<system>:<environment>, escaping :, / and %', () => {
    expect(
      encodeSliceId({
        checkId: 'healthcheck:default/payments-health',
        systemRef: 'system:default/payments',
        environment: 'production',
      }),
    ).toBe(
      'healthcheck:healthcheck%3Adefault%2Fpayments-health:system%3Adefault%2Fpayments:production',
    );
  });

  it('keeps spaces and non-ASCII as they are, and escapes % first', () => {
    expect(
      encodeSliceId({
        checkId: '100% up',
        systemRef: 'system:default/zahlungsverkehr-straße',
        environment: 'eu west 🚀',
      }),
    ).toBe(
      'healthcheck:100%25 up:system%3Adefault%2Fzahlungsverkehr-straße:eu west 🚀',
    );
  });

  it('writes empty parts as empty', () => {
    expect(encodeSliceId({ checkId: '', systemRef: '', environment: '' })).toBe(
      'healthcheck:::',
    );
  });
});

describe('decodeSliceId', () => {
  it('reads back a slice id', () => {
    expect(
      decodeSliceId(
        'healthcheck:checkout-health:system%3Adefault%2Fcheckout:canary',
      ),
    ).toEqual({
      checkId: 'checkout-health',
      systemRef: 'system:default/checkout',
      environment: 'canary',
    });
  });

  it('reads an escaped escape as text, not as the character it escapes', () => {
    expect(decodeSliceId('healthcheck:a%253A:b:c').checkId).toBe('a%3A');
  });

  it.each([
    [
      'job:a:b:c',
      'is not of the form healthcheck:<check>:<system>:<environment>',
    ],
    ['healthcheck:a:b', 'is not of the form'],
    ['healthcheck:a:b:c:d', 'is not of the form'],
    [
      'healthcheck:a:system%3adefault%2fb:c',
      'its system ref holds a "%" that is not %25, %3A or %2F',
    ],
    [
      'healthcheck:50%:b:c',
      'its check id holds a "%" that is not %25, %3A or %2F',
    ],
    ['healthcheck:a%41:b:c', 'its check id holds a "%" that is not'],
    [
      'healthcheck:a:system%3Adefault/b:c',
      'its system ref holds an unescaped "/"',
    ],
  ])('refuses %j: %s', (id, reason) => {
    expect(() => decodeSliceId(id)).toThrow(TypeError);
    expect(() => decodeSliceId(id)).toThrow(reason);
  });
});

describe('slice ids, over random keys', () => {
  const SEEDS = [1, 2, 3, 42, 2024];
  const KEYS_PER_SEED = 4_000;

  it.each(SEEDS)('round-trip any key (seed %i)', seed => {
    const random = randomSource(seed);
    for (let i = 0; i < KEYS_PER_SEED; i++) {
      const key = randomKey(random);
      const id = encodeSliceId(key);
      expect(decodeSliceId(id)).toEqual(key);
      // Canonical: the id of the decoded key is the same id.
      expect(encodeSliceId(decodeSliceId(id))).toBe(id);
    }
  });

  it.each(SEEDS)('never give two different keys one id (seed %i)', seed => {
    const random = randomSource(seed);
    const keyById = new Map<string, SliceKey>();
    const collisions: Array<[SliceKey, SliceKey]> = [];
    for (let i = 0; i < KEYS_PER_SEED; i++) {
      const key = randomKey(random);
      const id = encodeSliceId(key);
      const seen = keyById.get(id);
      if (!seen) {
        keyById.set(id, key);
      } else if (JSON.stringify(seen) !== JSON.stringify(key)) {
        collisions.push([seen, key]);
      }
    }
    expect(collisions).toEqual([]);
    // A generator that kept repeating itself would prove nothing.
    expect(keyById.size).toBeGreaterThan(KEYS_PER_SEED / 2);
  });

  it('keep apart keys that differ only in where a ":" or "/" sits', () => {
    const keys: SliceKey[] = [
      { checkId: 'a:b', systemRef: 'c', environment: 'd' },
      { checkId: 'a', systemRef: 'b:c', environment: 'd' },
      { checkId: 'a', systemRef: 'b', environment: 'c:d' },
      { checkId: 'a/b', systemRef: 'c', environment: 'd' },
      { checkId: 'a%3Ab', systemRef: 'c', environment: 'd' },
      { checkId: 'a%253Ab', systemRef: 'c', environment: 'd' },
      { checkId: '', systemRef: 'a:b', environment: 'c:d' },
      { checkId: 'a:b:c:d', systemRef: '', environment: '' },
    ];
    const ids = keys.map(encodeSliceId);
    expect(new Set(ids).size).toBe(keys.length);
    expect(ids.map(decodeSliceId)).toEqual(keys);
  });
});
