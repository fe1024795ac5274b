import {
  CheckDetails,
  validateHealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import { placeProblems } from './backendProblems';
import { checkRequestOf } from './checkRequest';
import {
  CheckFormErrors,
  CheckFormField,
  CheckFormValues,
  filledOverrideRows,
  isObject,
  OverrideField,
} from './formValues';

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
