import { ConditionParseError } from './ConditionParseError';
import { evaluateCondition } from './evaluateCondition';
import { parseCondition } from './parseCondition';
import { ConditionContext } from './types';
import { Random, randomSource } from '../__testUtils__/randomSource';

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

function randomText(random: Random): string {
  const length = random.int(12);
  let text = '';
  for (let i = 0; i < length; i++) {
    text +=
      random.next() < 0.85
        ? random.pick(FRAGMENTS)
        : String.fromCharCode(random.int(0x3000));
  }
  return text;
}

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

function randomContext(random: Random): ConditionContext {
  const maybe = <T>(value: T) => (random.next() < 0.7 ? value : undefined);
  return {
    status: maybe(random.pick([0, 200, 503, NaN, 2.5, -1])),
    body: maybe(random.pick<unknown>([...BODIES, { a: [1] }, [null], 7, true])),
    responseTimeMs: maybe(random.pick([0, 12.7, 1e12, Infinity])),
    ip: maybe(random.pick(['', '10.0.0.1', '::1'])),
    connected: maybe(random.next() < 0.5),
    certificateExpirationMs: maybe(random.pick([0, -1, 86_400_000])),
    dnsRcode: maybe(random.pick(['NOERROR', 'SERVFAIL'])),
    dnsAnswers: maybe(['10.0.0.1', '10.0.0.2'].slice(0, random.int(3))),
  };
}

const RUNS = 20_000;

describe('the condition language on random input', () => {
  it('never throws anything but ConditionParseError, pointing inside the text', () => {
    const random = randomSource(0xc0ffee);
    const surprises: string[] = [];
    let parsed = 0;
    for (let run = 0; run < RUNS; run++) {
      const text = randomText(random);
      const where = `run ${run}, ${JSON.stringify(text)}`;
      try {
        const condition = parseCondition(text);
        parsed++;
        const { success, display } = evaluateCondition(
          condition,
          randomContext(random),
        );
        if (typeof success !== 'boolean' || (success && display !== text)) {
          surprises.push(`${where}: evaluated to ${success}, ${display}`);
        }
      } catch (error) {
        if (!(error instanceof ConditionParseError)) {
          surprises.push(`${where}: threw ${error}`);
        } else if (
          error.condition !== text ||
          !(error.position >= 0 && error.position <= text.length)
        ) {
          surprises.push(`${where}: position ${error.position}`);
        }
      }
    }
    expect(surprises).toEqual([]);
    // The fragments make some random texts valid, so evaluation is exercised.
    expect(parsed).toBeGreaterThan(RUNS / 100);
  });

  it('parses every well-formed condition and evaluates it against any context', () => {
    const random = randomSource(42);
    const placeholder = () =>
      random.pick([
        '[STATUS]',
        '[RESPONSE_TIME]',
        '[CERTIFICATE_EXPIRATION]',
        '[BODY]',
        `[BODY]${random.pick([
          '.a',
          '.a.b[2].c',
          '[0]',
          '[1][0]',
          '.items',
          '.n',
        ])}`,
        `len([BODY]${random.pick(['', '.items', '[1]'])})`,
      ]);
    const number = () =>
      random.pick([
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
      ]);
    const surprises: string[] = [];
    for (let run = 0; run < 5_000; run++) {
      const operator = random.pick(['==', '!=', '<', '<=', '>', '>=']);
      const equality = operator === '==' || operator === '!=';
      const left = placeholder();
      const right = equality
        ? random.pick([
            number(),
            placeholder(),
            'UP',
            `pat(${random.pick(['*', 'a*', '*1*', '2??'])})`,
            `any(${number()}, UP)`,
            `has(${placeholder().replace(/^len\((.*)\)$/, '$1')})`,
          ])
        : random.pick([number(), placeholder()]);
      const text =
        random.next() < 0.5
          ? `${left} ${operator} ${right}`
          : `${right} ${operator} ${left}`;
      try {
        const { success, display } = evaluateCondition(
          parseCondition(text),
          randomContext(random),
        );
        const shown = success
          ? display === text
          : display.includes(` ${operator} `);
        if (!shown) {
          surprises.push(`${JSON.stringify(text)}: shown as ${display}`);
        }
      } catch (error) {
        surprises.push(`${JSON.stringify(text)}: threw ${error}`);
      }
    }
    expect(surprises).toEqual([]);
  });
});
