import {
  formatSpecProblems,
  HealthCheckSpecProblem,
  HealthCheckSpecValidationOptions,
  validateHealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import { InputError } from '@backstage/errors';
import { HealthCheckSpec } from '@vigil/plugin-healthcheck-common';
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
  /**
   * What the spec is validated against (probe types, their config, the
   * minimum interval); `rootPath` is always `spec`.
   */
  validation: Omit<HealthCheckSpecValidationOptions, 'rootPath'>;
}

/**
 * Reads the body of `POST /v1/checks` or `PUT /v1/checks/:id`:
 * `{ id?, title?, spec, revision? }`, where `spec` is the same model as a
 * HealthCheck entity's spec and is validated the same way.
 *
 * @throws InvalidCheckError listing every problem, each with its path.
 * @internal
 */
export function parseCheckRequest(
  body: unknown,
  options: CheckRequestOptions,
): CheckRequest {
  const problems: HealthCheckSpecProblem[] = [];
  const report = (field: string, reason: string) =>
    problems.push({ path: [field], reason });
  const fields = options.operation === 'create' ? CREATE_FIELDS : UPDATE_FIELDS;

  if (!isObject(body)) {
    throw new InvalidCheckError([
      {
        path: [],
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

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
