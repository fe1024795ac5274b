import { parseEntityRef } from '@backstage/catalog-model';
import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import { IANAZone } from 'luxon';
import { validateConditions } from '../conditions';
import {
  applyEnvironmentOverride,
  canonicalEnvironmentName,
  DurationParseError,
  findTargetTemplateProblems,
  formatDuration,
  HEALTHCHECK_SPEC_LIMITS,
  HealthCheckSpec,
  healthCheckSpecSchema,
  HEARTBEAT_LIMITS,
  isHeartbeatSpec,
  parseDuration,
  resolveCheckTiming,
  TargetTemplateOptions,
} from '../model';
import { validateCheckEnvironmentNames } from '../model/environmentNames';
import { ProbeConfigRules, validateProbeConfig } from './probeConfigValidation';
import {
  formatProblemPath,
  HealthCheckSpecProblem,
  ProblemPath,
} from './problemPath';
import type { MaintenanceRecurrenceRules } from './validateMaintenanceWindowSpec';

/**
 * The shortest interval a check may have unless configured otherwise.
 * @public
 */
export const DEFAULT_MIN_INTERVAL_MS = 5_000;

/**
 * What a check spec is validated against besides its schema.
 * @public
 */
export interface HealthCheckSpecValidationOptions {
  /**
   * The probe types checks may name, whose `configSchema` and
   * `validateConfig` judge each check's `config` (merged with each
   * environment's override). Any non-empty type passes without it.
   */
  probeTypes?: ProbeTypeLookup;
  /**
   * Judges the secrets a check references: where they may be sent and for
   * which namespaces (`@vigil/plugin-healthcheck-node`'s `secretUsesOf`
   * over the configured secrets); references are not judged without it.
   */
  secrets?: HealthCheckSecretUses;
  /**
   * Where the check comes from, which sets the namespace its secrets are
   * judged in: a HealthCheck entity's own (`defaultNamespace`), or, for a
   * check made through the API, that of each system it names.
   * Default `catalog`.
   */
  source?: 'catalog' | 'api';
  /** The shortest interval allowed. Default {@link DEFAULT_MIN_INTERVAL_MS}. */
  minIntervalMs?: number;
  /** Written before every path: `spec` for an entity (the default), `''` for an API body. */
  rootPath?: string;
  /** The namespace of refs that name none, for an entity its own. Default `default`. */
  defaultNamespace?: string;
  /** `healthcheck.targets.allowPlaceholderHosts`. Default false. */
  allowPlaceholderHosts?: boolean;
  /**
   * Judges a heartbeat check's cron `schedule` with the parser that computes
   * its deadlines (`@vigil/plugin-healthcheck-node`'s
   * `maintenanceRecurrenceRules`); without it only its shape is judged.
   */
  cron?: Pick<MaintenanceRecurrenceRules, 'cronProblem'>;
}

/**
 * The probe types a validator knows. A type without `configSchema` or
 * `validateConfig` is known by name only: its config is not judged here.
 * @public
 */
export interface ProbeTypeLookup {
  get(type: string): ProbeConfigRules | undefined;
  /** The names, sorted. */
  list(): string[];
}

/**
 * A {@link ProbeTypeLookup} of these types; a later type of the same name
 * wins.
 * @public
 */
export function probeTypeLookup(
  probeTypes: Iterable<NonNullable<ReturnType<ProbeTypeLookup['get']>>>,
): ProbeTypeLookup {
  const byName = new Map(
    [...probeTypes].map(probeType => [probeType.type, probeType]),
  );
  const names = [...byName.keys()].sort();
  return { get: type => byName.get(type), list: () => names };
}

/**
 * What judges the secret references of a check's config: the problems of
 * one config (the check's own, or an environment's merged over it) sent to
 * the target of one probe type, for a check in one namespace, each at its
 * path under `path`.
 * @public
 */
export interface HealthCheckSecretUses {
  findUseProblems(
    config: unknown,
    use: {
      probeType: string;
      target: string;
      namespace: string;
      path: ProblemPath;
    },
  ): HealthCheckSpecProblem[];
}

/**
 * The lists of entity refs in a spec: the field, the kind a ref must have
 * (and has when it names none), and what the list means, for the reason.
 */
const REF_LISTS = [
  ['systems', 'system', 'a check is assigned to systems'],
  ['components', 'component', 'a check targets components'],
] as const;

