import type { ResponseError } from '@backstage/errors';
import {
  CheckDetails,
  ConditionSpec,
  HealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';

/**
 * What the check form edits, as the inputs hold it: text, mostly.
 * @internal
 */
export interface CheckFormValues {
  id: string;
  title: string;
  type: string;
  target: string;
  interval: string;
  timeout: string;
  /** One condition per line; blank lines are ignored. */
  conditions: string;
  /** Entity refs of System entities. */
  systems: string[];
  /** Comma-separated; empty for every environment of each system. */
  environments: string;
  thresholdFailure: string;
  thresholdSuccess: string;
  paused: boolean;
  owner: string;
  /** The probe type's `config` as JSON; empty for none. */
  config: string;
}

/** @internal */
export type CheckFormField = keyof CheckFormValues;

/**
 * Problems of a submission: each at the field it concerns, and the ones that
 * concern no field of the form at the top.
 * @internal
 */
export interface CheckFormErrors {
  fields: Partial<Record<CheckFormField, string[]>>;
  top: string[];
}

/** @internal */
export const NO_ERRORS: CheckFormErrors = { fields: {}, top: [] };

/** The probe types every backend has, for when it cannot be asked. @internal */
export const BUILTIN_PROBE_TYPES = ['http', 'tcp', 'dns', 'tls'];

/** @internal */
export function emptyCheckFormValues(): CheckFormValues {
  return {
    id: '',
    title: '',
    type: 'http',
    target: '',
    interval: '',
    timeout: '',
    conditions: '',
    systems: [],
    environments: '',
    thresholdFailure: '',
    thresholdSuccess: '',
    paused: false,
    owner: '',
    config: '',
  };
}

/** The form's values for a stored check. @internal */
export function checkFormValuesOf(check: CheckDetails): CheckFormValues {
  const { spec } = check;
  return {
    id: check.id,
    title: check.title ?? '',
    type: spec.type,
    target: spec.target,
    interval: spec.interval ?? '',
    timeout: spec.timeout ?? '',
    conditions: (spec.conditions ?? []).map(conditionText).join('\n'),
    systems: [...spec.systems],
    environments: (spec.environments ?? []).join(', '),
    thresholdFailure: numberText(spec.thresholds?.failure),
    thresholdSuccess: numberText(spec.thresholds?.success),
    paused: spec.paused ?? false,
    owner: spec.owner ?? '',
    config:
      spec.config && Object.keys(spec.config).length > 0
        ? JSON.stringify(spec.config, null, 2)
        : '',
  };
}

/** The text of a condition, with or without its severity. @internal */
export function conditionText(condition: ConditionSpec): string {
  return typeof condition === 'string' ? condition : condition.condition;
}

/** The form's conditions, one per non-blank line, with the line of each. @internal */
export function conditionLines(
  text: string,
): Array<{ condition: string; line: number }> {
  return text
    .split('\n')
    .map((raw, index) => ({ condition: raw.trim(), line: index + 1 }))
    .filter(entry => entry.condition !== '');
}

/** Splits a comma- or newline-separated list, dropping blanks. @internal */
export function splitList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map(item => item.trim())
    .filter(item => item !== '');
}

/**
 * What the form finds wrong before asking the backend: what is required, and
 * what it must parse itself (the JSON config, whole-number thresholds).
 * Everything else the backend validates, and says where.
 * @internal
 */
export function validateCheckForm(
  values: CheckFormValues,
  mode: 'create' | 'edit',
): CheckFormErrors {
  const fields: CheckFormErrors['fields'] = {};
  const add = (field: CheckFormField, message: string) => {
    (fields[field] ??= []).push(message);
  };
  if (mode === 'create' && !values.id.trim() && !values.title.trim()) {
    add('id', 'Give an id, or a title to derive it from');
  }
  if (!values.type.trim()) add('type', 'Choose a probe type');
  if (!values.target.trim()) add('target', 'Say what to probe');
  if (values.systems.length === 0) {
    add('systems', 'Assign the check to at least one system');
  }
  for (const field of ['thresholdFailure', 'thresholdSuccess'] as const) {
    const text = values[field].trim();
    if (text && !/^[1-9]\d*$/.test(text)) {
      add(field, 'A whole number, 1 or more');
    }
  }
  if (values.config.trim()) {
    try {
      const parsed = JSON.parse(values.config);
      if (!isObject(parsed)) {
        add('config', 'Must be a JSON object, such as { "method": "GET" }');
      }
    } catch (error) {
      add('config', `Not valid JSON: ${(error as Error).message}`);
    }
  }
  return { fields, top: [] };
}

/** @internal */
export function hasErrors(errors: CheckFormErrors): boolean {
  return errors.top.length > 0 || Object.keys(errors.fields).length > 0;
}

/**
 * The request body of a create or an update. On an update the stored spec is
 * the base, so what the form does not show (environment overrides, the
 * severity of a condition whose text is unchanged) is kept.
 * @internal
 */
