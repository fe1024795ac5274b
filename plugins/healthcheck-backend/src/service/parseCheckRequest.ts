import { InputError } from '@backstage/errors';
import {
  applyEnvironmentOverride,
  HealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import type { ProbeType } from '@vigil/plugin-healthcheck-node';
import {
  formatSpecProblems,
  HealthCheckSpecProblem,
  HealthCheckSpecValidationOptions,
  validateHealthCheckSpec,
} from '../catalog/validateHealthCheckSpec';
import { validateProbeConfig } from '../probes/probeConfigValidation';
import { checkIdFromTitle, isApiCheckId } from './checkIds';

/** @internal */
export const MAX_CHECK_TITLE_LENGTH = 255;

const CREATE_FIELDS = ['id', 'title', 'spec'];
const UPDATE_FIELDS = ['id', 'title', 'spec', 'revision'];

/**
 * A request body that is not a valid check: a 400 whose message lists every
 * problem, one per line, and whose `problems` hold them as `{ path, reason }`
 * for clients that show each next to its field. Backstage's error handler
 * serializes both (it keeps an error's own fields), and the name stays
 * `InputError`, so the status is 400 and clients need nothing new.
 * @internal
 */
export class InvalidCheckError extends InputError {
  readonly problems: HealthCheckSpecProblem[];

  constructor(problems: HealthCheckSpecProblem[]) {
    const lines = formatSpecProblems(problems);
    super(
      lines.length === 1
        ? `Invalid check: ${lines[0]}`
        : `Invalid check, ${lines.length} problems:\n${lines
            .map(line => `- ${line}`)
            .join('\n')}`,
    );
    this.problems = problems;
  }
}

/**
 * A check request that passed validation.
 * @internal
 */
export interface CheckRequest {
  /** The id: given, derived from the title (on create), or the path's (on update). */
  id: string;
  /** Whether `id` was derived from the title, so a taken one may be numbered. */
  idDerivedFromTitle: boolean;
  title?: string;
  spec: HealthCheckSpec;
  /** On update: the revision the caller read, to refuse a stale write. */
  revision?: number;
}

/**
 * How a check request is read.
 * @internal
 */
export interface CheckRequestOptions {
  /** `create` for POST, `update` for PUT (which also takes `revision`). */
  operation: 'create' | 'update';
  /** On update, the id in the path: a body `id` must equal it. */
  pathId?: string;
  /** What the spec is validated against; `rootPath` is always `spec`. */
  validation: Omit<HealthCheckSpecValidationOptions, 'rootPath'>;
  /** The probe types, to check each one's `config` against its schema. */
  probeTypes?: {
    get(
      type: string,
    ): Pick<ProbeType<any>, 'type' | 'configSchema'> | undefined;
  };
}

/**
 * Reads the body of `POST /v1/checks` or `PUT /v1/checks/:id`:
 * `{ id?, title?, spec, revision? }`, where `spec` is the same model as a
 * HealthCheck entity's spec and is validated the same way, then its `config`
 * (and each environment's merged `config`) against the probe type's schema.
 *
 * @throws InvalidCheckError listing every problem, each with its path.
 * @internal
 */
export function parseCheckRequest(
  body: unknown,
  options: CheckRequestOptions,
): CheckRequest {
  const problems: HealthCheckSpecProblem[] = [];
  const report = (path: string, reason: string) =>
    problems.push({ path, reason });
  const fields = options.operation === 'create' ? CREATE_FIELDS : UPDATE_FIELDS;

  if (!isObject(body)) {
    throw new InvalidCheckError([
      {
        path: '',
        reason: `the body must be a JSON object with the fields ${fields.join(
          ', ',
        )}`,
      },
    ]);
  }

  for (const key of Object.keys(body)) {
    if (!fields.includes(key)) {
      report(key, `unknown field; the fields here are ${fields.join(', ')}`);
    }
  }

  const title = readTitle(body.title, report);
  const id = readId(body.id, title, options, report);
  const revision =
    options.operation === 'update'
      ? readRevision(body.revision, report)
      : undefined;

  if (body.spec === undefined) {
    report('spec', 'is required: the check, as in a HealthCheck entity');
  } else {
    problems.push(
      ...validateHealthCheckSpec(body.spec, {
        ...options.validation,
        rootPath: 'spec',
      }),
    );
    if (options.probeTypes && isObject(body.spec)) {
      problems.push(...findProbeConfigProblems(body.spec, options.probeTypes));
    }
  }

  if (problems.length > 0) {
    throw new InvalidCheckError(problems);
  }
  return {
    id: id!.value,
    idDerivedFromTitle: id!.derived,
    title,
    spec: body.spec as HealthCheckSpec,
    revision,
  };
}

function readTitle(
  value: unknown,
  report: (path: string, reason: string) => void,
): string | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'string') {
    report('title', 'must be a string');
    return undefined;
  }
  if (value.trim() === '') {
    report('title', 'must not be blank; leave it out instead');
    return undefined;
  }
  if (value.length > MAX_CHECK_TITLE_LENGTH) {
    report(
      'title',
      `must be at most ${MAX_CHECK_TITLE_LENGTH} characters, not ${value.length}`,
    );
    return undefined;
  }
  return value;
}

