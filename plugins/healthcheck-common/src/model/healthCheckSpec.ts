import { JsonObject } from '@backstage/types';
import { ConditionSpec, MAX_CONDITION_LENGTH } from '../conditions';
import { parseDuration } from './duration';
import {
  HEARTBEAT_LIMITS,
  heartbeatCheckEveryMs,
  isHeartbeatSpec,
} from './heartbeat';

/**
 * What one environment changes in a check: another target, and fields of the
 * probe type's `config` merged over the check's own as a JSON merge patch
 * (RFC 7386): objects merge key by key, anything else replaces, `null`
 * removes. So `config: { headers: { Authorization: '…' } }` swaps one header
 * and keeps the others.
 *
 * Timing stays per check on purpose (one grid per check); an environment
 * that needs another interval gets its own check with an `environments`
 * filter.
 * @public
 */
export interface HealthCheckEnvironmentOverride {
  /** Replaces the check's target in this environment; may use the same placeholders. */
  target?: string;
  /** Merged over the check's `config` in this environment. */
  config?: JsonObject;
}

/**
 * Consecutive results that change a slice's status: `failure` failed runs to
 * go down, `success` passing runs to recover.
 * @public
 */
export interface HealthCheckThresholds {
  failure?: number;
  success?: number;
}

/**
 * A health check: what to probe, how often, how to judge it, and where it
 * applies. The same model for checks declared as HealthCheck entities (their
 * `spec`) and checks created through the API.
 * @public
 */
export interface HealthCheckSpec {
  /**
   * The probe type: `http`, `tcp`, `dns`, `tls`, or one a module adds; or
   * `heartbeat` for a check that jobs ping (see `period`).
   */
  type: string;
  /**
   * What to probe. `{{ system.name }}` and `{{ environment.name }}` are
   * replaced per slice, each written for the part of the target it lands in
   * (one DNS label in a host, percent-encoded in a path, query or
   * fragment); a host must end in two labels of the template's own. See
   * `compileTargetTemplate`. Required, except that a heartbeat check has none.
   */
  target?: string;
  /** The probe type's own fields (an `http` check's `method`, `headers`, ...). */
  config?: JsonObject;
  /**
   * Per environment name (compared without regard to case; each key an
   * environment name, see `environmentNameProblem`).
   */
  environmentOverrides?: Record<string, HealthCheckEnvironmentOverride>;
  /** How often each slice runs, such as `10s`; {@link DEFAULT_CHECK_INTERVAL} when absent. */
  interval?: string;
  /** How long a run may take, such as `2s`; {@link DEFAULT_CHECK_TIMEOUT} when absent. */
  timeout?: string;
  conditions?: ConditionSpec[];
  thresholds?: HealthCheckThresholds;
  /** Refs of the systems the check is assigned to; the kind defaults to System. */
  systems: string[];
  /**
   * Refs of the Components the check probes; the kind defaults to Component.
   * They say which components an outage of the check affects (the Health
   * tab of a Component, upstream attribution of notifications); they create
   * no slices.
   */
  components?: string[];
  /** Only these environments of each system, when present; environment names. */
  environments?: string[];
  /** A paused check keeps its definition and runs nowhere. */
  paused?: boolean;
  /** Ref of the owning group or user. */
  owner?: string;
  /** A heartbeat check's: a ping is expected this often, such as `1h`. */
  period?: string;
  /**
   * A heartbeat check's, instead of `period`: a ping is expected at each
   * occurrence of this cron expression (5 fields, or 6 with seconds first).
   */
  schedule?: string;
  /** The IANA time zone of `schedule`. Default `UTC`. */
  timezone?: string;
  /** A heartbeat check's: how late a ping may be before the slice fails, such as `5m`. */
  grace?: string;
}

/**
 * The interval of a check that names none.
 * @public
 */
export const DEFAULT_CHECK_INTERVAL = '1m';

/**
 * The timeout of a check that names none.
 * @public
 */
export const DEFAULT_CHECK_TIMEOUT = '10s';

/**
 * The bounds of a check spec. Every team's catalog files become specs, so
 * every size and count has one; each is far above what a real check needs.
 * @public
 */
export const HEALTHCHECK_SPEC_LIMITS = {
  /** The longest a run may take, whatever the interval. */
  maxTimeoutMs: 60_000,
  systems: 50,
  components: 50,
  environments: 50,
  environmentOverrides: 20,
  conditions: 50,
  /** Characters of one condition; see `MAX_CONDITION_LENGTH`. */
  conditionLength: MAX_CONDITION_LENGTH,
  /** Characters of a target template. */
  targetLength: 2048,
  /** Characters of an entity ref (kind, namespace and name are 63 each at most). */
  refLength: 255,
} as const;

/**
 * A check's interval and timeout in milliseconds, defaults filled in. A
 * check that names no timeout gets {@link DEFAULT_CHECK_TIMEOUT}, or its
 * interval when that is shorter: a run never outlasts its tick. A heartbeat
 * check's slices tick every `heartbeatCheckEveryMs` of its grace.
 *
 * @throws DurationParseError when either does not parse; validate first.
 * @public
 */
