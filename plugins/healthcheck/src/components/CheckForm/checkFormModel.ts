import type { ResponseError } from '@backstage/errors';
import {
  canonicalEnvironmentName,
  CheckDetails,
  formatProblemPath,
  HealthCheckSpecProblem,
  ProblemPath,
  validateHealthCheckSpec,
  ConditionSeverity,
  ConditionSpec,
  HealthCheckEnvironmentOverride,
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
  /** In order; rows left blank are ignored. */
  conditions: ConditionRow[];
  /** Entity refs of System entities. */
  systems: string[];
  /** Entity refs of the Component entities the check probes. */
  components: string[];
  /** Comma-separated; empty for every environment of each system. */
  environments: string;
  thresholdFailure: string;
  thresholdSuccess: string;
  paused: boolean;
  owner: string;
  /** The probe type's `config` as JSON; empty for none. */
  config: string;
  /** In order; rows left wholly blank are ignored. */
  environmentOverrides: EnvironmentOverrideRow[];
}

/** @internal */
export type CheckFormField = keyof CheckFormValues;

/**
 * One condition as the form edits it.
 * @internal
 */
export interface ConditionRow {
  /** Names the row while the form is open: its React key, where its problems go. */
  key: string;
  condition: string;
  severity: ConditionSeverity;
}

/**
 * One environment's override as the form edits it: what the spec lets an
 * environment change, a target and probe config merged over the check's.
 * @internal
 */
export interface EnvironmentOverrideRow {
  /** Names the row while the form is open: its React key, where its problems go. */
  key: string;
  /** As typed; compared with the others without regard to case. */
  environment: string;
  /** Empty for the check's own target. */
  target: string;
  /** JSON merged over the check's `config`; empty for none. */
  config: string;
}

/** @internal */
export type OverrideField = Exclude<keyof EnvironmentOverrideRow, 'key'>;

/**
 * Problems of a submission: each at the field it concerns (a condition or an
 * override's field by its row), and the ones that concern no field of the
 * form at the top.
 * @internal
 */
export interface CheckFormErrors {
  /** For `conditions` and `environmentOverrides`: the list as a whole. */
  fields: Partial<Record<CheckFormField, string[]>>;
  /** By the key of the condition's row. */
  conditions: Record<string, string[]>;
  /** By the key of the override's row, then its field. */
  overrides: Record<string, Partial<Record<OverrideField, string[]>>>;
  top: string[];
}

/** @internal */
export const NO_ERRORS: CheckFormErrors = {
  fields: {},
  conditions: {},
  overrides: {},
  top: [],
};

/** The severity of a condition that names none. */
const DEFAULT_SEVERITY: ConditionSeverity = 'unhealthy';

let lastRowKey = 0;
function newRowKey(): string {
  lastRowKey += 1;
  return `row-${lastRowKey}`;
}

/** @internal */
export function newConditionRow(
  condition = '',
  severity: ConditionSeverity = DEFAULT_SEVERITY,
): ConditionRow {
  return { key: newRowKey(), condition, severity };
}

/** @internal */
export function newEnvironmentOverrideRow(
  fields: Partial<Omit<EnvironmentOverrideRow, 'key'>> = {},
): EnvironmentOverrideRow {
  return {
    key: newRowKey(),
    environment: '',
    target: '',
    config: '',
    ...fields,
  };
}

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
    // One row to type the first condition into.
    conditions: [newConditionRow()],
    systems: [],
    components: [],
    environments: '',
    thresholdFailure: '',
    thresholdSuccess: '',
    paused: false,
    owner: '',
    config: '',
    environmentOverrides: [],
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
    conditions: (spec.conditions ?? []).map(condition =>
      newConditionRow(conditionText(condition), conditionSeverity(condition)),
    ),
    systems: [...spec.systems],
    components: [...(spec.components ?? [])],
    environments: (spec.environments ?? []).join(', '),
    thresholdFailure: numberText(spec.thresholds?.failure),
    thresholdSuccess: numberText(spec.thresholds?.success),
    paused: spec.paused ?? false,
    owner: spec.owner ?? '',
    config:
      spec.config && Object.keys(spec.config).length > 0
        ? JSON.stringify(spec.config, null, 2)
        : '',
    environmentOverrides: Object.entries(spec.environmentOverrides ?? {}).map(
      ([environment, override]) =>
        newEnvironmentOverrideRow({
          environment,
          target: override.target ?? '',
          // Shown even when `{}`, so that an untouched override saves as it was.
          config:
            override.config === undefined
              ? ''
              : JSON.stringify(override.config, null, 2),
        }),
    ),
  };
}

