import {
  DurationParseError,
  formatDuration,
  formatDurationMs,
  parseDuration,
} from './duration';

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
