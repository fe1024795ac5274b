import { compareNumericValues, readNumericValue } from './numericValue';

describe('readNumericValue', () => {
  it.each`
    text                      | value
    ${'0'}                    | ${0n}
    ${'404'}                  | ${404n}
    ${'-7'}                   | ${-7n}
    ${'+7'}                   | ${7n}
    ${'0x1F'}                 | ${31n}
    ${'0XfF'}                 | ${255n}
    ${'-0x10'}                | ${-16n}
    ${'0o17'}                 | ${15n}
    ${'0b101'}                | ${5n}
    ${'1_000_000'}            | ${1000000n}
    ${'0x_FF_FF'}             | ${65535n}
    ${'017'}                  | ${17n}
    ${'98765432109876543210'} | ${98765432109876543210n}
    ${'2.5'}                  | ${2.5}
    ${'-0.25'}                | ${-0.25}
    ${'.5'}                   | ${0.5}
    ${'3.'}                   | ${3}
    ${'1e3'}                  | ${1000}
    ${'6.02E-2'}              | ${0.0602}
  `('reads the number $text', ({ text, value }) => {
    expect(readNumericValue(text)).toBe(value);
  });

  it.each`
    text         | ms
    ${'250ms'}   | ${250}
    ${'3s'}      | ${3000}
    ${'1.5s'}    | ${1500}
    ${'.5s'}     | ${500}
    ${'2m'}      | ${120_000}
    ${'72h'}     | ${259_200_000}
    ${'1h30m'}   | ${5_400_000}
    ${'2h0m10s'} | ${7_210_000}
    ${'-1h'}     | ${-3_600_000}
    ${'1500us'}  | ${1.5}
    ${'1500µs'}  | ${1.5}
    ${'2000ns'}  | ${0.002}
  `('reads the duration $text as $ms ms', ({ text, ms }) => {
    expect(readNumericValue(text)).toBeCloseTo(ms, 9);
  });

  it.each([
    '',
    ' 5',
    '5 ',
    'potato',
    '0x',
    '0xG1',
    '0b102',
    '1__0',
    '_1',
    '1_',
    '1.2.3',
    '10.0.0.1',
    '5 s',
    '5sec',
    '1H',
    '1d',
    'h',
    'Infinity',
    'NaN',
    'true',
    '1e',
  ])('does not read %j as a number', text => {
    expect(readNumericValue(text)).toBeUndefined();
  });
});

describe('compareNumericValues', () => {
  it('orders bigints and doubles against each other exactly', () => {
    expect(compareNumericValues(5n, 5.5)).toBe(-1);
    expect(compareNumericValues(6n, 5.5)).toBe(1);
    expect(compareNumericValues(5n, 5)).toBe(0);
    expect(compareNumericValues(2.5, 2.5)).toBe(0);
  });

  it('tells apart integers that doubles would round together', () => {
    expect(compareNumericValues(9007199254740993n, 9007199254740992n)).toBe(1);
  });
});
