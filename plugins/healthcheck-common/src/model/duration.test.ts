import fc from 'fast-check';
import {
  DurationParseError,
  formatDuration,
  formatDurationMs,
  parseDuration,
  readGoDuration,
} from './duration';

/** parseDuration's milliseconds, or undefined where it refuses the text. */
function strictly(text: string): number | undefined {
  try {
    return parseDuration(text);
  } catch {
    return undefined;
  }
}

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['10s', 10_000],
    ['1m', 60_000],
    ['2h', 7_200_000],
    ['1h30m', 5_400_000],
    ['1m30s250ms', 90_250],
    ['1.5s', 1_500],
    ['0.1h', 360_000],
    ['0s', 0],
    ['007s', 7_000],
  ])('reads %s as %i ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ['', 'it is empty (use ms, s, m or h, as in 500ms, 10s, 1m or 1h30m)'],
    ['10', '"10" at position 0 has no unit'],
    ['1m30', '"30" at position 2 has no unit'],
    ['10x', 'unknown unit "x" at position 2'],
    ['10sec', 'unknown unit "sec" at position 2'],
    ['1d', 'unknown unit "d" at position 1'],
    ['100us', 'unknown unit "us" at position 3'],
    ['-5s', 'expected a number at position 0, found "-"'],
    [' 5s', 'expected a number at position 0, found " "'],
    ['5s ', 'expected a number at position 2, found " "'],
    ['ten seconds', 'expected a number at position 0, found "t"'],
    ['1.0005s', '"1.0005s" is not a whole number of milliseconds'],
    ['1.s', '"1.s" at position 0 has no digits after its point'],
    ['.5s', 'expected a number at position 0, found "."'],
    ['10constructor', 'unknown unit "constructor" at position 2'],
    ['9999999999999h', 'it is too long to be an interval'],
  ])('refuses %j: %s', (text, reason) => {
    expect(() => parseDuration(text)).toThrow(DurationParseError);
    expect(() => parseDuration(text)).toThrow(reason);
  });

  it('names the text in the message and keeps the reason apart', () => {
    let caught: unknown;
    try {
      parseDuration('10x');
    } catch (error) {
      caught = error;
    }
    expect(caught).toMatchObject({
      message:
        'Invalid duration "10x": unknown unit "x" at position 2 (use ms, s, m or h, as in 500ms, 10s, 1m or 1h30m)',
      duration: '10x',
      reason:
        'unknown unit "x" at position 2 (use ms, s, m or h, as in 500ms, 10s, 1m or 1h30m)',
    });
  });

  it('refuses a value that is not text, as YAML may give one', () => {
    expect(() => parseDuration(10 as unknown as string)).toThrow(
      'a duration is a text, not a number',
    );
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0s'],
    [500, '500ms'],
    [5_000, '5s'],
    [90_000, '1m30s'],
    [7_200_000, '2h'],
    [3_601_250, '1h1s250ms'],
  ])('writes %i ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it('writes what parseDuration reads back', () => {
    for (let ms = 0; ms < 4_000_000; ms += 7_919) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});

describe('readGoDuration', () => {
  it.each([
    ['500ms', 500],
    ['1h30m', 5_400_000],
    ['-1.5s', -1_500],
    ['+1m', 60_000],
    ['1.s', 1_000],
    ['.5s', 500],
    ['250us', 0.25],
    ['1µs', 0.001],
    ['100ns', 0.0001],
  ])('reads %s as %d ms, as Gatus does', (text, ms) => {
    expect(readGoDuration(text)).toBeCloseTo(ms, 12);
  });

  it.each([
    '',
    '-',
    '1',
    '.s',
    '1msx',
    '5s ',
    ' 5s',
    '--5s',
    '1d',
    '1constructor',
  ])('reads %j as no duration', text => {
    expect(readGoDuration(text)).toBeUndefined();
  });

  it('agrees with parseDuration on every duration that parseDuration reads', () => {
    const component = fc
      .record({
        integer: fc.integer({ min: 0, max: 9_999 }),
        fraction: fc.option(fc.integer({ min: 0, max: 999 }).map(String)),
        unit: fc.constantFrom('ms', 's', 'm', 'h'),
      })
      .map(
        ({ integer, fraction, unit }) =>
          `${integer}${fraction === null ? '' : `.${fraction}`}${unit}`,
      );
    fc.assert(
      fc.property(
        fc.array(component, { minLength: 1, maxLength: 4 }),
        components => {
          const text = components.join('');
          const strict = strictly(text);
          fc.pre(strict !== undefined);
          // Gatus reads in floating point: the same up to its rounding.
          const error = Math.abs(readGoDuration(text)! - strict!);
          expect(error).toBeLessThanOrEqual(strict! * 1e-12);
        },
      ),
    );
  });
});

describe('formatDurationMs', () => {
  it.each`
    ms               | text
    ${0}             | ${'0s'}
    ${999}           | ${'0s'}
    ${45_000}        | ${'45s'}
    ${40_000}        | ${'40s'}
    ${130_000}       | ${'2m10s'}
    ${120_000}       | ${'2m'}
    ${3_600_000}     | ${'1h'}
    ${5_400_000}     | ${'1h30m'}
    ${3_615_000}     | ${'1h0m15s'}
    ${1_209_600_000} | ${'336h'}
    ${-86_400_000}   | ${'-24h'}
    ${172_800_999.9} | ${'48h'}
  `('shows $ms ms as $text', ({ ms, text }) => {
    expect(formatDurationMs(ms)).toBe(text);
  });
});