/** The fields only a heartbeat check has. */
const HEARTBEAT_FIELDS = ['period', 'schedule', 'timezone', 'grace'] as const;

let compiledSchema: ValidateFunction | undefined;

/**
 * The spec's JSON schema, compiled on first use: the common package is in
 * every page of the app, and most never validate a check.
 */
function specSchemaValidator(): ValidateFunction {
  if (!compiledSchema) {
    const ajv = new Ajv({ allErrors: true, verbose: true, strict: true });
    ajv.addFormat('duration', {
      type: 'string',
      validate: (text: string) => {
        try {
          parseDuration(text);
          return true;
        } catch {
          return false;
        }
      },
    });
    compiledSchema = ajv.compile(healthCheckSpecSchema);
  }
  return compiledSchema;
}

/** The paths already reported, compared by value. */
class SeenPaths {
  readonly #keys = new Set<string>();

  add(path: ProblemPath) {
    this.#keys.add(JSON.stringify(path));
  }

  has(path: ProblemPath): boolean {
    return this.#keys.has(JSON.stringify(path));
  }
}

/**
 * Every problem of a check spec, each with its field path and reason: first
 * what the JSON schema from `healthcheck-common` finds (unknown and missing
 * fields, wrong types, bad durations), then what a schema cannot say (an
 * unknown probe type, an interval below the minimum, unknown target
 * placeholders, refs that are not systems or components, conditions that
 * do not parse). Empty when the spec is fine. For the catalog processor, the
 * API and the frontend's form alike.
 *
 * @public
 */
export function validateHealthCheckSpec(
  spec: unknown,
  options: HealthCheckSpecValidationOptions = {},
): HealthCheckSpecProblem[] {
  const rootPath = options.rootPath ?? 'spec';
  const root: ProblemPath = rootPath ? [rootPath] : [];
  const problems: HealthCheckSpecProblem[] = [];
  const seenPaths = new SeenPaths();
  const report = (path: ProblemPath, reason: string) => {
    problems.push({ path, reason });
    seenPaths.add(path);
  };

  const validateSchema = specSchemaValidator();
  if (!validateSchema(spec)) {
    for (const error of validateSchema.errors ?? []) {
      const located = describeSchemaError(error, spec, root);
      // One reason per field is enough (0.5 is both "not whole" and "below 1").
      if (located && !seenPaths.has(located.path)) {
        report(located.path, located.reason);
      }
    }
  }
  if (!isObject(spec)) {
    return problems;
  }
  const fine = (...field: ProblemPath) => !seenPaths.has([...root, ...field]);
  const heartbeat = isHeartbeatSpec(spec);

  if (
    options.probeTypes &&
    typeof spec.type === 'string' &&
    !heartbeat &&
    fine('type')
  ) {
    const probeType = options.probeTypes.get(spec.type);
    if (spec.type !== '' && !probeType) {
      const known = options.probeTypes.list();
      report(
        [...root, 'type'],
        `unknown probe type ${JSON.stringify(spec.type)}; the known types are ${
          known.length > 0 ? [...known].sort().join(', ') : '(none)'
        }`,
      );
    }
    if (probeType && (spec.config === undefined || isObject(spec.config))) {
      problems.push(...findProbeConfigProblems(spec, probeType, root));
    }
  }

  if (options.secrets && typeof spec.type === 'string' && !heartbeat) {
    problems.push(...findSecretUseProblems(spec, options, root));
  }

  if (heartbeat) {
    checkHeartbeat(spec, options, root, report, fine);
  } else {
    for (const field of HEARTBEAT_FIELDS) {
      if (spec[field] !== undefined && fine(field)) {
        report(
          [...root, field],
          `only a heartbeat check has ${field}; a ${String(
            spec.type,
          )} check runs every interval`,
        );
      }
    }
    checkTiming(spec, options, root, report, fine);
  }

  // Where the target goes may not depend on other teams' values: the
  // template is read by the probe type's syntax (see findTargetTemplateProblems).
  const targetOptions: TargetTemplateOptions = {
    probeType: typeof spec.type === 'string' ? spec.type : undefined,
    allowPlaceholderHosts: options.allowPlaceholderHosts,
  };
  if (typeof spec.target === 'string' && fine('target')) {
    for (const reason of findTargetTemplateProblems(
      spec.target,
      targetOptions,
    )) {
      report([...root, 'target'], reason);
    }
  }

  for (const problem of validateCheckEnvironmentNames(spec)) {
    const path =
      problem.field === 'environments'
        ? [...root, 'environments', problem.index]
        : [...root, 'environmentOverrides', problem.key];
    // An empty key is the schema's to report, at the overrides themselves.
    const emptyKey = problem.field === 'environmentOverrides' && !problem.key;
    if (!seenPaths.has(path) && !emptyKey) {
      report(path, problem.reason);
    }
  }

  if (isObject(spec.environmentOverrides)) {
    checkOverrides(
      spec.environmentOverrides,
      root,
      report,
      seenPaths,
      targetOptions,
    );
  }

  if (Array.isArray(spec.conditions)) {
    for (const problem of validateConditions(spec.conditions)) {
      report(
        [...root, 'conditions', problem.index],
        `${JSON.stringify(abbreviate(problem.condition))}, at position ${
          problem.position
        }: ${problem.reason}`,
      );
    }
  }

  const namespace = options.defaultNamespace ?? 'default';
  for (const [field, kind, role] of REF_LISTS) {
    const refs = spec[field];
    if (!Array.isArray(refs)) {
      continue;
    }
    refs.forEach((ref, index) => {
      if (typeof ref !== 'string' || ref === '' || !fine(field, index)) {
        return;
      }
      const reason = refProblem(ref, kind, namespace, role);
      if (reason) {
        report([...root, field, index], reason);
      }
    });
  }

  if (typeof spec.owner === 'string' && spec.owner !== '' && fine('owner')) {
    try {
      parseEntityRef(spec.owner, { defaultKind: 'group' });
    } catch (error) {
      report([...root, 'owner'], (error as Error).message);
    }
  }
  return problems;
}

