/**
 * The six comparison operators of a condition.
 * @public
 */
export type ComparisonOperator = '==' | '!=' | '<' | '<=' | '>' | '>=';

/**
 * The placeholders a condition may read, by their upper-case names.
 * @public
 */
export type PlaceholderName =
  | 'STATUS'
  | 'RESPONSE_TIME'
  | 'BODY'
  | 'IP'
  | 'CONNECTED'
  | 'CERTIFICATE_EXPIRATION'
  | 'DNS_RCODE';

/**
 * One step of a `[BODY]` path: a key (`.name`) or an array index (`[0]`).
 * @public
 */
export type BodyPathStep = { key: string } | { index: number };

/**
 * Where an operand sits in the condition: its text as written (trimmed) and
 * the 0-based column where it starts.
 * @public
 */
export interface OperandSource {
  text: string;
  position: number;
}

/**
 * A placeholder such as `[STATUS]` or `[BODY].items[0].name`.
 * `path` is empty for every placeholder but `[BODY]`.
 * @public
 */
export interface PlaceholderOperand extends OperandSource {
  kind: 'placeholder';
  name: PlaceholderName;
  path: BodyPathStep[];
}

/**
 * `len(placeholder)`: the length of the resolved value.
 * @public
 */
export interface LengthOperand extends OperandSource {
  kind: 'len';
  of: PlaceholderOperand;
}

/**
 * `has(placeholder)`: whether the placeholder resolves to something.
 * @public
 */
export interface HasOperand extends OperandSource {
  kind: 'has';
  of: PlaceholderOperand;
}

/**
 * `pat(pattern)`: `*` stands for any run of characters, `?` for one.
 * @public
 */
export interface PatternOperand extends OperandSource {
  kind: 'pat';
  pattern: string;
}

/**
 * `any(a, b, c)`: equal to at least one of the options.
 * @public
 */
export interface AnyOperand extends OperandSource {
  kind: 'any';
  options: string[];
}

/**
 * A value written in the condition, such as `200`, `48h` or `UP`.
 * @public
 */
export interface LiteralOperand extends OperandSource {
  kind: 'literal';
}

/**
 * One side of a condition.
 * @public
 */
export type ConditionOperand =
  | PlaceholderOperand
  | LengthOperand
  | HasOperand
  | PatternOperand
  | AnyOperand
  | LiteralOperand;

/**
 * A parsed condition: two operands and the operator between them. Plain
 * data, so it can be stored or sent as JSON.
 * @public
 */
export interface Condition {
  /** The condition as written. */
  text: string;
  left: ConditionOperand;
  operator: ComparisonOperator;
  right: ConditionOperand;
}

/**
 * What a probe observed, for conditions to judge. A field the probe did not
 * fill resolves to `INVALID`.
 * @public
 */
export interface ConditionContext {
  /** HTTP status code. */
  status?: number;
  /** Response body: text (JSON paths parse it), bytes, or an already parsed value. */
  body?: string | unknown;
  responseTimeMs?: number;
  /** The address the probe connected to. */
  ip?: string;
  connected?: boolean;
  /** Time left before the certificate expires; negative once it has. */
  certificateExpirationMs?: number;
  /** DNS response code, such as `NOERROR` or `NXDOMAIN`. */
  dnsRcode?: string;
  /** DNS answers; `[BODY]` reads them, one a line, when there is no body. */
  dnsAnswers?: string[];
}

/**
 * The result of one condition: whether it held, and how to show it
 * (as written when it held, with the resolved values when it did not).
 * @public
 */
export interface ConditionEvaluation {
  success: boolean;
  display: string;
}

/**
 * How bad it is when a condition fails: `unhealthy` (the default) fails
 * the run, `degraded` only degrades it.
 * @public
 */
export type ConditionSeverity = 'unhealthy' | 'degraded';

/**
 * A condition as configured on a check: its text, or its text and severity.
 * @public
 */
export type ConditionSpec =
  | string
  | { condition: string; severity?: ConditionSeverity };

/**
 * One condition's result within a run.
 * @public
 */
export interface JudgedCondition extends ConditionEvaluation {
  condition: string;
  severity: ConditionSeverity;
}

/**
 * The verdict on a run's conditions: `pass` when all held, `degraded` when
 * only degraded-severity ones failed, `fail` otherwise.
 * @public
 */
export interface ConditionJudgement {
  outcome: 'pass' | 'degraded' | 'fail';
  results: JudgedCondition[];
}

/**
 * Why a configured condition cannot be used: which one (0-based index and
 * text), where in its text (0-based column) and why.
 * @public
 */
export interface ConditionProblem {
  index: number;
  condition: string;
  position: number;
  reason: string;
  /** All of the above in one sentence, for error messages. */
  message: string;
}