/** The text of a condition, with or without its severity. @internal */
export function conditionText(condition: ConditionSpec): string {
  return typeof condition === 'string' ? condition : condition.condition;
}

/** The severity of a condition, the default filled in. @internal */
export function conditionSeverity(condition: ConditionSpec): ConditionSeverity {
  return typeof condition === 'string'
    ? DEFAULT_SEVERITY
    : condition.severity ?? DEFAULT_SEVERITY;
}

/**
 * The condition rows a submission sends, in order: the ones not left blank.
 * The backend's `spec.conditions[i]` is the i-th of these.
 * @internal
 */
export function filledConditionRows(rows: ConditionRow[]): ConditionRow[] {
  return rows.filter(row => row.condition.trim() !== '');
}

/** The override rows a submission sends: the ones not left wholly blank. @internal */
export function filledOverrideRows(
  rows: EnvironmentOverrideRow[],
): EnvironmentOverrideRow[] {
  return rows.filter(
    row => row.environment.trim() || row.target.trim() || row.config.trim(),
  );
}

/** Splits a comma- or newline-separated list, dropping blanks. @internal */
export function splitList(text: string): string[] {
  return text
    .split(/[,\n]/)
    .map(item => item.trim())
    .filter(item => item !== '');
}

/**
 * What the form finds wrong before asking the backend: what is required and
 * what it must parse itself (the JSON config, whole-number thresholds), then
 * the spec it would send, by the validator the catalog and the API use
 * (`validateHealthCheckSpec`), each problem at its field. What only the
 * backend knows (its probe types, secrets, minimum interval, whether
 * placeholder hosts are allowed) it judges when the form is sent.
 * @internal
 */
export function validateCheckForm(
  values: CheckFormValues,
  mode: 'create' | 'edit',
  original?: CheckDetails,
): CheckFormErrors {
  const fields: CheckFormErrors['fields'] = {};
  const overrides: CheckFormErrors['overrides'] = {};
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
  const configProblem = jsonObjectProblem(values.config);
  if (configProblem) add('config', configProblem);

  const unnamed = new Set<string>();
  let unreadable = Boolean(
    fields.config || fields.thresholdFailure || fields.thresholdSuccess,
  );
  for (const row of filledOverrideRows(values.environmentOverrides)) {
    const addAtRow = (field: OverrideField, message: string) => {
      ((overrides[row.key] ??= {})[field] ??= []).push(message);
    };
    if (!row.environment.trim()) {
      addAtRow('environment', 'Name the environment');
      unnamed.add(row.key);
    }
    const overrideConfigProblem = jsonObjectProblem(row.config);
    if (overrideConfigProblem) {
      addAtRow('config', overrideConfigProblem);
      unreadable = true;
    }
  }
  const formErrors = { fields, conditions: {}, overrides, top: [] };
  if (unreadable) {
    // The spec cannot be written until its JSON and numbers read.
    return formErrors;
  }
  const { spec } = checkRequestOf(
    {
      ...values,
      environmentOverrides: values.environmentOverrides.filter(
        row => !unnamed.has(row.key),
      ),
    },
    original,
  );
  const specProblems = validateHealthCheckSpec(spec, {
    // Settings of the backend's, which it judges on save.
    minIntervalMs: 0,
    allowPlaceholderHosts: true,
  });
  return withoutRepeats(formErrors, placeProblems(specProblems, values));
}

/**
 * The form's own problems, and the spec's where the form said nothing: a
 * field the form already asks to fill in needs no second word on it.
 */
function withoutRepeats(
  form: CheckFormErrors,
  spec: CheckFormErrors,
): CheckFormErrors {
  const fields = { ...form.fields };
  for (const [field, messages] of Object.entries(spec.fields)) {
    fields[field as CheckFormField] ??= messages;
  }
  const overrides = { ...form.overrides };
  for (const [key, byField] of Object.entries(spec.overrides)) {
    const merged = { ...overrides[key] };
    for (const [field, messages] of Object.entries(byField)) {
      merged[field as OverrideField] ??= messages;
    }
    overrides[key] = merged;
  }
  return {
    fields,
    conditions: { ...spec.conditions, ...form.conditions },
    overrides,
    top: [...form.top, ...spec.top],
  };
}