export function resolveCheckTiming(
  spec: Pick<HealthCheckSpec, 'interval' | 'timeout'> &
    Partial<Pick<HealthCheckSpec, 'type' | 'grace'>>,
): { intervalMs: number; timeoutMs: number } {
  if (isHeartbeatSpec(spec)) {
    // A heartbeat slice's tick only reads its last ping against its deadline.
    return {
      intervalMs: heartbeatCheckEveryMs(parseDuration(spec.grace ?? '0s')),
      timeoutMs: HEARTBEAT_LIMITS.timeoutMs,
    };
  }
  const intervalMs = parseDuration(spec.interval ?? DEFAULT_CHECK_INTERVAL);
  return {
    intervalMs,
    timeoutMs:
      spec.timeout === undefined
        ? Math.min(parseDuration(DEFAULT_CHECK_TIMEOUT), intervalMs)
        : parseDuration(spec.timeout),
  };
}

const limits = HEALTHCHECK_SPEC_LIMITS;
const nonEmptyString = { type: 'string', minLength: 1 } as const;
const entityRef = {
  type: 'string',
  minLength: 1,
  maxLength: limits.refLength,
} as const;
const duration = { type: 'string', format: 'duration' } as const;
const target = {
  type: 'string',
  minLength: 1,
  maxLength: limits.targetLength,
  description:
    'What to probe; {{ system.name }} and {{ environment.name }} are replaced per slice',
} as const;
const probeConfig = {
  type: 'object',
  description:
    "The probe type's own fields, validated against the type's schema",
} as const;

/**
 * JSON schema (draft-07) of {@link HealthCheckSpec}: the `spec` of a
 * HealthCheck entity and the body of a check created through the API.
 *
 * Durations use `format: "duration"`, which a validator must be taught (read
 * them with {@link parseDuration}). What a schema cannot say is left to the
 * validator as well: that `type` names a registered probe type, that the
 * interval is not below the configured minimum, that the target's
 * placeholders are known and sit where a value cannot move the probe
 * (`findTargetTemplateProblems`), that environment names are names
 * (`validateCheckEnvironmentNames`), and that conditions parse
 * (`validateConditions`).
 * @public
 */
export const healthCheckSpecSchema = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'HealthCheck spec',
  type: 'object',
  additionalProperties: false,
  required: ['type', 'systems'],
  // A heartbeat check is pinged: it has a grace instead of a target.
  if: { properties: { type: { const: 'heartbeat' } } },
  then: { properties: { grace: duration }, required: ['grace'] },
  else: { properties: { target }, required: ['target'] },
  properties: {
    type: {
      ...nonEmptyString,
      description: 'The probe type: http, tcp, dns, tls, or one a module adds',
    },
    target,
    config: probeConfig,
    environmentOverrides: {
      type: 'object',
      description: 'Per environment name: another target, config merged over',
      propertyNames: nonEmptyString,
      maxProperties: limits.environmentOverrides,
      additionalProperties: {
        type: 'object',
        additionalProperties: false,
        properties: { target, config: probeConfig },
      },
    },
    interval: duration,
    timeout: duration,
    conditions: {
      type: 'array',
      maxItems: limits.conditions,
      items: {
        anyOf: [
          { type: 'string', maxLength: limits.conditionLength },
          {
            type: 'object',
            additionalProperties: false,
            required: ['condition'],
            properties: {
              condition: { type: 'string', maxLength: limits.conditionLength },
              severity: { enum: ['unhealthy', 'degraded'] },
            },
          },
        ],
      },
    },
    thresholds: {
      type: 'object',
      additionalProperties: false,
      properties: {
        failure: { type: 'integer', minimum: 1, maximum: 100 },
        success: { type: 'integer', minimum: 1, maximum: 100 },
      },
    },
    systems: {
      type: 'array',
      minItems: 1,
      maxItems: limits.systems,
      items: entityRef,
      description: 'Refs of the systems the check is assigned to',
    },
    components: {
      type: 'array',
      maxItems: limits.components,
      items: entityRef,
      description:
        'Refs of the Components the check probes; the kind defaults to Component',
    },
    environments: {
      type: 'array',
      minItems: 1,
      maxItems: limits.environments,
      items: nonEmptyString,
      description: 'Only these environments of each system',
    },
    paused: { type: 'boolean' },
    owner: entityRef,
    period: {
      ...duration,
      description: "A heartbeat check's: a ping is expected this often",
    },
    schedule: {
      type: 'string',
      minLength: 1,
      maxLength: HEARTBEAT_LIMITS.textLength,
      description:
        "A heartbeat check's, instead of period: a cron expression of when pings are expected",
    },
    timezone: {
      type: 'string',
      minLength: 1,
      maxLength: HEARTBEAT_LIMITS.textLength,
      description: 'The IANA time zone of schedule; default UTC',
    },
    grace: {
      ...duration,
      description:
        "A heartbeat check's: how late a ping may be before the slice fails",
    },
  },
} as const;
