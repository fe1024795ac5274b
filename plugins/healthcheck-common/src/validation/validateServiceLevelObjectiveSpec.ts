import { parseEntityRef } from '@backstage/catalog-model';
import {
  canonicalEntityRef,
  canonicalEnvironmentName,
  environmentNameProblem,
  parseDuration,
} from '../model';
import {
  ResolvedServiceLevelObjective,
  SERVICE_LEVEL_OBJECTIVE_LIMITS,
} from '../model/serviceLevelObjective';
import { formatProblemPath, ProblemPath } from './problemPath';
import type { HealthCheckSpecProblem } from './problemPath';

/**
 * What a ServiceLevelObjective spec is validated with.
 * @public
 */
export interface ServiceLevelObjectiveSpecValidationOptions {
  /** Written before every path: `spec` for an entity (the default), `''` for an API body. */
  rootPath?: string;
  /** The namespace of refs that name none, for an entity its own. Default `default`. */
  defaultNamespace?: string;
}

const FIELDS = [
  'description',
  'system',
  'environment',
  'check',
  'indicator',
  'timeWindow',
  'budgetingMethod',
  'objectives',
  'owner',
];

const DAY_MS = 86_400_000;

/**
 * Every problem of a ServiceLevelObjective spec, each at its field
 * (`spec.objectives[0].target`), or none. The catalog processor, the API and
 * the frontend judge specs with it.
 * @public
 */
export function validateServiceLevelObjectiveSpec(
  spec: unknown,
  options: ServiceLevelObjectiveSpecValidationOptions = {},
): HealthCheckSpecProblem[] {
  return readServiceLevelObjective(spec, options).problems;
}

/**
 * A valid ServiceLevelObjective spec as the numbers the SLO math uses.
 * @throws TypeError naming every problem, for a spec that is not valid
 * @public
 */
export function resolveServiceLevelObjective(
  spec: unknown,
  options: ServiceLevelObjectiveSpecValidationOptions = {},
): ResolvedServiceLevelObjective {
  const { problems, resolved } = readServiceLevelObjective(spec, options);
  if (!resolved) {
    throw new TypeError(
      `Invalid ServiceLevelObjective spec: ${problems
        .map(problem => `${formatProblemPath(problem.path)}: ${problem.reason}`)
        .join('; ')}`,
    );
  }
  return resolved;
}

function readServiceLevelObjective(
  spec: unknown,
  options: ServiceLevelObjectiveSpecValidationOptions,
): {
  problems: HealthCheckSpecProblem[];
  resolved?: ResolvedServiceLevelObjective;
} {
  const rootPath = options.rootPath ?? 'spec';
  const root: ProblemPath = rootPath ? [rootPath] : [];
  const namespace = options.defaultNamespace ?? 'default';
  const problems: HealthCheckSpecProblem[] = [];
  const report = (field: ProblemPath, reason: string) => {
    problems.push({ path: [...root, ...field], reason });
  };

  if (!isObject(spec)) {
    report([], 'must be an object');
    return { problems };
  }
  for (const key of Object.keys(spec)) {
    if (!FIELDS.includes(key)) {
      report(
        [key],
        `is not a field of a ServiceLevelObjective (the fields are ${FIELDS.join(
          ', ',
        )})`,
      );
    }
  }
  if (
    spec.description !== undefined &&
    (typeof spec.description !== 'string' ||
      spec.description.length >
        SERVICE_LEVEL_OBJECTIVE_LIMITS.maxDescriptionLength)
  ) {
    report(
      ['description'],
      `must be a text of at most ${SERVICE_LEVEL_OBJECTIVE_LIMITS.maxDescriptionLength} characters`,
    );
  }

  const systemRef = readRef(
    spec.system,
    'system',
    namespace,
    ['system'],
    report,
    {
      required: 'is required: the ref of the system the objective is for',
    },
  );
  const checkRef =
    spec.check === undefined
      ? undefined
      : readRef(spec.check, 'healthcheck', namespace, ['check'], report, {});

  let environment: string | undefined;
  if (typeof spec.environment !== 'string') {
    report(
      ['environment'],
      spec.environment === undefined
        ? 'is required: the environment of the system the objective is for, such as production'
        : 'must be a text: an environment name',
    );
  } else {
    const problem = environmentNameProblem(spec.environment);
    if (problem) {
      report(['environment'], problem);
    } else {
      environment = canonicalEnvironmentName(spec.environment);
    }
  }

  const indicator = readIndicator(spec.indicator, report);
  const window = readTimeWindow(spec.timeWindow, report);

  let budgetingMethod: ResolvedServiceLevelObjective['budgetingMethod'] =
    'Timeslices';
  if (spec.budgetingMethod !== undefined) {
    if (
      spec.budgetingMethod !== 'Occurrences' &&
      spec.budgetingMethod !== 'Timeslices'
    ) {
      report(
        ['budgetingMethod'],
        `${JSON.stringify(
          spec.budgetingMethod,
        )} is not a budgeting method: Timeslices (time-weighted, like up-time) or Occurrences (runs)`,
      );
    } else {
      budgetingMethod = spec.budgetingMethod;
    }
  }
  if (indicator?.type === 'latency' && budgetingMethod === 'Occurrences') {
    report(
      ['budgetingMethod'],
      'a latency objective is judged per hour: use Timeslices (Vigil keeps the percentiles of each hour, not every run)',
    );
  }

  const objective = readObjectives(spec.objectives, report);
  readOwner(spec.owner, namespace, report);

  if (
    problems.length > 0 ||
    !systemRef ||
    !environment ||
    !indicator ||
    !window ||
    !objective
  ) {
    return { problems };
  }
  return {
    problems,
    resolved: {
      systemRef,
      environment,
      ...(checkRef ? { checkRef } : {}),
      indicator,
      window,
      budgetingMethod,
      target: objective.target,
      ...(objective.displayName ? { displayName: objective.displayName } : {}),
    },
  };
}

