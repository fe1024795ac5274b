import { makeValidator } from '@backstage/catalog-model';
import { InputError } from '@backstage/errors';
import {
  canonicalEntityRef,
  canonicalEnvironmentName,
} from '@vigil/plugin-healthcheck-common';

/**
 * What a badge shows: the health status, the up-time over a window, a
 * response-time percentile over a window, or a service-level objective's
 * attainment against its target.
 * @internal
 */
export type BadgeKind = 'status' | 'uptime' | 'response-time' | 'slo';

/**
 * The period an up-time or response-time badge covers, ending now.
 * @internal
 */
export type BadgeWindow = '24h' | '7d' | '30d';

/**
 * `svg` for an image, `json` for a shields.io endpoint badge.
 * @internal
 */
export type BadgeFormat = 'svg' | 'json';

/**
 * The badge-maker (shields.io) styles.
 * @internal
 */
export type BadgeStyle =
  | 'flat'
  | 'flat-square'
  | 'plastic'
  | 'for-the-badge'
  | 'social';

/**
 * Which response-time percentile a badge shows.
 * @internal
 */
export type BadgePercentile = 'p50' | 'p95';

/** @internal */
export const BADGE_KINDS: readonly BadgeKind[] = [
  'status',
  'uptime',
  'response-time',
  'slo',
];
/** @internal */
export const BADGE_WINDOWS: readonly BadgeWindow[] = ['24h', '7d', '30d'];
/** @internal */
export const BADGE_FORMATS: readonly BadgeFormat[] = ['svg', 'json'];
/** @internal */
export const BADGE_STYLES: readonly BadgeStyle[] = [
  'flat',
  'flat-square',
  'plastic',
  'for-the-badge',
  'social',
];
/** @internal */
export const BADGE_PERCENTILES: readonly BadgePercentile[] = ['p50', 'p95'];

/**
 * The window when none is given. Up-time defaults to a week, where one short
 * outage does not paint the badge red for a day; response time to a day,
 * because it is read as "how fast is it now".
 * @internal
 */
export const DEFAULT_BADGE_WINDOWS: Readonly<
  Record<'uptime' | 'response-time', BadgeWindow>
> = { uptime: '7d', 'response-time': '24h' };

/** How long each window is, in ms. @internal */
export const BADGE_WINDOW_MS: Readonly<Record<BadgeWindow, number>> = {
  '24h': 24 * 60 * 60 * 1000,
  '7d': 7 * 24 * 60 * 60 * 1000,
  '30d': 30 * 24 * 60 * 60 * 1000,
};

/** The longest `label` override, in characters. @internal */
export const MAX_BADGE_LABEL_LENGTH = 64;
/** The longest `environment`, in characters. @internal */
export const MAX_BADGE_ENVIRONMENT_LENGTH = 100;

const QUERY_PARAMETERS = [
  'kind',
  'window',
  'percentile',
  'objective',
  'environment',
  'format',
  'style',
  'label',
] as const;

/**
 * What every badge request has, whatever its kind.
 * @internal
 */
export interface BadgeRequestBase {
  /** Canonical (lower-case) ref of the system, `system:default/payments`. */
  systemRef: string;
  /** Canonical (lower-case) environment name; absent for the whole system. */
  environment?: string;
  format: BadgeFormat;
  /** Absent for badge-maker's default, `flat`. */
  style?: BadgeStyle;
  /** Replaces the computed label; may be empty for a message-only badge. */
  label?: string;
}

/**
 * A badge request that passed validation.
 * @internal
 */
export type BadgeRequest = BadgeRequestBase &
  (
    | { kind: 'status' }
    | { kind: 'uptime'; window: BadgeWindow }
    | {
        kind: 'response-time';
        window: BadgeWindow;
        percentile: BadgePercentile;
      }
    | {
        kind: 'slo';
        /** Canonical ServiceLevelObjective ref; the worst objective when absent. */
        objective?: string;
      }
  );

/**
 * One thing wrong with a badge request: the path or query parameter, and why.
 * The same shape as the checks API's problems, so clients show both alike.
 * @internal
 */
export interface BadgeRequestProblem {
  path: string;
  reason: string;
}

/**
 * The outcome of {@link parseBadgeRequest}.
 * @internal
 */
export type BadgeRequestParseResult =
  | { ok: true; request: BadgeRequest }
  | { ok: false; problems: BadgeRequestProblem[] };

/**
 * A badge request that is not valid: a 400 (the name stays `InputError`)
 * whose message lists every problem, one per line, and whose `problems` hold
 * them as `{ path, reason }`.
 * @internal
 */
export class InvalidBadgeRequestError extends InputError {
  readonly problems: BadgeRequestProblem[];

  constructor(problems: BadgeRequestProblem[]) {
    const lines = problems.map(p => `${p.path}: ${p.reason}`);
    super(
      lines.length === 1
        ? `Invalid badge request: ${lines[0]}`
        : `Invalid badge request, ${lines.length} problems:\n${lines
            .map(line => `- ${line}`)
            .join('\n')}`,
    );
    this.problems = problems;
  }
}

const validator = makeValidator();

function oneOf(values: readonly string[]): string {
  return values.join(', ');
}

/**
 * Reads and validates a badge request: the path's `namespace` and `name`,
 * and the query (`kind`, `window`, `percentile`, `objective`,
 * `environment`, `format`, `style`, `label`). Unknown and repeated parameters are problems too, so a
 * misspelt `enviroment=production` is not silently a system-wide badge.
 * Every problem is reported, not just the first.
 * @internal
 */
