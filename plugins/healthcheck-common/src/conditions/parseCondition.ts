import { ConditionParseError } from './ConditionParseError';
import { readNumericValue } from './numericValue';
import {
  BodyPathStep,
  ComparisonOperator,
  Condition,
  ConditionOperand,
  PlaceholderName,
  PlaceholderOperand,
} from './types';

// Gatus looks for `==` first, then `!=`, `<=`, `>=`, `>`, `<`; the first kind
// found is the operator, and any other operator text belongs to a value.
const OPERATORS_BY_PRIORITY: readonly ComparisonOperator[] = [
  '==',
  '!=',
  '<=',
  '>=',
  '>',
  '<',
];
const OPERATOR_CHARACTERS = '=!<>';
const ORDERING_OPERATORS: readonly ComparisonOperator[] = [
  '<',
  '<=',
  '>',
  '>=',
];

const PLACEHOLDER_NAMES: readonly PlaceholderName[] = [
  'STATUS',
  'RESPONSE_TIME',
  'BODY',
  'IP',
  'CONNECTED',
  'CERTIFICATE_EXPIRATION',
  'DNS_RCODE',
];
// Placeholders that never hold a number, so `<` and friends make no sense.
const NON_NUMERIC_PLACEHOLDERS: readonly PlaceholderName[] = [
  'IP',
  'CONNECTED',
  'DNS_RCODE',
];
// Gatus placeholders we know but do not offer.
const GATUS_ONLY_PLACEHOLDERS = ['DOMAIN_EXPIRATION', 'CONTEXT'];
const FUNCTION_NAMES = ['len', 'has', 'pat', 'any'] as const;

/**
 * The longest condition text, in characters. Conditions come from every
 * team's catalog files; real ones are a few dozen characters.
 * @public
 */
export const MAX_CONDITION_LENGTH = 1024;

/**
 * How deep brackets and parentheses may nest in a condition. Real conditions
 * nest two or three deep (`len([BODY].items)`); the bound keeps the parser's
 * recursion and its rescans of nested text small whatever a file holds.
 * @public
 */
export const MAX_CONDITION_NESTING = 16;
type FunctionName = (typeof FUNCTION_NAMES)[number];

