import { truncateCharacters } from './jsonBody';
import { formatDurationMs } from '../model/duration';
import {
  NumericValue,
  compareNumericValues,
  readNumericValue,
} from './numericValue';
import { parseCondition } from './parseCondition';
import { ConditionInputs, resolveOperand } from './resolveOperand';
import {
  ComparisonOperator,
  Condition,
  ConditionContext,
  ConditionEvaluation,
  ConditionOperand,
} from './types';
import { matchesWildcardPattern } from './wildcardPattern';

/** What a display shows for a value that does not resolve, as Gatus does. */
const INVALID = 'INVALID';
/** Gatus cuts a value compared with pat() to this many characters. */
const DISPLAY_LIMIT_NEXT_TO_PATTERN = 25;
/** We cut every other value too, so a large body never fills a run record. */
const DISPLAY_LIMIT = 100;
/** No number is longer; longer text is not worth reading as one. */
const LONGEST_NUMBER = 1000;

/**
 * Evaluates a condition against what a probe observed.
 *
 * `display` is the condition as written when it holds; when it fails, each
 * placeholder (and `len()` or `has()`) is followed by its resolved value in
 * parentheses, `INVALID` for one that does not resolve, as Gatus shows it:
 * `[STATUS] (500) == 200`. A string condition is parsed first, and throws
 * {@link ConditionParseError} if malformed.
 * @public
 */
export function evaluateCondition(
  condition: Condition | string,
  context: ConditionContext,
): ConditionEvaluation {
  const parsed =
    typeof condition === 'string' ? parseCondition(condition) : condition;
  return evaluateWithInputs(parsed, new ConditionInputs(context));
}

/**
 * {@link evaluateCondition} with observations already read, so conditions
 * of one run share one parsed body.
 * @internal
 */
export function evaluateWithInputs(
  condition: Condition,
  inputs: ConditionInputs,
): ConditionEvaluation {
  const { left, operator, right } = condition;
  const leftValue = valueOf(left, inputs);
  const rightValue = valueOf(right, inputs);
  const success = holds(left, leftValue, operator, right, rightValue);
  if (success) {
    return { success, display: condition.text };
  }
  const ordering = operator !== '==' && operator !== '!=';
  const display = [
    describe(left, leftValue, ordering, right.kind === 'pat'),
    operator,
    describe(right, rightValue, ordering, left.kind === 'pat'),
  ].join(' ');
  return { success, display };
}

function valueOf(
  operand: ConditionOperand,
  inputs: ConditionInputs,
): string | undefined {
  if (operand.kind === 'pat' || operand.kind === 'any') {
    return undefined;
  }
  return resolveOperand(operand, inputs);
}

function holds(
  left: ConditionOperand,
  leftValue: string | undefined,
  operator: ComparisonOperator,
  right: ConditionOperand,
  rightValue: string | undefined,
): boolean {
  switch (operator) {
    case '==':
      return matches(left, leftValue, right, rightValue);
    case '!=':
      return !matches(left, leftValue, right, rightValue);
    default: {
      const a = readNumber(leftValue);
      const b = readNumber(rightValue);
      if (a === undefined || b === undefined) {
        return false;
      }
      const order = compareNumericValues(a, b);
      switch (operator) {
        case '<':
          return order < 0;
        case '<=':
          return order <= 0;
        case '>':
          return order > 0;
        case '>=':
        default:
          return order >= 0;
      }
    }
  }
}

/** Equality, where one side may be pat() or any(); INVALID equals nothing. */
function matches(
  left: ConditionOperand,
  leftValue: string | undefined,
  right: ConditionOperand,
  rightValue: string | undefined,
): boolean {
  const leftMatches = left.kind === 'pat' || left.kind === 'any';
  const matcher = leftMatches ? left : right;
  const value = leftMatches ? rightValue : leftValue;
  if (value === undefined) {
    return false;
  }
  if (matcher.kind === 'pat') {
    return matchesWildcardPattern(matcher.pattern, value);
  }
  if (matcher.kind === 'any') {
    return matcher.options.some(option => valuesEqual(option, value));
  }
  return rightValue !== undefined && valuesEqual(value, rightValue);
}

/** Numbers and durations compare as numbers, anything else as text. */
function valuesEqual(a: string, b: string): boolean {
  if (a === b) {
    return true;
  }
  const x = readNumber(a);
  const y = readNumber(b);
  return x !== undefined && y !== undefined && compareNumericValues(x, y) === 0;
}

function readNumber(text: string | undefined): NumericValue | undefined {
  return text === undefined || text.length > LONGEST_NUMBER
    ? undefined
    : readNumericValue(text);
}

function describe(
  operand: ConditionOperand,
  value: string | undefined,
  ordering: boolean,
  nextToPattern: boolean,
): string {
  if (
    operand.kind !== 'placeholder' &&
    operand.kind !== 'len' &&
    operand.kind !== 'has'
  ) {
    return operand.text;
  }
  if (value === undefined) {
    return `${operand.text} (${INVALID})`;
  }
  const shown =
    ordering &&
    operand.kind === 'placeholder' &&
    operand.name === 'CERTIFICATE_EXPIRATION'
      ? formatDurationMs(Number(value))
      : value;
  const limit = nextToPattern ? DISPLAY_LIMIT_NEXT_TO_PATTERN : DISPLAY_LIMIT;
  return `${operand.text} (${truncateCharacters(shown, limit)})`;
}