export function parseBadgeRequest(
  params: { namespace?: unknown; name?: unknown },
  query: Record<string, unknown>,
): BadgeRequestParseResult {
  const problems: BadgeRequestProblem[] = [];

  // Entity refs compare without regard to case; the catalog's namespaces
  // are lower case.
  const namespace =
    typeof params.namespace === 'string'
      ? params.namespace.toLowerCase()
      : params.namespace;
  if (!validator.isValidNamespace(namespace)) {
    problems.push({
      path: 'namespace',
      reason: `${JSON.stringify(
        params.namespace,
      )} is not a valid entity namespace`,
    });
  }
  if (!validator.isValidEntityName(params.name)) {
    problems.push({
      path: 'name',
      reason: `${JSON.stringify(params.name)} is not a valid entity name`,
    });
  }

  for (const key of Object.keys(query)) {
    if (!(QUERY_PARAMETERS as readonly string[]).includes(key)) {
      problems.push({
        path: key,
        reason: `is not a badge parameter; they are ${oneOf(QUERY_PARAMETERS)}`,
      });
    }
  }

  /** The parameter as one string; `undefined` when absent or not a string. */
  function single(key: (typeof QUERY_PARAMETERS)[number]): string | undefined {
    const value = query[key];
    if (value === undefined) {
      return undefined;
    }
    if (Array.isArray(value)) {
      problems.push({ path: key, reason: 'is given more than once' });
      return undefined;
    }
    if (typeof value !== 'string') {
      problems.push({ path: key, reason: 'must be a plain string' });
      return undefined;
    }
    return value;
  }

  function choice<T extends string>(
    key: (typeof QUERY_PARAMETERS)[number],
    values: readonly T[],
  ): T | undefined | null {
    const value = single(key);
    if (value === undefined) {
      return query[key] === undefined ? undefined : null;
    }
    if (!(values as readonly string[]).includes(value)) {
      problems.push({
        path: key,
        reason: `must be one of ${oneOf(values)}, not ${JSON.stringify(value)}`,
      });
      return null;
    }
    return value as T;
  }

  // `null` below: given but invalid (already a problem); `undefined`: absent.
  const kind = choice('kind', BADGE_KINDS);
  const window = choice('window', BADGE_WINDOWS);
  const percentile = choice('percentile', BADGE_PERCENTILES);
  const format = choice('format', BADGE_FORMATS);
  const style = choice('style', BADGE_STYLES);

  const effectiveKind: BadgeKind | null = kind === undefined ? 'status' : kind;
  if (
    window !== undefined &&
    (effectiveKind === 'status' || effectiveKind === 'slo')
  ) {
    problems.push({
      path: 'window',
      reason:
        effectiveKind === 'slo'
          ? 'does not apply to kind slo: an objective has its own window'
          : 'applies only to kind uptime or response-time',
    });
  }
  let objective: string | undefined;
  const rawObjective = single('objective');
  if (rawObjective !== undefined) {
    objective = canonicalEntityRef(rawObjective, {
      defaultKind: 'servicelevelobjective',
      defaultNamespace: typeof namespace === 'string' ? namespace : 'default',
    });
    if (effectiveKind !== null && effectiveKind !== 'slo') {
      problems.push({ path: 'objective', reason: 'applies only to kind slo' });
    } else if (!objective) {
      problems.push({
        path: 'objective',
        reason: `${JSON.stringify(
          rawObjective,
        )} is not an entity ref, such as servicelevelobjective:default/payments-availability`,
      });
    }
  }
  if (
    percentile !== undefined &&
    effectiveKind !== null &&
    effectiveKind !== 'response-time'
  ) {
    problems.push({
      path: 'percentile',
      reason: 'applies only to kind response-time',
    });
  }

  let environment: string | undefined;
  const rawEnvironment = single('environment');
  if (rawEnvironment !== undefined) {
    environment = canonicalEnvironmentName(rawEnvironment);
    if (environment === '') {
      problems.push({
        path: 'environment',
        reason: 'must not be empty; leave it out for the whole system',
      });
    } else if (environment.length > MAX_BADGE_ENVIRONMENT_LENGTH) {
      problems.push({
        path: 'environment',
        reason: `must be at most ${MAX_BADGE_ENVIRONMENT_LENGTH} characters`,
      });
    }
  }

  const label = single('label');
  if (label !== undefined) {
    if (label.length > MAX_BADGE_LABEL_LENGTH) {
      problems.push({
        path: 'label',
        reason: `must be at most ${MAX_BADGE_LABEL_LENGTH} characters`,
      });
    }
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]/.test(label)) {
      problems.push({
        path: 'label',
        reason: 'must not contain control characters',
      });
    }
  }

  if (problems.length > 0 || effectiveKind === null || format === null) {
    return { ok: false, problems };
  }

  const base: BadgeRequestBase = {
    systemRef: `system:${String(namespace)}/${String(
      params.name,
    ).toLowerCase()}`,
    ...(environment !== undefined && { environment }),
    format: format ?? 'svg',
    ...(style && { style }),
    ...(label !== undefined && { label }),
  };
  switch (effectiveKind) {
    case 'uptime':
      return {
        ok: true,
        request: {
          ...base,
          kind: 'uptime',
          window: window ?? DEFAULT_BADGE_WINDOWS.uptime,
        },
      };
    case 'response-time':
      return {
        ok: true,
        request: {
          ...base,
          kind: 'response-time',
          window: window ?? DEFAULT_BADGE_WINDOWS['response-time'],
          percentile: percentile ?? 'p95',
        },
      };
    case 'slo':
      return {
        ok: true,
        request: { ...base, kind: 'slo', ...(objective && { objective }) },
      };
    default:
      return { ok: true, request: { ...base, kind: 'status' } };
  }
}