const PLACEHOLDER_START = /^\[([^[\]()]*)\]/;
const FUNCTION_START = /^([A-Za-z_][A-Za-z0-9_]*)\(/;
const WHITESPACE = /\s/;

const isWhitespace = (character: string | undefined) =>
  character !== undefined && WHITESPACE.test(character);

const quote = (text: string) => JSON.stringify(text);

interface OperatorToken {
  token: string;
  start: number;
  end: number;
  spaced: boolean;
}

class ConditionParser {
  readonly #text: string;

  constructor(text: unknown) {
    if (typeof text !== 'string') {
      throw new ConditionParseError(
        String(text),
        0,
        `a condition is text, not ${text === null ? 'null' : typeof text}`,
      );
    }
    this.#text = text;
  }

  parse(): Condition {
    const text = this.#text;
    if (text.trim() === '') {
      this.#fail(
        0,
        'the condition is empty; write one such as [STATUS] == 200',
      );
    }
    if (text.length > MAX_CONDITION_LENGTH) {
      this.#fail(
        MAX_CONDITION_LENGTH,
        `the condition is ${text.length} characters long; at most ${MAX_CONDITION_LENGTH} are allowed`,
      );
    }
    this.#checkNesting();
    const { operator, start, end } = this.#findOperator();
    const left = this.#parseSide(0, start, operator, 'before', start);
    const right = this.#parseSide(
      end,
      text.length,
      operator,
      'after',
      text.trimEnd().length,
    );
    this.#checkComparison(left, operator, right);
    return { text, left, operator, right };
  }

  #fail(position: number, reason: string): never {
    throw new ConditionParseError(this.#text, position, reason);
  }

  /** Brackets and parentheses must pair up and nest, everywhere. */
  #checkNesting(): void {
    const open: { character: string; position: number }[] = [];
    const text = this.#text;
    for (let i = 0; i < text.length; i++) {
      const character = text[i];
      if (character === '[' || character === '(') {
        open.push({ character, position: i });
        if (open.length > MAX_CONDITION_NESTING) {
          this.#fail(
            i,
            `brackets and parentheses nest more than ${MAX_CONDITION_NESTING} deep here`,
          );
        }
      } else if (character === ']' || character === ')') {
        const expected = character === ']' ? '[' : '(';
        const last = open.pop();
        if (!last) {
          this.#fail(i, `${quote(character)} closes nothing`);
        }
        if (last.character !== expected) {
          this.#fail(
            i,
            `${quote(character)} closes the ${quote(
              last.character,
            )} opened at position ${last.position}`,
          );
        }
      }
    }
    const unclosed = open.pop();
    if (unclosed) {
      this.#fail(
        unclosed.position,
        `${quote(unclosed.character)} is never closed`,
      );
    }
  }

  /** Runs of operator characters outside brackets and parentheses. */
  #operatorTokens(): OperatorToken[] {
    const text = this.#text;
    const tokens: OperatorToken[] = [];
    let depth = 0;
    for (let i = 0; i < text.length; i++) {
      const character = text[i];
      if (character === '[' || character === '(') {
        depth++;
      } else if (character === ']' || character === ')') {
        depth--;
      } else if (depth === 0 && OPERATOR_CHARACTERS.includes(character)) {
        let end = i + 1;
        while (end < text.length && OPERATOR_CHARACTERS.includes(text[end])) {
          end++;
        }
        tokens.push({
          token: text.slice(i, end),
          start: i,
          end,
          spaced:
            (i === 0 || isWhitespace(text[i - 1])) &&
            (end === text.length || isWhitespace(text[end])),
        });
        i = end - 1;
      }
    }
    return tokens;
  }

  #findOperator(): OperatorToken & { operator: ComparisonOperator } {
    const tokens = this.#operatorTokens();
    for (const operator of OPERATORS_BY_PRIORITY) {
      const found = tokens.filter(t => t.spaced && t.token === operator);
      if (found.length > 1) {
        this.#fail(
          found[1].start,
          `a second ${operator}: a condition makes one comparison`,
        );
      }
      if (found.length === 1) {
        return { ...found[0], operator };
      }
    }
    const first = tokens[0];
    if (first) {
      if ((OPERATORS_BY_PRIORITY as readonly string[]).includes(first.token)) {
        this.#fail(
          first.start,
          `put a space on each side of ${first.token}, as in [STATUS] ${first.token} 200`,
        );
      }
      this.#fail(
        first.start,
        `unknown operator ${quote(first.token)}; use ==, !=, <, <=, > or >=`,
      );
    }
    return this.#fail(...this.#whereTheOperatorIsMissing());
  }

  #whereTheOperatorIsMissing(): [number, string] {
    const text = this.#text;
    let depth = 0;
    let seenValue = false;
    for (let i = 0; i < text.length; i++) {
      const character = text[i];
      const topLevel = depth === 0;
      if (character === '[' || character === '(') depth++;
      if (character === ']' || character === ')') depth--;
      if (isWhitespace(character)) continue;
      if (seenValue && topLevel && isWhitespace(text[i - 1])) {
        return [
          i,
          `missing operator before ${quote(text.slice(i).trimEnd())};` +
            ' use ==, !=, <, <=, > or >=',
        ];
      }
      seenValue = true;
    }
    return [
      text.trimEnd().length,
      'missing operator and value, as in [STATUS] == 200',
    ];
  }

  #parseSide(
    from: number,
    to: number,
    operator: ComparisonOperator,
    side: 'before' | 'after',
    missingAt: number,
  ): ConditionOperand {
    const raw = this.#text.slice(from, to);
    const start = from + (raw.length - raw.trimStart().length);
    const end = to - (raw.length - raw.trimEnd().length);
    if (start >= end) {
      this.#fail(missingAt, `nothing to compare ${side} ${operator}`);
    }
    return this.#parseOperand(start, end);
  }

  #parseOperand(start: number, end: number): ConditionOperand {
    const source = this.#text.slice(start, end);
    const placeholder = PLACEHOLDER_START.exec(source);
    if (placeholder && /^[A-Za-z_]+$/.test(placeholder[1])) {
      return this.#parsePlaceholder(start, end, placeholder[0], placeholder[1]);
    }
    const call = FUNCTION_START.exec(source);
    if (call) {
      return this.#parseFunction(start, end, call[1]);
    }
    return { kind: 'literal', text: source, position: start };
  }

  #parsePlaceholder(
    start: number,
    end: number,
    written: string,
    writtenName: string,
  ): PlaceholderOperand {
    const name = writtenName.toUpperCase();
    if (GATUS_ONLY_PLACEHOLDERS.includes(name)) {
      this.#fail(
        start,
        `${written} is a Gatus placeholder that Vigil does not offer`,
      );
    }
    if (!(PLACEHOLDER_NAMES as readonly string[]).includes(name)) {
      this.#fail(
        start,
        `unknown placeholder ${written}; the placeholders are ${PLACEHOLDER_NAMES.map(
          n => `[${n}]`,
        ).join(', ')}`,
      );
    }
    const pathStart = start + written.length;
    if (name !== 'BODY' && pathStart < end) {
      this.#failOnTrailingText(
        start,
        pathStart,
        end,
        isWhitespace(this.#text[pathStart])
          ? ''
          : ' (only [BODY] takes a path)',
      );
    }
    return {
      kind: 'placeholder',
      text: this.#text.slice(start, end),
      position: start,
      name: name as PlaceholderName,
      path: name === 'BODY' ? this.#parseBodyPath(start, pathStart, end) : [],
    };
  }

  #parseBodyPath(
    placeholderStart: number,
    start: number,
    end: number,
  ): BodyPathStep[] {
    const text = this.#text;
    const steps: BodyPathStep[] = [];
    let i = start;
    while (i < end) {
      if (text[i] === '.') {
        let keyEnd = i + 1;
        while (
          keyEnd < end &&
          !'.[]()'.includes(text[keyEnd]) &&
          !isWhitespace(text[keyEnd])
        ) {
          keyEnd++;
        }
        if (keyEnd === i + 1) {
          this.#fail(i, 'expected a key after "." in the [BODY] path');
        }
        steps.push({ key: text.slice(i + 1, keyEnd) });
        i = keyEnd;
      } else if (text[i] === '[') {
        const close = text.indexOf(']', i);
        const index = text.slice(i + 1, close);
        if (!/^\d+$/.test(index) || !Number.isSafeInteger(Number(index))) {
          this.#fail(
            i,
            index === '*'
              ? 'the [*] wildcard is not supported; use an index such as [0], or len()'
              : `an array index is a whole number from 0, as in [0], not [${index}]`,
          );
        }
        steps.push({ index: Number(index) });
        i = close + 1;
      } else {
        this.#failOnTrailingText(placeholderStart, i, end, '');
      }
    }
    return steps;
  }

  #parseFunction(start: number, end: number, name: string): ConditionOperand {
    if (!(FUNCTION_NAMES as readonly string[]).includes(name)) {
      this.#fail(
        start,
        `unknown function ${name}(); the functions are len(), has(), pat() and any()`,
      );
    }
    const open = start + name.length;
    const close = this.#matchingParenthesis(open);
    if (close !== end - 1) {
      this.#failOnTrailingText(start, close + 1, end, '');
    }
    const text = this.#text.slice(start, end);
    const inside = this.#text.slice(open + 1, close);
    switch (name as FunctionName) {
      case 'pat':
        return { kind: 'pat', text, position: start, pattern: inside };
      case 'any':
        return {
          kind: 'any',
          text,
          position: start,
          options: this.#parseAnyOptions(open + 1, close),
        };
      default: {
        const kind = name as 'len' | 'has';
        const argumentStart =
          open + 1 + (inside.length - inside.trimStart().length);
        const argumentEnd = close - (inside.length - inside.trimEnd().length);
        if (argumentStart >= argumentEnd) {
          this.#fail(
            open + 1,
            `${kind}() needs a placeholder, as in ${kind}([BODY].items)`,
          );
        }
        const argument = this.#parseOperand(argumentStart, argumentEnd);
        if (argument.kind !== 'placeholder') {
          this.#fail(
            argumentStart,
            `${kind}() takes a placeholder such as [BODY].items, not ${quote(
              argument.text,
            )}`,
          );
        }
        return { kind, text, position: start, of: argument };
      }
    }
  }

  /** Text after a complete operand, such as a second comparison. */
  #failOnTrailingText(
    operandStart: number,
    trailingStart: number,
    end: number,
    hint: string,
  ): never {
    const trailing = this.#text.slice(trailingStart, end);
    const position =
      trailingStart + (trailing.length - trailing.trimStart().length);
    return this.#fail(
      position,
      `unexpected ${quote(trailing.trim())} after ${this.#text.slice(
        operandStart,
        trailingStart,
      )}${hint}`,
    );
  }

  #matchingParenthesis(open: number): number {
    let depth = 0;
    for (let i = open; i < this.#text.length; i++) {
      const character = this.#text[i];
      if (character === '(' || character === '[') depth++;
      if (character === ')' || character === ']') depth--;
      if (depth === 0) return i;
    }
    // Unreachable: nesting was checked before.
    return this.#fail(open, '"(" is never closed');
  }

  #parseAnyOptions(start: number, end: number): string[] {
    if (this.#text.slice(start, end).trim() === '') {
      this.#fail(start, 'any() needs at least one value, as in any(200, 204)');
    }
    const options: string[] = [];
    let optionStart = start;
    for (const piece of this.#text.slice(start, end).split(',')) {
      const option = piece.trim();
      if (option === '') {
        this.#fail(optionStart, 'an empty value in any()');
      }
      options.push(option);
      optionStart += piece.length + 1;
    }
    return options;
  }

  #checkComparison(
    left: ConditionOperand,
    operator: ComparisonOperator,
    right: ConditionOperand,
  ): void {
    const isMatcher = (operand: ConditionOperand) =>
      operand.kind === 'pat' || operand.kind === 'any';
    if (isMatcher(left) && isMatcher(right)) {
      this.#fail(
        right.position,
        'only one side of a comparison can be pat() or any()',
      );
    }
    if (!ORDERING_OPERATORS.includes(operator)) {
      return;
    }
    for (const operand of [left, right]) {
      if (isMatcher(operand)) {
        this.#fail(
          operand.position,
          `${operand.kind}() works with == and != only, not ${operator}`,
        );
      }
      if (
        operand.kind === 'literal' &&
        readNumericValue(operand.text) === undefined
      ) {
        this.#fail(
          operand.position,
          `${quote(operand.text)} is not a number or a duration` +
            ` (such as 200, 0x1F, 2.5 or 500ms), so ${operator} cannot compare it`,
        );
      }
      if (
        operand.kind === 'has' ||
        (operand.kind === 'placeholder' &&
          NON_NUMERIC_PLACEHOLDERS.includes(operand.name))
      ) {
        this.#fail(
          operand.position,
          `${operand.text} is never a number, so ${operator} cannot compare it`,
        );
      }
    }
  }
}

/**
 * Parses a Gatus-style condition such as `[STATUS] == 200`,
 * `[BODY].items[0].state == pat(ok*)` or `[CERTIFICATE_EXPIRATION] > 48h`.
 *
 * Throws {@link ConditionParseError} for anything that cannot be evaluated:
 * unbalanced brackets or parentheses, an unknown placeholder or function, a
 * missing operator or value, or a number or duration that does not parse
 * where `<`, `<=`, `>` or `>=` needs one.
 * @public
 */
export function parseCondition(text: string): Condition {
  return new ConditionParser(text).parse();
}