/**
 * Problems as one sentence each: `spec.interval: "10x" is not a duration: ...`.
 * @public
 */
export function formatSpecProblems(
  problems: HealthCheckSpecProblem[],
): string[] {
  return problems.map(({ path, reason }) =>
    path.length > 0 ? `${formatProblemPath(path)}: ${reason}` : reason,
  );
}

/** The fields a heartbeat check has no use for: it is pinged, not probed. */
const PROBE_FIELDS = [
  ['target', 'the job pings the check instead (see its ping URLs)'],
  ['interval', 'give period (or schedule) and grace instead'],
  ['timeout', 'a ping takes no time to judge'],
  ['config', 'there is no probe to configure'],
] as const;

/**
 * A heartbeat check's timing: a period or a schedule (not both), its time
 * zone, and a grace; and none of a probe's fields.
 */
function checkHeartbeat(
  spec: Record<string, unknown>,
  options: HealthCheckSpecValidationOptions,
  root: ProblemPath,
  report: (path: ProblemPath, reason: string) => void,
  fine: (...field: ProblemPath) => boolean,
) {
  for (const [field, why] of PROBE_FIELDS) {
    if (spec[field] !== undefined && fine(field)) {
      report([...root, field], `a heartbeat check has no ${field}: ${why}`);
    }
  }
  if (isObject(spec.environmentOverrides)) {
    for (const key of Object.keys(spec.environmentOverrides)) {
      if (fine('environmentOverrides', key)) {
        report(
          [...root, 'environmentOverrides', key],
          'a heartbeat check has no target or config to override; each environment has its own ping URL',
        );
      }
    }
  }
  if (spec.period === undefined && spec.schedule === undefined) {
    report(
      [...root, 'period'],
      'is required: how often the job pings, such as 1h (or give schedule, a cron expression)',
    );
  }
  if (spec.period !== undefined && spec.schedule !== undefined) {
    report([...root, 'schedule'], 'give either period or schedule, not both');
  }
  const minIntervalMs = options.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;
  checkHeartbeatDuration(spec, 'period', root, report, fine, {
    minMs: minIntervalMs,
    maxMs: HEARTBEAT_LIMITS.maxPeriodMs,
  });
  checkHeartbeatDuration(spec, 'grace', root, report, fine, {
    minMs: 1_000,
    maxMs: HEARTBEAT_LIMITS.maxGraceMs,
  });
  if (isText(spec.schedule) && fine('schedule')) {
    const fields = spec.schedule.trim().split(/\s+/).length;
    if (fields !== 5 && fields !== 6) {
      report(
        [...root, 'schedule'],
        `${JSON.stringify(spec.schedule)} has ${fields} field${
          fields === 1 ? '' : 's'
        }; a cron expression has 5 (minute hour day month weekday), or 6 with seconds first`,
      );
    } else {
      const reason = options.cron?.cronProblem(spec.schedule);
      if (reason) report([...root, 'schedule'], reason);
    }
  }
  if (isText(spec.timezone) && fine('timezone')) {
    if (spec.schedule === undefined) {
      report(
        [...root, 'timezone'],
        'is the time zone of schedule; a check with a period has none',
      );
    } else if (!IANAZone.isValidZone(spec.timezone)) {
      report(
        [...root, 'timezone'],
        `${JSON.stringify(
          spec.timezone,
        )} is not an IANA time zone, such as Europe/Paris or UTC`,
      );
    }
  }
}