function readId(
  value: unknown,
  title: string | undefined,
  options: CheckRequestOptions,
  report: (path: string, reason: string) => void,
): { value: string; derived: boolean } | undefined {
  if (options.operation === 'update') {
    const pathId = options.pathId ?? '';
    if (value !== undefined && value !== pathId) {
      report(
        'id',
        `is ${JSON.stringify(value)} but the path names ${JSON.stringify(
          pathId,
        )}; a check's id cannot change`,
      );
    }
    return { value: pathId, derived: false };
  }
  if (value !== undefined) {
    if (typeof value !== 'string' || !isApiCheckId(value)) {
      report(
        'id',
        `${JSON.stringify(
          value,
        )} is not a check id: use 1 to 63 lower-case letters, digits and dashes, starting with a letter or digit, such as payments-http`,
      );
      return undefined;
    }
    return { value, derived: false };
  }
  if (title === undefined) {
    report('id', 'is required when there is no title to derive it from');
    return undefined;
  }
  const derived = checkIdFromTitle(title);
  if (derived === undefined) {
    report(
      'id',
      `cannot be derived from the title ${JSON.stringify(
        title,
      )}, which has no Latin letters or digits; give one`,
    );
    return undefined;
  }
  return { value: derived, derived: true };
}

function readRevision(
  value: unknown,
  report: (path: string, reason: string) => void,
): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    report(
      'revision',
      `must be the whole number 1 or more that the check had when you read it, not ${JSON.stringify(
        value,
      )}`,
    );
    return undefined;
  }
  return value;
}

/**
 * Problems of a spec's `config` against its probe type's schema, for the
 * check's own config and for each environment's merged over it (an override
 * may break what the base gets right). Nothing when the type is unknown or
 * `config` is not an object: the spec's own validation reports those.
 * @internal
 */
export function findProbeConfigProblems(
  spec: Record<string, unknown>,
  probeTypes: NonNullable<CheckRequestOptions['probeTypes']>,
): HealthCheckSpecProblem[] {
  const probeType =
    typeof spec.type === 'string' ? probeTypes.get(spec.type) : undefined;
  if (!probeType?.configSchema) {
    return [];
  }
  if (spec.config !== undefined && !isObject(spec.config)) {
    return [];
  }
  const problems = configProblems(probeType, spec.config ?? {}, 'spec.config');

  const overrides = spec.environmentOverrides;
  if (isObject(overrides)) {
    for (const [name, override] of Object.entries(overrides)) {
      if (!isObject(override) || !isObject(override.config)) {
        continue;
      }
      const { config } = applyEnvironmentOverride(
        spec as unknown as HealthCheckSpec,
        name,
      );
      problems.push(
        ...configProblems(
          probeType,
          config,
          `${fieldPath('spec.environmentOverrides', name)}.config`,
        ),
      );
    }
  }
  return problems;
}

/** `validateProbeConfig` says `where: reason`, where is a dotted path or the type. */
function configProblems(
  probeType: Pick<ProbeType<any>, 'type' | 'configSchema'>,
  config: unknown,
  basePath: string,
): HealthCheckSpecProblem[] {
  return validateProbeConfig(probeType, config).map(line => {
    const colon = line.indexOf(': ');
    const where = colon < 0 ? probeType.type : line.slice(0, colon);
    const reason = colon < 0 ? line : line.slice(colon + 2);
    return {
      path: where === probeType.type ? basePath : `${basePath}.${where}`,
      reason,
    };
  });
}

/** Written as `validateHealthCheckSpec` writes paths: `a.prod`, `a["eu west"]`. */
function fieldPath(base: string, key: string): string {
  return /^[A-Za-z_$][\w$-]*$/.test(key)
    ? `${base}.${key}`
    : `${base}[${JSON.stringify(key)}]`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
