import fc from 'fast-check';
import {
  JsonNumberText,
  countCharacters,
  mayChangeAsDouble,
  jsonValueLength,
  jsonValueText,
  parseJsonKeepingNumbers,
  truncateCharacters,
  valueAtPath,
} from './jsonBody';

describe('parseJsonKeepingNumbers', () => {
  it('keeps the text of numbers a double would change, and plain numbers otherwise', () => {
    const parsed = parseJsonKeepingNumbers(
      '{"id": 98765432109876543211, "price": 2.50, "count": 3}',
    );
    expect(parsed).toEqual({
      ok: true,
      value: {
        id: new JsonNumberText('98765432109876543211'),
        price: new JsonNumberText('2.50'),
        count: 3,
      },
    });
  });

  it('parses without keeping text when no number would change', () => {
    expect(parseJsonKeepingNumbers('{"price": 2.5, "id": 12345}')).toEqual({
      ok: true,
      value: { price: 2.5, id: 12345 },
    });
  });

  it('says so when the text is not JSON', () => {
    expect(parseJsonKeepingNumbers('{"open":')).toEqual({ ok: false });
    expect(parseJsonKeepingNumbers('')).toEqual({ ok: false });
  });
});

describe('mayChangeAsDouble', () => {
  it.each([
    '12345678901234567',
    '1234567890.1234567',
    '1e5',
    '2E-3',
    '1.50',
    '3.0',
    '0.0000001',
  ])('flags %s', text => {
    expect(mayChangeAsDouble(text)).toBe(true);
  });

  it.each(['0', '-7', '123456789012345', '0.000001', '1.25', '-0.5', 'eu-0'])(
    'lets %s through',
    text => {
      expect(mayChangeAsDouble(text)).toBe(false);
    },
  );

  it('never lets through a JSON number that a double writes differently', () => {
    // Zeros half the time: runs of them are where doubles change text.
    const digits = (minLength: number, maxLength: number) =>
      fc
        .array(
          fc.oneof(
            fc.constant('0'),
            fc.integer({ min: 0, max: 9 }).map(String),
          ),
          { minLength, maxLength, size: 'max' },
        )
        .map(list => list.join(''));
    const numberText = fc
      .record({
        sign: fc.oneof(
          { weight: 2, arbitrary: fc.constant('') },
          { weight: 1, arbitrary: fc.constant('-') },
        ),
        whole: fc.oneof(
          { weight: 1, arbitrary: fc.constant('0') },
          {
            weight: 3,
            arbitrary: fc
              .tuple(fc.integer({ min: 1, max: 9 }), digits(0, 23))
              .map(([first, rest]) => `${first}${rest}`),
          },
        ),
        fraction: fc.oneof(
          fc.constant(''),
          digits(1, 24).map(fraction => `.${fraction}`),
        ),
        exponent: fc.oneof(
          { weight: 7, arbitrary: fc.constant('') },
          {
            weight: 1,
            arbitrary: fc
              .tuple(fc.boolean(), fc.integer({ min: 0, max: 29 }))
              .map(([minus, power]) => `e${minus ? '-' : ''}${power}`),
          },
        ),
      })
      .map(
        ({ sign, whole, fraction, exponent }) =>
          `${sign}${whole}${fraction}${exponent}`,
      );
    fc.assert(
      fc.property(numberText, text => {
        // -0 is written 0, which it equals anyway.
        const written = Object.is(JSON.parse(text), -0)
          ? '-0'
          : String(JSON.parse(text));
        const missed = !mayChangeAsDouble(text) && written !== text;
        expect({ written, missed }).toEqual({ written, missed: false });
      }),
      { numRuns: 50_000 },
    );
  });
});

describe('valueAtPath', () => {
  const root = { a: { list: [{ b: 'deep' }, null] }, own: 1 };

  it('walks keys and indexes', () => {
    expect(
      valueAtPath(root, [
        { key: 'a' },
        { key: 'list' },
        { index: 0 },
        { key: 'b' },
      ]),
    ).toBe('deep');
    expect(valueAtPath(root, [])).toBe(root);
  });

  it('gives undefined for missing keys, out-of-range indexes, null, and walks through leaves', () => {
    expect(valueAtPath(root, [{ key: 'nope' }])).toBeUndefined();
    expect(
      valueAtPath(root, [{ key: 'a' }, { key: 'list' }, { index: 2 }]),
    ).toBeUndefined();
    expect(
      valueAtPath(root, [{ key: 'a' }, { key: 'list' }, { index: 1 }]),
    ).toBeUndefined();
    expect(valueAtPath(root, [{ key: 'own' }, { key: 'x' }])).toBeUndefined();
    expect(valueAtPath(root, [{ key: 'a' }, { index: 0 }])).toBeUndefined();
  });

  it('reads own keys only, never what objects inherit', () => {
    expect(valueAtPath(root, [{ key: 'constructor' }])).toBeUndefined();
    expect(valueAtPath(root, [{ key: '__proto__' }])).toBeUndefined();
    expect(
      valueAtPath(root, [{ key: 'a' }, { key: 'list' }, { key: 'length' }]),
    ).toBeUndefined();
  });
});

describe('jsonValueText and jsonValueLength', () => {
  it('writes values as text: strings bare, numbers as written, the rest as compact JSON', () => {
    const parsed = parseJsonKeepingNumbers('{"n": [1.50, 7, "x", true]}');
    expect(parsed.ok && jsonValueText(parsed.value)).toBe(
      '{"n":[1.50,7,"x",true]}',
    );
    expect(jsonValueText('plain')).toBe('plain');
    expect(jsonValueText(false)).toBe('false');
    expect(jsonValueText(new JsonNumberText('1e+2'))).toBe('1e+2');
  });

  it('still shows something for values JSON cannot write', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(jsonValueText(cyclic)).toBe('[object Object]');
    expect(jsonValueText({ big: 1n })).toBe('[object Object]');
  });

  it('counts array elements and the characters of anything else', () => {
    expect(jsonValueLength([1, 2, 3])).toBe(3);
    expect(jsonValueLength({ k: 'v' })).toBe(9);
    expect(jsonValueLength(new JsonNumberText('1.50'))).toBe(4);
    expect(jsonValueLength('Zürich')).toBe(6);
  });
});

describe('countCharacters and truncateCharacters', () => {
  it('counts code points, a lone surrogate as one', () => {
    expect(countCharacters('')).toBe(0);
    expect(countCharacters('a😀b')).toBe(3);
    expect(countCharacters('\ud800x')).toBe(2);
    expect(countCharacters('x\udc00')).toBe(2);
  });

  it('keeps text within the limit and marks what it cuts', () => {
    expect(truncateCharacters('abc', 3)).toBe('abc');
    expect(truncateCharacters('abcd', 3)).toBe('abc...(truncated)');
    expect(truncateCharacters('😀😀😀😀', 3)).toBe('😀😀😀...(truncated)');
    expect(truncateCharacters('😀😀', 3)).toBe('😀😀');
  });
});