function checkHeartbeatDuration(
  spec: Record<string, unknown>,
  field: 'period' | 'grace',
  root: ProblemPath,
  report: (path: ProblemPath, reason: string) => void,
  fine: (...field: ProblemPath) => boolean,
  bounds: { minMs: number; maxMs: number },
) {
  const text = spec[field];
  if (!isText(text) || !fine(field)) {
    return;
  }
  const ms = parseDuration(text);
  if (ms < bounds.minMs) {
    report(
      [...root, field],
      `${text} is below the shortest ${field}, ${formatDuration(bounds.minMs)}`,
    );
  } else if (ms > bounds.maxMs) {
    report(
      [...root, field],
      `${text} is longer than the longest ${field}, ${formatDuration(
        bounds.maxMs,
      )}`,
    );
  }
}

function checkTiming(
  spec: Record<string, unknown>,
  options: HealthCheckSpecValidationOptions,
  root: ProblemPath,
  report: (path: ProblemPath, reason: string) => void,
  fine: (...field: ProblemPath) => boolean,
) {
  let intervalMs: number | undefined;
  if (
    fine('interval') &&
    (spec.interval === undefined || isText(spec.interval))
  ) {
    intervalMs = resolveCheckTiming({
      interval: spec.interval as string | undefined,
    }).intervalMs;
    const minIntervalMs = options.minIntervalMs ?? DEFAULT_MIN_INTERVAL_MS;
    if (intervalMs < minIntervalMs) {
      report(
        [...root, 'interval'],
        `${formatDuration(
          intervalMs,
        )} is below the minimum interval of ${formatDuration(minIntervalMs)}${
          spec.interval === undefined ? ' (it is the default)' : ''
        }`,
      );
    }
  }
  if (!fine('timeout') || !isText(spec.timeout)) {
    return;
  }
  const timeoutMs = parseDuration(spec.timeout);
  const { maxTimeoutMs } = HEALTHCHECK_SPEC_LIMITS;
  if (timeoutMs === 0) {
    report([...root, 'timeout'], 'must be longer than 0s');
  } else if (timeoutMs > maxTimeoutMs) {
    report(
      [...root, 'timeout'],
      `${spec.timeout} is longer than the longest timeout, ${formatDuration(
        maxTimeoutMs,
      )}`,
    );
  } else if (intervalMs !== undefined && timeoutMs > intervalMs) {
    report(
      [...root, 'timeout'],
      `${spec.timeout} is longer than the interval, ${formatDuration(
        intervalMs,
      )}${
        spec.interval === undefined ? ' (the default)' : ''
      }: a run must end before the next one is due`,
    );
  }
}

/**
 * The check's config and target as each environment sees them: its own, and
 * each override's merged over it.
 */
function configVariants(
  spec: Record<string, unknown>,
  root: ProblemPath,
): Array<{
  config: unknown;
  target: unknown;
  path: ProblemPath;
  /** Whether this is an override with a config of its own. */
  ownConfig: boolean;
}> {
  const variants = [
    {
      config: spec.config ?? {},
      target: spec.target,
      path: [...root, 'config'],
      ownConfig: false,
    },
  ];
  const overrides = spec.environmentOverrides;
  if (isObject(overrides)) {
    for (const [name, override] of Object.entries(overrides)) {
      if (!isObject(override)) {
        continue;
      }
      const merged = applyEnvironmentOverride(
        spec as unknown as HealthCheckSpec,
        name,
      );
      variants.push({
        config: merged.config,
        target: merged.target,
        path: [...root, 'environmentOverrides', name, 'config'],
        ownConfig: isObject(override.config),
      });
    }
  }
  return variants;
}

