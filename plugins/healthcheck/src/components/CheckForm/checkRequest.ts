import {
  CheckDetails,
  ConditionSpec,
  HealthCheckEnvironmentOverride,
  HealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import {
  CheckFormValues,
  conditionSeverity,
  conditionText,
  DEFAULT_SEVERITY,
  filledConditionRows,
  filledOverrideRows,
  splitList,
} from './formValues';

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