type Report = (field: ProblemPath, reason: string) => void;

function readRef(
  value: unknown,
  kind: string,
  defaultNamespace: string,
  field: ProblemPath,
  report: Report,
  messages: { required?: string },
): string | undefined {
  if (value === undefined && messages.required) {
    report(field, messages.required);
    return undefined;
  }
  if (typeof value !== 'string' || value === '') {
    report(field, `must be an entity ref such as ${kind}:default/name`);
    return undefined;
  }
  try {
    const parsed = parseEntityRef(value, {
      defaultKind: kind,
      defaultNamespace,
    });
    if (parsed.kind.toLowerCase() !== kind) {
      report(
        field,
        `${JSON.stringify(value)} refers to a ${
          parsed.kind
        }; it must be a ${kind}`,
      );
      return undefined;
    }
  } catch (error) {
    report(field, (error as Error).message);
    return undefined;
  }
  return canonicalEntityRef(value, { defaultKind: kind, defaultNamespace });
}

/** `owner`, when given: a ref of who declares the objective (a Group by default). */
function readOwner(value: unknown, defaultNamespace: string, report: Report) {
  if (value === undefined) {
    return;
  }
  if (typeof value !== 'string' || value === '') {
    report(['owner'], 'must be an entity ref such as group:default/name');
    return;
  }
  try {
    parseEntityRef(value, { defaultKind: 'group', defaultNamespace });
  } catch (error) {
    report(['owner'], (error as Error).message);
  }
}

function readIndicator(
  value: unknown,
  report: Report,
): ResolvedServiceLevelObjective['indicator'] | undefined {
  const field = ['indicator'];
  if (!isObject(value)) {
    report(
      field,
      value === undefined
        ? 'is required: what counts as good, { type: availability } or { type: latency, percentile: 95, threshold: 300ms }'
        : 'must be an object: { type: availability } or { type: latency, percentile: 95, threshold: 300ms }',
    );
    return undefined;
  }
  if (value.type === 'availability') {
    unknownFields(value, ['type'], field, report);
    return { type: 'availability' };
  }
  if (value.type !== 'latency') {
    report(
      [...field, 'type'],
      `${JSON.stringify(
        value.type,
      )} is not an indicator type: availability or latency`,
    );
    return undefined;
  }
  unknownFields(value, ['type', 'percentile', 'threshold'], field, report);
  let ok = true;
  const percentile = value.percentile;
  if (percentile !== 50 && percentile !== 95 && percentile !== 99) {
    report(
      [...field, 'percentile'],
      `${JSON.stringify(
        percentile,
      )} is not a percentile Vigil keeps: 50, 95 or 99`,
    );
    ok = false;
  }
  let thresholdMs: number | undefined;
  if (typeof value.threshold !== 'string') {
    report(
      [...field, 'threshold'],
      'is required: a duration such as 300ms that the percentile must stay below',
    );
  } else {
    try {
      thresholdMs = parseDuration(value.threshold);
      if (thresholdMs <= 0) {
        report([...field, 'threshold'], 'must be longer than 0ms');
        thresholdMs = undefined;
      }
    } catch (error) {
      report([...field, 'threshold'], (error as Error).message);
    }
  }
  if (!ok || thresholdMs === undefined) {
    return undefined;
  }
  return {
    type: 'latency',
    percentile: percentile as 50 | 95 | 99,
    thresholdMs,
  };
}