/**
 * Secret references the check may not use: unknown, not for its namespace,
 * or bound for an origin their `allowedOrigins` do not include (where the
 * target fixes its origin; else each slice's is judged when derived).
 */
function findSecretUseProblems(
  spec: Record<string, unknown>,
  options: HealthCheckSpecValidationOptions,
  root: ProblemPath,
): HealthCheckSpecProblem[] {
  const type = spec.type as string;
  const namespaces =
    options.source === 'api'
      ? systemNamespaces(spec.systems)
      : [options.defaultNamespace ?? 'default'];
  const found = new Map<string, HealthCheckSpecProblem>();
  for (const variant of configVariants(spec, root)) {
    if (typeof variant.target !== 'string' || !isObject(variant.config)) {
      continue;
    }
    for (const namespace of namespaces) {
      for (const problem of options.secrets!.findUseProblems(variant.config, {
        probeType: type,
        target: variant.target,
        namespace,
        path: variant.path,
      })) {
        found.set(
          `${formatProblemPath(problem.path)}\n${problem.reason}`,
          problem,
        );
      }
    }
  }
  return [...found.values()];
}

/** The namespaces of the systems a check names (each once), as refs resolve them. */
function systemNamespaces(systems: unknown): string[] {
  const namespaces = new Set<string>();
  for (const ref of Array.isArray(systems) ? systems : []) {
    try {
      namespaces.add(
        parseEntityRef(String(ref), {
          defaultKind: 'system',
          defaultNamespace: 'default',
        }).namespace.toLowerCase(),
      );
    } catch {
      // A ref that does not parse is reported with the systems.
    }
  }
  return namespaces.size > 0 ? [...namespaces] : ['default'];
}

/**
 * Problems of a spec's `config` against its probe type, for the check's own
 * config and for each environment's merged over it (an override may break
 * what the base gets right): the type's schema first, then, where the
 * schema is met, what only the type can judge (`validateConfig`).
 */
function findProbeConfigProblems(
  spec: Record<string, unknown>,
  probeType: NonNullable<ReturnType<ProbeTypeLookup['get']>>,
  root: ProblemPath,
): HealthCheckSpecProblem[] {
  if (!probeType.configSchema && !probeType.validateConfig) {
    return [];
  }
  // The check's own config, and each environment's that merges its own
  // over it: an override may break what the base gets right.
  const configs = configVariants(spec, root).filter(
    (variant, index) => index === 0 || variant.ownConfig,
  );
  return configs.flatMap(({ config, path }) => {
    const schemaProblems = validateProbeConfig(probeType, config);
    const found =
      schemaProblems.length > 0
        ? schemaProblems
        : probeType.validateConfig?.(config) ?? [];
    return found.map(problem => ({
      path: [...path, ...configPathSegments(problem.path)],
      reason: problem.reason,
    }));
  });
}

function checkOverrides(
  overrides: Record<string, unknown>,
  root: ProblemPath,
  report: (path: ProblemPath, reason: string) => void,
  seenPaths: SeenPaths,
  targetOptions: TargetTemplateOptions,
) {
  const base = [...root, 'environmentOverrides'];
  const keyByName = new Map<string, string>();
  for (const key of Object.keys(overrides).sort()) {
    const name = canonicalEnvironmentName(key);
    const earlier = keyByName.get(name);
    if (earlier !== undefined) {
      report(
        [...base, key],
        `names the same environment as ${JSON.stringify(
          earlier,
        )} (names are compared without regard to case); merge the two`,
      );
    } else {
      keyByName.set(name, key);
    }
    const override = overrides[key];
    const targetPath = [...base, key, 'target'];
    if (
      isObject(override) &&
      typeof override.target === 'string' &&
      !seenPaths.has(targetPath)
    ) {
      for (const reason of findTargetTemplateProblems(
        override.target,
        targetOptions,
      )) {
        report(targetPath, reason);
      }
    }
  }
}