/** Why a JSON object field's text is no JSON object; none when empty. */
function jsonObjectProblem(text: string): string | undefined {
  if (!text.trim()) {
    return undefined;
  }
  try {
    return isObject(JSON.parse(text))
      ? undefined
      : 'Must be a JSON object, such as { "method": "GET" }';
  } catch (error) {
    return `Not valid JSON: ${(error as Error).message}`;
  }
}

/** How many problems are shown at fields (not at the top). @internal */
export function countFieldProblems(errors: CheckFormErrors): number {
  const count = (lists: Array<string[] | undefined>) =>
    lists.reduce((sum, list) => sum + (list?.length ?? 0), 0);
  return (
    count(Object.values(errors.fields)) +
    count(Object.values(errors.conditions)) +
    count(
      Object.values(errors.overrides).flatMap(byField =>
        Object.values(byField),
      ),
    )
  );
}

/** @internal */
export function hasErrors(errors: CheckFormErrors): boolean {
  return errors.top.length > 0 || countFieldProblems(errors) > 0;
}

/**
 * The request body of a create or an update. On an update the stored spec is
 * the base, so what the form does not show is kept, and a condition that is
 * unchanged keeps the form it was stored in (`"…"`, `{ condition }` or
 * `{ condition, severity }`).
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
  setOrDelete(
    spec,
    'components',
    values.components.length > 0 ? values.components : undefined,
  );
  setOrDelete(spec, 'interval', values.interval.trim() || undefined);
  setOrDelete(spec, 'timeout', values.timeout.trim() || undefined);

  const previous = new Map<string, ConditionSpec>();
  for (const condition of original?.spec.conditions ?? []) {
    previous.set(conditionText(condition).trim(), condition);
  }
  const conditions = filledConditionRows(values.conditions).map(
    ({ condition, severity }): ConditionSpec => {
      const text = condition.trim();
      const stored = previous.get(text);
      if (stored !== undefined && conditionSeverity(stored) === severity) {
        return stored;
      }
      return severity === DEFAULT_SEVERITY
        ? text
        : { condition: text, severity };
    },
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
  const overrides = filledOverrideRows(values.environmentOverrides).map(
    (row): [string, HealthCheckEnvironmentOverride] => [
      row.environment.trim(),
      {
        ...(row.target.trim() && { target: row.target.trim() }),
        ...(row.config.trim() && { config: JSON.parse(row.config) }),
      },
    ],
  );
  setOrDelete(
    spec,
    'environmentOverrides',
    // fromEntries, so that even an environment named __proto__ stays a key.
    overrides.length ? Object.fromEntries(overrides) : undefined,
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
 * One problem of the backend's 400: `{ path, reason }`, the path as keys
 * and indexes, `['spec', 'conditions', 1]`.
 * @internal
 */
export type CheckProblem = HealthCheckSpecProblem;

/**
 * Where in the form a problem of the backend belongs.
 * @internal
 */
export interface ProblemLocation {
  /** None for what the form does not show. */
  field?: CheckFormField;
  /** The item of a list: `spec.conditions[1]` is the second condition. */
  index?: number;
  /** For an override's problem: its environment, as the key it was sent with. */
  environment?: string;
  /** The override's field; `environment` for the override as a whole. */
  overrideField?: OverrideField;
  /** What within the field it is about, such as `method` of a config. */
  detail?: string;
}

/**
 * The field of the form a problem's path concerns, and the index within it
 * for lists (`['spec', 'conditions', 1]` is the second condition) or the
 * environment for overrides (`['spec', 'environmentOverrides', 'prod',
 * 'target']`); no field for what the form does not show.
 * @internal
 */