export function checkRequestOf(
  values: CheckFormValues,
  original?: CheckDetails,
): { id?: string; title?: string; spec: HealthCheckSpec } {
  const base: Partial<HealthCheckSpec> = { ...(original?.spec ?? {}) };
  const spec: HealthCheckSpec = {
    ...base,
    type: values.type.trim(),
    target: values.target.trim(),
    systems: values.systems,
  };
  setOrDelete(spec, 'interval', values.interval.trim() || undefined);
  setOrDelete(spec, 'timeout', values.timeout.trim() || undefined);

  const previous = new Map<string, ConditionSpec>();
  for (const condition of original?.spec.conditions ?? []) {
    previous.set(conditionText(condition), condition);
  }
  const conditions = conditionLines(values.conditions).map(
    ({ condition }) => previous.get(condition) ?? condition,
  );
  setOrDelete(spec, 'conditions', conditions.length ? conditions : undefined);

  const failure = values.thresholdFailure.trim();
  const success = values.thresholdSuccess.trim();
  setOrDelete(
    spec,
    'thresholds',
    failure || success
      ? {
          ...(failure && { failure: Number(failure) }),
          ...(success && { success: Number(success) }),
        }
      : undefined,
  );
  const environments = splitList(values.environments);
  setOrDelete(
    spec,
    'environments',
    environments.length ? environments : undefined,
  );
  setOrDelete(spec, 'paused', values.paused ? true : undefined);
  setOrDelete(spec, 'owner', values.owner.trim() || undefined);
  setOrDelete(
    spec,
    'config',
    values.config.trim() ? JSON.parse(values.config) : undefined,
  );

  const title = values.title.trim() || undefined;
  if (original) {
    return { title, spec };
  }
  const id = values.id.trim() || undefined;
  return { ...(id && { id }), ...(title && { title }), spec };
}

function setOrDelete<K extends keyof HealthCheckSpec>(
  spec: HealthCheckSpec,
  key: K,
  value: HealthCheckSpec[K] | undefined,
) {
  if (value === undefined) {
    delete spec[key];
  } else {
    spec[key] = value;
  }
}

/**
 * One problem of the backend's 400: `{ path, reason }`, the path as
 * `spec.interval` or `spec.conditions[1]`.
 * @internal
 */
export interface CheckProblem {
  path: string;
  reason: string;
}

/**
 * The field of the form a problem's path concerns, and the index within it
 * for lists (`spec.conditions[1]` is the second condition); no field for what
 * the form does not show.
 * @internal
 */
export function fieldOfProblemPath(path: string): {
  field?: CheckFormField;
  index?: number;
} {
  const match = /^spec\.([A-Za-z]+)(?:\[(\d+)\])?(?:\.([A-Za-z]+))?/.exec(path);
  if (!match) {
    if (path === 'id' || path === 'title') {
      return { field: path };
    }
    return {};
  }
  const [, name, indexText, sub] = match;
  const index = indexText === undefined ? undefined : Number(indexText);
  switch (name) {
    case 'type':
    case 'target':
    case 'interval':
    case 'timeout':
    case 'paused':
    case 'owner':
    case 'config':
      return { field: name };
    case 'conditions':
    case 'systems':
    case 'environments':
      return { field: name, index };
    case 'thresholds':
      return {
        field: sub === 'success' ? 'thresholdSuccess' : 'thresholdFailure',
      };
    default:
      return {};
  }
}

/**
 * Places each of the backend's problems at its field, with a word on which
 * line or item of a list it is about; the rest go to the top.
 * @internal
 */
export function placeProblems(
  problems: CheckProblem[],
  values: CheckFormValues,
): CheckFormErrors {
  const fields: CheckFormErrors['fields'] = {};
  const top: string[] = [];
  const lines = conditionLines(values.conditions);
  const environments = splitList(values.environments);
  for (const { path, reason } of problems) {
    const { field, index } = fieldOfProblemPath(path);
    if (!field) {
      top.push(path ? `${path}: ${reason}` : reason);
      continue;
    }
    let message = reason;
    if (index !== undefined) {
      if (field === 'conditions') {
        const line = lines[index]?.line;
        message = `${
          line ? `Line ${line}` : `Condition ${index + 1}`
        }: ${reason}`;
      } else if (field === 'systems' && values.systems[index] !== undefined) {
        message = `${values.systems[index]}: ${reason}`;
      } else if (field === 'environments' && environments[index]) {
        message = `${environments[index]}: ${reason}`;
      }
    } else if (field === 'config' && path !== 'spec.config') {
      message = `${path.slice('spec.config.'.length)}: ${reason}`;
    }
    (fields[field] ??= []).push(message);
  }
  return { fields, top };
}

/**
 * The problems of a 400 from the backend (`error.problems`), when it has
 * them.
 * @internal
 */
export function problemsOfError(error: unknown): CheckProblem[] | undefined {
  if (!isResponseError(error) || error.statusCode !== 400) {
    return undefined;
  }
  const problems = (error.body?.error as { problems?: unknown } | undefined)
    ?.problems;
  if (!Array.isArray(problems)) {
    return undefined;
  }
  const valid = problems.filter(
    (p): p is CheckProblem =>
      isObject(p) && typeof p.path === 'string' && typeof p.reason === 'string',
  );
  return valid.length > 0 ? valid : undefined;
}

/** What the backend said, without "Request failed with 409 Conflict, ". @internal */
export function messageOfError(error: unknown): string {
  if (isResponseError(error)) {
    return error.body?.error?.message || error.message;
  }
  return error instanceof Error ? error.message : String(error);
}

/**
 * The address of a GitOps check's file, from its source location
 * (`url:https://…`); `undefined` for a location that is no web address.
 * @internal
 */
export function gitUrlOfLocation(location?: string): string | undefined {
  if (!location) {
    return undefined;
  }
  const url = location.replace(/^url:/, '');
  return /^https?:\/\//.test(url) ? url : undefined;
}

/** A ResponseError, also from another copy of `@backstage/errors`. */
function isResponseError(error: unknown): error is ResponseError {
  return (
    isObject(error) &&
    error.name === 'ResponseError' &&
    typeof error.statusCode === 'number'
  );
}

function numberText(value: number | undefined): string {
  return value === undefined ? '' : String(value);
}

function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
