import {
  JsonParseResult,
  countCharacters,
  jsonValueLength,
  jsonValueText,
  parseJsonKeepingNumbers,
  valueAtPath,
} from './jsonBody';
import {
  ConditionContext,
  HasOperand,
  LengthOperand,
  LiteralOperand,
  PlaceholderOperand,
} from './types';

/**
 * A probe's observations, read once: the body is decoded and parsed at most
 * once however many conditions look at it.
 * @internal
 */
export class ConditionInputs {
  readonly context: ConditionContext;
  #bodyText?: { text: string | undefined };
  #bodyJson?: JsonParseResult;

  constructor(context: ConditionContext) {
    this.context = context ?? {};
  }

  /** The body as text, or the DNS answers one a line; undefined when neither. */
  bodyText(): string | undefined {
    if (!this.#bodyText) {
      this.#bodyText = { text: this.#readBodyText() };
    }
    return this.#bodyText.text;
  }

  /** The body as a JSON value, parsed from its text unless given parsed. */
  bodyJson(): JsonParseResult {
    if (!this.#bodyJson) {
      const body = this.context.body;
      if (isParsedBody(body)) {
        this.#bodyJson = { ok: true, value: body };
      } else {
        const text = this.bodyText();
        this.#bodyJson =
          text === undefined ? { ok: false } : parseJsonKeepingNumbers(text);
      }
    }
    return this.#bodyJson;
  }

  #readBodyText(): string | undefined {
    const { body, dnsAnswers } = this.context;
    if (typeof body === 'string') {
      return body;
    }
    if (isBytes(body)) {
      return new TextDecoder().decode(body);
    }
    if (body === undefined || body === null) {
      return Array.isArray(dnsAnswers) ? dnsAnswers.join('\n') : undefined;
    }
    return jsonValueText(body);
  }
}

// Checked by slot, not instanceof, so bytes from another realm count too.
function isBytes(body: unknown): body is ArrayBufferView {
  return ArrayBuffer.isView(body);
}

function isParsedBody(body: unknown): boolean {
  return (
    body !== undefined &&
    body !== null &&
    typeof body !== 'string' &&
    !isBytes(body)
  );
}

const wholeNumberText = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value)
    ? String(Math.trunc(value))
    : undefined;

/**
 * The text of a placeholder, or undefined (`INVALID`) when the probe did not
 * observe it or a `[BODY]` path leads nowhere.
 * @internal
 */
export function resolvePlaceholder(
  operand: PlaceholderOperand,
  inputs: ConditionInputs,
): string | undefined {
  const context = inputs.context;
  switch (operand.name) {
    case 'STATUS':
      return wholeNumberText(context.status);
    // Gatus counts whole milliseconds.
    case 'RESPONSE_TIME':
      return wholeNumberText(context.responseTimeMs);
    case 'CERTIFICATE_EXPIRATION':
      return wholeNumberText(context.certificateExpirationMs);
    case 'IP':
      return typeof context.ip === 'string' ? context.ip : undefined;
    case 'CONNECTED':
      return typeof context.connected === 'boolean'
        ? String(context.connected)
        : undefined;
    case 'DNS_RCODE':
      return typeof context.dnsRcode === 'string'
        ? context.dnsRcode
        : undefined;
    case 'BODY':
    default:
      if (operand.path.length === 0) {
        return inputs.bodyText()?.trim();
      }
      return bodyValueText(operand, inputs);
  }
}

function bodyValue(operand: PlaceholderOperand, inputs: ConditionInputs) {
  const json = inputs.bodyJson();
  return json.ok ? valueAtPath(json.value, operand.path) : undefined;
}

function bodyValueText(operand: PlaceholderOperand, inputs: ConditionInputs) {
  const value = bodyValue(operand, inputs);
  return value === undefined ? undefined : jsonValueText(value);
}

/**
 * `len()`: elements of an array, characters of anything else; the whole
 * body counts as an array only when it is a JSON array.
 * @internal
 */
export function resolveLength(
  operand: LengthOperand,
  inputs: ConditionInputs,
): string | undefined {
  const of = operand.of;
  if (of.name === 'BODY') {
    if (of.path.length > 0) {
      const value = bodyValue(of, inputs);
      return value === undefined ? undefined : String(jsonValueLength(value));
    }
    const text = inputs.bodyText();
    if (text === undefined) {
      return undefined;
    }
    const trimmed = text.trim();
    if (trimmed.startsWith('[') && trimmed.endsWith(']')) {
      const json = inputs.bodyJson();
      if (json.ok && Array.isArray(json.value)) {
        return String(json.value.length);
      }
    }
    return String(countCharacters(text));
  }
  const text = resolvePlaceholder(of, inputs);
  return text === undefined ? undefined : String(countCharacters(text));
}

/**
 * `has()`: `true` when the placeholder resolves to something non-empty (for
 * a `[BODY]` path: to any value but `null`), `false` otherwise.
 * @internal
 */
export function resolveHas(
  operand: HasOperand,
  inputs: ConditionInputs,
): string {
  const of = operand.of;
  if (of.name === 'BODY' && of.path.length > 0) {
    return String(bodyValue(of, inputs) !== undefined);
  }
  const text = resolvePlaceholder(of, inputs);
  return String(text !== undefined && text !== '');
}

/**
 * The value of an operand that has one (everything but `pat()` and `any()`).
 * @internal
 */
export function resolveOperand(
  operand: PlaceholderOperand | LengthOperand | HasOperand | LiteralOperand,
  inputs: ConditionInputs,
): string | undefined {
  switch (operand.kind) {
    case 'placeholder':
      return resolvePlaceholder(operand, inputs);
    case 'len':
      return resolveLength(operand, inputs);
    case 'has':
      return resolveHas(operand, inputs);
    case 'literal':
    default:
      return operand.text;
  }
}
