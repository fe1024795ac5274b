import fc from 'fast-check';
import { ConditionParseError } from './ConditionParseError';
import { evaluateCondition } from './evaluateCondition';
import { parseCondition } from './parseCondition';
import { ConditionContext } from './types';

// Pieces of the language and of things that break it, glued at random.
const FRAGMENTS = [
  '[',
  ']',
  '(',
  ')',
  '.',
  ',',
  ' ',
  ' ',
  ' ',
  '\t',
  '\n',
  '*',
  '?',
  '_',
  '-',
  '=',
  '!',
  '<',
  '>',
  '==',
  ' == ',
  ' != ',
  ' < ',
  ' <= ',
  ' > ',
  ' >= ',
  '=>',
  '[STATUS]',
  '[BODY]',
  '[body]',
  '[IP]',
  '[CONNECTED]',
  '[DNS_RCODE]',
  '[RESPONSE_TIME]',
  '[CERTIFICATE_EXPIRATION]',
  '[DOMAIN_EXPIRATION]',
  '[X]',
  '[0]',
  '[12]',
  '[-1]',
  '[*]',
  '.a',
  '.items',
  'len(',
  'has(',
  'pat(',
  'any(',
  'LEN(',
  'foo(',
  '0',
  '7',
  '200',
  '0x',
  '0x1F',
  '0o7',
  '0b1',
  '1_0',
  '1.5',
  '1e3',
  'ms',
  's',
  'h',
  '48h',
  'true',
  'false',
  'INVALID',
  '"',
  "'",
  '\\',
  'é',
  '😀',
  '\ud800',
  '\udc00',
  '\u0000',
  '\u00a0',
  '\u2028',
];

/** Fragments of the language, now and then any character of the BMP's first part. */
const textArb = fc
  .array(
    fc.oneof(
      { weight: 85, arbitrary: fc.constantFrom(...FRAGMENTS) },
      {
        weight: 15,
        arbitrary: fc
          .integer({ min: 0, max: 0x2fff })
          .map(code => String.fromCharCode(code)),
      },
    ),
    { maxLength: 11 },
  )
  .map(parts => parts.join(''));

const BODIES = [
  '',
  'plain',
  '{"a":{"b":[1,2,{"c":"x"}]},"items":[],"n":12.50}',
  '[1,[2,[3]],{"a":null}]',
  '{"a":',
  'null',
  '1e999',
  '"quoted"',
  '[]',
  `{"big":${'9'.repeat(40)}}`,
];

/** Each field missing about a third of the time. */
const maybe = <T>(arbitrary: fc.Arbitrary<T>) =>
  fc.option(arbitrary, { nil: undefined, freq: 3 });

const contextArb: fc.Arbitrary<ConditionContext> = fc.record({
  status: maybe(fc.constantFrom(0, 200, 503, NaN, 2.5, -1)),
  body: maybe(fc.constantFrom<unknown>(...BODIES, { a: [1] }, [null], 7, true)),
  responseTimeMs: maybe(fc.constantFrom(0, 12.7, 1e12, Infinity)),
  ip: maybe(fc.constantFrom('', '10.0.0.1', '::1')),
  connected: maybe(fc.boolean()),
  certificateExpirationMs: maybe(fc.constantFrom(0, -1, 86_400_000)),
  dnsRcode: maybe(fc.constantFrom('NOERROR', 'SERVFAIL')),
  dnsAnswers: maybe(fc.subarray(['10.0.0.1', '10.0.0.2'])),
});

const placeholderArb = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '[STATUS]',
      '[RESPONSE_TIME]',
      '[CERTIFICATE_EXPIRATION]',
      '[BODY]',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('.a', '.a.b[2].c', '[0]', '[1][0]', '.items', '.n')
      .map(path => `[BODY]${path}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('', '.items', '[1]')
      .map(path => `len([BODY]${path})`),
  },
);

const numberArb = fc.constantFrom(
  '0',
  '-3',
  '200',
  '0x1F',
  '0o17',
  '0b101',
  '1_000',
  '2.5',
  '1e3',
  '500ms',
  '1h30m',
  '48h',
);

/** What `==` and `!=` may compare a placeholder with. */
const equalsOperandArb = fc.oneof(
  numberArb,
  placeholderArb,
  fc.constant('UP'),
  fc.constantFrom('*', 'a*', '*1*', '2??').map(pattern => `pat(${pattern})`),
  numberArb.map(number => `any(${number}, UP)`),
  placeholderArb.map(
    placeholder => `has(${placeholder.replace(/^len\((.*)\)$/, '$1')})`,
  ),
);

/** A comparison the language accepts: a placeholder on one side. */
const wellFormedArb = fc
  .record({
    operator: fc.constantFrom('==', '!=', '<', '<=', '>', '>='),
    placeholder: placeholderArb,
    equalsOperand: equalsOperandArb,
    orderOperand: fc.oneof(numberArb, placeholderArb),
    placeholderFirst: fc.boolean(),
  })
  .map(parts => {
    const equality = parts.operator === '==' || parts.operator === '!=';
    const other = equality ? parts.equalsOperand : parts.orderOperand;
    const [left, right] = parts.placeholderFirst
      ? [parts.placeholder, other]
      : [other, parts.placeholder];
    return {
      operator: parts.operator,
      text: `${left} ${parts.operator} ${right}`,
    };
  });

const RUNS = 20_000;

/**
 * What is wrong with how `text` parses and evaluates, if anything; and
 * whether it parsed.
 */
function surpriseOf(
  text: string,
  context: ConditionContext,
): { parsed: boolean; surprise?: string } {
  let condition;
  try {
    condition = parseCondition(text);
  } catch (error) {
    if (!(error instanceof ConditionParseError)) {
      return { parsed: false, surprise: `threw ${error}` };
    }
    const inside = error.position >= 0 && error.position <= text.length;
    return error.condition === text && inside
      ? { parsed: false }
      : { parsed: false, surprise: `position ${error.position}` };
  }
  const { success, display } = evaluateCondition(condition, context);
  return typeof success !== 'boolean' || (success && display !== text)
    ? { parsed: true, surprise: `evaluated to ${success}, ${display}` }
    : { parsed: true };
}

describe('the condition language on random input', () => {
  it('never throws anything but ConditionParseError, pointing inside the text', () => {
    let parsed = 0;
    fc.assert(
      fc.property(textArb, contextArb, (text, context) => {
        const outcome = surpriseOf(text, context);
        parsed += outcome.parsed ? 1 : 0;
        expect(outcome.surprise).toBeUndefined();
      }),
      { numRuns: RUNS },
    );
    // The fragments make some random texts valid, so evaluation is exercised.
    expect(parsed).toBeGreaterThan(RUNS / 100);
  });

  it('parses every well-formed condition and evaluates it against any context', () => {
    fc.assert(
      fc.property(wellFormedArb, contextArb, ({ operator, text }, context) => {
        const { success, display } = evaluateCondition(
          parseCondition(text),
          context,
        );
        // Shown whole when it holds; around its operator when it does not.
        const shown = success
          ? display === text
          : display.includes(` ${operator} `);
        expect({ display, shown }).toEqual({ display, shown: true });
      }),
      { numRuns: 5_000 },
    );
  });
});