export function fieldOfProblemPath(path: ProblemPath): ProblemLocation {
  const [root, name, ...rest] = path;
  if (root === 'id' || root === 'title') {
    return path.length === 1 ? { field: root } : {};
  }
  if (root !== 'spec') {
    return {};
  }
  const [first] = rest;
  switch (name) {
    case 'type':
    case 'target':
    case 'interval':
    case 'timeout':
    case 'paused':
    case 'owner':
      return { field: name };
    case 'config':
      return rest.length > 0
        ? { field: name, detail: formatProblemPath(rest) }
        : { field: name };
    case 'conditions':
    case 'systems':
    case 'components':
    case 'environments':
      return {
        field: name,
        index: typeof first === 'number' ? first : undefined,
      };
    case 'thresholds':
      return {
        field: first === 'success' ? 'thresholdSuccess' : 'thresholdFailure',
      };
    case 'environmentOverrides':
      return overrideLocation(rest);
    default:
      return {};
  }
}

/** Where a problem under `spec.environmentOverrides` goes: its key, then the path within. */
function overrideLocation([key, ...rest]: ProblemPath): ProblemLocation {
  const field = 'environmentOverrides';
  if (typeof key !== 'string') {
    // The overrides as a whole: not an object, or a key that is empty.
    return { field };
  }
  const environment = key;
  const [overrideField] = rest;
  if (overrideField === undefined) {
    return { field, environment, overrideField: 'environment' };
  }
  if (overrideField === 'target' && rest.length === 1) {
    return { field, environment, overrideField: 'target' };
  }
  if (overrideField === 'config') {
    return {
      field,
      environment,
      overrideField: 'config',
      ...(rest.length > 1 && { detail: formatProblemPath(rest.slice(1)) }),
    };
  }
  // A field an override may not have: said at the override's environment.
  return {
    field,
    environment,
    overrideField: 'environment',
    detail: formatProblemPath(rest),
  };
}

/**
 * Places each of the backend's problems at its field: a condition's at its
 * row, an override's at the row of its environment and the field within it,
 * with a word on which item of a list it is about; the rest go to the top.
 * @internal
 */
export function placeProblems(
  problems: CheckProblem[],
  values: CheckFormValues,
): CheckFormErrors {
  const errors: CheckFormErrors = {
    fields: {},
    conditions: {},
    overrides: {},
    top: [],
  };
  const sentConditions = filledConditionRows(values.conditions);
  const environments = splitList(values.environments);
  for (const { path, reason } of problems) {
    const location = fieldOfProblemPath(path);
    const { field, index, detail } = location;
    const message = detail ? `${detail}: ${reason}` : reason;
    const overrideRow =
      location.environment === undefined
        ? undefined
        : findOverrideRow(values.environmentOverrides, location.environment);
    const conditionRow =
      field === 'conditions' && index !== undefined
        ? sentConditions[index]
        : undefined;

    if (!field || (location.environment !== undefined && !overrideRow)) {
      errors.top.push(
        path.length > 0 ? `${formatProblemPath(path)}: ${reason}` : reason,
      );
    } else if (overrideRow && location.overrideField) {
      const byField = (errors.overrides[overrideRow.key] ??= {});
      (byField[location.overrideField] ??= []).push(message);
    } else if (conditionRow) {
      (errors.conditions[conditionRow.key] ??= []).push(message);
    } else {
      const item = index === undefined ? undefined : itemName(field, index);
      (errors.fields[field] ??= []).push(item ? `${item}: ${reason}` : message);
    }
  }
  return errors;

  /** The item of a list a problem is about, in words. */
  function itemName(field: CheckFormField, index: number) {
    switch (field) {
      case 'conditions':
        return `Condition ${index + 1}`;
      case 'systems':
        return values.systems[index];
      case 'components':
        return values.components[index];
      case 'environments':
        return environments[index];
      default:
        return undefined;
    }
  }
}

/**
 * The override row a problem's environment key names: the one sent with that
 * key, else the one naming the same environment.
 */
function findOverrideRow(
  rows: EnvironmentOverrideRow[],
  environment: string,
): EnvironmentOverrideRow | undefined {
  const filled = filledOverrideRows(rows);
  return (
    filled.find(row => row.environment.trim() === environment) ??
    filled.find(
      row =>
        canonicalEnvironmentName(row.environment) ===
        canonicalEnvironmentName(environment),
    )
  );
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
      isObject(p) &&
      Array.isArray(p.path) &&
      p.path.every(
        (segment: unknown) =>
          typeof segment === 'string' || typeof segment === 'number',
      ) &&
      typeof p.reason === 'string',
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
