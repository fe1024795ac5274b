import fc from 'fast-check';
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

/** The pieces most of the time, now and then any UTF-16 code unit. */
const partArb = fc
  .array(
    fc.oneof(
      { weight: 80, arbitrary: fc.constantFrom(...PIECES) },
      {
        weight: 20,
        arbitrary: fc
          .integer({ min: 0, max: 0xffff })
          .map(code => String.fromCharCode(code)),
      },
    ),
    { maxLength: 5 },
  )
  .map(pieces => pieces.join(''));

const keyArb: fc.Arbitrary<SliceKey> = fc.record({
  checkId: partArb,
  systemRef: partArb,
  environment: partArb,
});

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
  it('round-trip any key', () => {
    fc.assert(
      fc.property(keyArb, key => {
        const id = encodeSliceId(key);
        expect(decodeSliceId(id)).toEqual(key);
        // Canonical: the id of the decoded key is the same id.
        expect(encodeSliceId(decodeSliceId(id))).toBe(id);
      }),
      { numRuns: 20_000 },
    );
  });

  it('never give two different keys one id', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(keyArb, {
          selector: key => JSON.stringify(key),
          minLength: 2,
          maxLength: 400,
          size: 'max',
        }),
        keys => {
          const ids = new Set(keys.map(encodeSliceId));
          expect(ids.size).toBe(keys.length);
        },
      ),
      { numRuns: 100 },
    );
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
