import {
  CheckDetails,
  ConditionSeverity,
  ConditionSpec,
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
/** @internal */
export const DEFAULT_SEVERITY: ConditionSeverity = 'unhealthy';

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
    target: spec.target ?? '',
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

function numberText(value: number | undefined): string {
  return value === undefined ? '' : String(value);
}

/** @internal */
export function isObject(value: unknown): value is Record<string, any> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