function readTimeWindow(
  value: unknown,
  report: Report,
): ResolvedServiceLevelObjective['window'] | undefined {
  const example =
    '[{ duration: 28d, isRolling: true }] or [{ duration: 1M, isRolling: false }]';
  if (!Array.isArray(value) || value.length !== 1) {
    report(
      ['timeWindow'],
      value === undefined
        ? `is required: ${example}`
        : `must be a list of exactly one window, such as ${example}`,
    );
    return undefined;
  }
  const window = value[0];
  const field = ['timeWindow', 0];
  if (!isObject(window)) {
    report(field, `must be an object, such as ${example}`);
    return undefined;
  }
  unknownFields(window, ['duration', 'isRolling', 'calendar'], field, report);
  if (typeof window.isRolling !== 'boolean') {
    report(
      [...field, 'isRolling'],
      'is required: true for a rolling window, false for a calendar month',
    );
    return undefined;
  }
  if (typeof window.duration !== 'string') {
    report([...field, 'duration'], `is required, as in ${example}`);
    return undefined;
  }
  if (!window.isRolling) {
    if (window.duration !== '1M') {
      report(
        [...field, 'duration'],
        `${JSON.stringify(
          window.duration,
        )}: a calendar window is the month, 1M`,
      );
      return undefined;
    }
    if (window.calendar !== undefined) {
      if (!isObject(window.calendar)) {
        report([...field, 'calendar'], 'must be an object: { timeZone: UTC }');
        return undefined;
      }
      unknownFields(
        window.calendar,
        ['timeZone'],
        [...field, 'calendar'],
        report,
      );
      const timeZone = window.calendar.timeZone;
      if (timeZone !== undefined && timeZone !== 'UTC') {
        report(
          [...field, 'calendar', 'timeZone'],
          `${JSON.stringify(
            timeZone,
          )}: months start in UTC for now; leave timeZone out or write UTC`,
        );
        return undefined;
      }
    }
    return { type: 'calendarMonth', timeZone: 'UTC' };
  }
  if (window.calendar !== undefined) {
    report(
      [...field, 'calendar'],
      'is only for a calendar window (isRolling: false)',
    );
  }
  const match = /^([1-9][0-9]{0,2})([dw])$/.exec(window.duration);
  const days = match ? Number(match[1]) * (match[2] === 'w' ? 7 : 1) : NaN;
  const { maxRollingDays } = SERVICE_LEVEL_OBJECTIVE_LIMITS;
  if (!match || days > maxRollingDays) {
    report(
      [...field, 'duration'],
      `${JSON.stringify(
        window.duration,
      )} is not a rolling window: whole days or weeks up to ${maxRollingDays}d, such as 7d, 28d, 30d or 4w`,
    );
    return undefined;
  }
  return { type: 'rolling', durationMs: days * DAY_MS };
}

function readObjectives(
  value: unknown,
  report: Report,
): { target: number; displayName?: string } | undefined {
  if (!Array.isArray(value) || value.length !== 1) {
    report(
      ['objectives'],
      value === undefined
        ? 'is required: [{ target: 0.999 }] or [{ targetPercent: 99.9 }]'
        : 'must be a list of exactly one objective, such as [{ target: 0.999 }]; declare another ServiceLevelObjective for another target',
    );
    return undefined;
  }
  const objective = value[0];
  const field = ['objectives', 0];
  if (!isObject(objective)) {
    report(field, 'must be an object, such as { target: 0.999 }');
    return undefined;
  }
  unknownFields(
    objective,
    ['displayName', 'target', 'targetPercent'],
    field,
    report,
  );
  let displayName: string | undefined;
  if (objective.displayName !== undefined) {
    const max = SERVICE_LEVEL_OBJECTIVE_LIMITS.maxDisplayNameLength;
    if (
      typeof objective.displayName !== 'string' ||
      objective.displayName.length > max
    ) {
      report(
        [...field, 'displayName'],
        `must be a text of at most ${max} characters`,
      );
    } else {
      displayName = objective.displayName;
    }
  }
  const hasRatio = objective.target !== undefined;
  const hasPercent = objective.targetPercent !== undefined;
  if (hasRatio === hasPercent) {
    report(
      field,
      hasRatio
        ? 'has both target and targetPercent; write one'
        : 'needs target (a ratio, such as 0.999) or targetPercent (such as 99.9)',
    );
    return undefined;
  }
  const [key, scale, example] = hasRatio
    ? (['target', 1, '0.999'] as const)
    : (['targetPercent', 100, '99.9'] as const);
  const written = objective[key];
  if (
    typeof written !== 'number' ||
    !Number.isFinite(written) ||
    written <= 0 ||
    written >= scale
  ) {
    report(
      [...field, key],
      `${JSON.stringify(
        written,
      )} must be a number above 0 and below ${scale}, such as ${example}`,
    );
    return undefined;
  }
  return { target: written / scale, ...(displayName ? { displayName } : {}) };
}

function unknownFields(
  value: Record<string, unknown>,
  known: string[],
  field: ProblemPath,
  report: Report,
) {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      report(
        [...field, key],
        `is not a field here (the fields are ${known.join(', ')})`,
      );
    }
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
