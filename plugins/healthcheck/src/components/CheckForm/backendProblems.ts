import type { ResponseError } from '@backstage/errors';
import {
  canonicalEnvironmentName,
  formatProblemPath,
  HealthCheckSpecProblem,
  ProblemPath,
} from '@vigil/plugin-healthcheck-common';
import {
  CheckFormErrors,
  isObject,
  CheckFormField,
  CheckFormValues,
  EnvironmentOverrideRow,
  filledConditionRows,
  filledOverrideRows,
  OverrideField,
  splitList,
} from './formValues';

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

/** A ResponseError, also from another copy of `@backstage/errors`. */
function isResponseError(error: unknown): error is ResponseError {
  return (
    isObject(error) &&
    error.name === 'ResponseError' &&
    typeof error.statusCode === 'number'
  );
}