function refProblem(
  ref: string,
  kind: string,
  defaultNamespace: string,
  role: string,
): string | undefined {
  try {
    const parsed = parseEntityRef(ref, { defaultKind: kind, defaultNamespace });
    if (parsed.kind.toLowerCase() !== kind) {
      return `${JSON.stringify(ref)} refers to a ${parsed.kind}; ${role}`;
    }
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

const JSON_TYPE_NAMES: Record<string, string> = {
  string: 'a string',
  integer: 'a whole number',
  number: 'a number',
  boolean: 'true or false',
  array: 'a list',
  object: 'an object',
};

const REQUIRED_REASONS: Record<string, string> = {
  type: 'is required: the probe type, such as http or tcp',
  target:
    'is required: what to probe, such as https://{{ system.name }}.example.com/health',
  systems: 'is required: the refs of the systems the check monitors',
  grace:
    'is required: how late a ping may be before the slice fails, such as 5m',
};

function describeSchemaError(
  error: ErrorObject,
  spec: unknown,
  root: ProblemPath,
): HealthCheckSpecProblem | undefined {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map(s => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  // Conditions have their own validator, which names position and reason.
  if (segments[0] === 'conditions' && segments.length > 1) {
    return undefined;
  }
  // propertyNames reports each bad key twice; the outer error is enough.
  // `if` only says its branch failed; the branch's own error says how.
  if (error.propertyName !== undefined || error.keyword === 'if') {
    return undefined;
  }
  const path = pathFromSegments(root, segments, spec);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        path: [...path, String(params.missingProperty)],
        reason:
          REQUIRED_REASONS[String(params.missingProperty)] ?? 'is required',
      };
    case 'additionalProperties': {
      const known = Object.keys(
        (error.parentSchema as { properties?: object })?.properties ?? {},
      );
      return {
        path: [...path, String(params.additionalProperty)],
        reason: `unknown field; the fields here are ${known.join(', ')}`,
      };
    }
    case 'type':
      return {
        path,
        reason: `must be ${
          JSON_TYPE_NAMES[String(params.type)] ?? String(params.type)
        }, not ${describeValue(error.data)}`,
      };
    case 'format':
      return { path, reason: durationReason(error.data) };
    case 'minLength':
      return { path, reason: 'must not be empty' };
    case 'minItems':
      return { path, reason: 'must not be an empty list' };
    case 'maxItems':
      return {
        path,
        reason: `lists ${
          (error.data as unknown[]).length
        } items; at most ${String(params.limit)} are allowed`,
      };
    case 'maxProperties':
      return {
        path,
        reason: `has ${
          Object.keys(error.data as object).length
        } entries; at most ${String(params.limit)} are allowed`,
      };
    case 'maxLength':
      return {
        path,
        reason: `is ${
          (error.data as string).length
        } characters long; at most ${String(params.limit)} are allowed`,
      };
    case 'maximum':
      return {
        path,
        reason: `must be at most ${String(params.limit)}, not ${String(
          error.data,
        )}`,
      };
    case 'minimum':
      return {
        path,
        reason: `must be at least ${String(params.limit)}, not ${String(
          error.data,
        )}`,
      };
    case 'propertyNames':
      return {
        path,
        reason: `${JSON.stringify(
          params.propertyName,
        )} is not a valid key here`,
      };
    default:
      return { path, reason: error.message ?? error.keyword };
  }
}

function durationReason(value: unknown): string {
  try {
    parseDuration(value as string);
    return 'is not a duration';
  } catch (error) {
    const reason =
      error instanceof DurationParseError ? error.reason : String(error);
    return `${JSON.stringify(value)} is not a duration: ${reason}`;
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

/** `['spec', 'environmentOverrides', 'eu west', 'target']`, `['spec', 'systems', 0]`. */
function pathFromSegments(
  root: ProblemPath,
  segments: string[],
  spec: unknown,
): ProblemPath {
  const path = [...root];
  let value: unknown = spec;
  for (const segment of segments) {
    if (Array.isArray(value)) {
      path.push(Number(segment));
      value = value[Number(segment)];
    } else {
      path.push(segment);
      value = isObject(value) ? value[segment] : undefined;
    }
  }
  return path;
}

/**
 * A probe type's dotted path into its config (`headers.Authorization`,
 * `answers.0`) as keys and indexes.
 */
function configPathSegments(path: string): ProblemPath {
  return path
    ? path.split('.').map(part => (/^\d+$/.test(part) ? Number(part) : part))
    : [];
}

/** Long text cut to its first 60 characters, for a readable reason. */
function abbreviate(text: string): string {
  return text.length > 80 ? `${text.slice(0, 60)}…` : text;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown): value is string {
  return typeof value === 'string';
}
