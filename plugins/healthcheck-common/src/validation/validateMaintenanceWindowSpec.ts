import { parseEntityRef } from '@backstage/catalog-model';
import { DateTime, IANAZone } from 'luxon';
import {
  DEFAULT_MAINTENANCE_TIMEZONE,
  DurationParseError,
  formatDuration,
  MAINTENANCE_WINDOW_LIMITS,
  parseDuration,
} from '../model';
import { environmentNameProblem } from '../model/environmentNames';
import type { HealthCheckSpecProblem, ProblemPath } from './problemPath';

/**
 * What reads recurrence rules, so the validator judges them with the same
 * parser that computes their occurrences (`@vigil/plugin-healthcheck-node`'s
 * `maintenanceRecurrenceRules`). Each returns why the text cannot be read,
 * or `undefined` when it can.
 * @public
 */
export interface MaintenanceRecurrenceRules {
  rruleProblem(rule: string): string | undefined;
  cronProblem(expression: string): string | undefined;
}

/**
 * What a maintenance window spec is validated against besides its shape.
 * @public
 */
export interface MaintenanceWindowValidationOptions {
  /** Judges `rrule` and `cron`; without it only their shape is judged. */
  recurrence?: MaintenanceRecurrenceRules;
  /** Written before every path: `spec` for an entity (the default), `''` for an API body. */
  rootPath?: string;
  /** The namespace of refs that name none, for an entity its own. Default `default`. */
  defaultNamespace?: string;
}

const FIELDS = [
  'systems',
  'checks',
  'environments',
  'timezone',
  'start',
  'end',
  'rrule',
  'cron',
  'duration',
  'reason',
  'owner',
] as const;

const limits = MAINTENANCE_WINDOW_LIMITS;

/**
 * A date-time as a window writes it, in its zone (an offset in the text
 * wins over the zone), as epoch milliseconds; the reason when it is not one.
 * @public
 */
export function parseMaintenanceTime(
  text: string,
  timezone: string,
): { epochMs: number; problem?: undefined } | { problem: string } {
  const at = DateTime.fromISO(text, { zone: timezone, setZone: true });
  if (!at.isValid) {
    return {
      problem: `${JSON.stringify(
        text,
      )} is not an ISO 8601 date-time, such as 2026-12-05T02:00 or 2026-12-05T02:00:00Z (${
        at.invalidExplanation ?? at.invalidReason
      })`,
    };
  }
  return { epochMs: at.toMillis() };
}

/**
 * Every problem of a maintenance window spec, each with its field path and
 * reason: unknown and missing fields, wrong types, refs that are not
 * systems or HealthChecks, environment names, an unknown time zone, times
 * that do not parse or end before they start, a window that is neither
 * one-off nor recurring or both, an RRULE or cron expression that does not
 * parse, a missing or zero duration. Empty when the spec is fine.
 * @public
 */
export function validateMaintenanceWindowSpec(
  spec: unknown,
  options: MaintenanceWindowValidationOptions = {},
): HealthCheckSpecProblem[] {
  const rootPath = options.rootPath ?? 'spec';
  const root: ProblemPath = rootPath ? [rootPath] : [];
  const problems: HealthCheckSpecProblem[] = [];
  const report = (field: ProblemPath, reason: string) =>
    problems.push({ path: [...root, ...field], reason });

  if (!isObject(spec)) {
    report([], `must be an object, not ${describeValue(spec)}`);
    return problems;
  }
  for (const field of Object.keys(spec)) {
    if (!(FIELDS as readonly string[]).includes(field)) {
      report(
        [field],
        `unknown field; the fields here are ${FIELDS.join(', ')}`,
      );
    }
  }

  const namespace = options.defaultNamespace ?? 'default';
  const systems = checkRefList(spec, 'systems', 'system', namespace, report);
  const checks = checkRefList(spec, 'checks', 'healthcheck', namespace, report);
  if (systems === undefined && checks === undefined) {
    report(
      ['systems'],
      'is required: the refs of the systems the window covers (or name the covered checks in checks)',
    );
  }
  const environments = checkList(spec, 'environments', report);
  environments?.forEach((name, index) => {
    const reason = environmentNameProblem(name);
    if (reason) report(['environments', index], reason);
  });

  for (const field of ['timezone', 'start', 'end', 'rrule', 'cron'] as const) {
    checkText(spec, field, limits.textLength, report);
  }
  checkText(spec, 'reason', limits.reasonLength, report);
  checkText(spec, 'owner', limits.textLength, report);
  if (typeof spec.owner === 'string' && spec.owner !== '') {
    try {
      parseEntityRef(spec.owner, {
        defaultKind: 'group',
        defaultNamespace: namespace,
      });
    } catch (error) {
      report(['owner'], (error as Error).message);
    }
  }

  let timezone = DEFAULT_MAINTENANCE_TIMEZONE;
  if (typeof spec.timezone === 'string' && spec.timezone !== '') {
    if (IANAZone.isValidZone(spec.timezone)) {
      timezone = spec.timezone;
    } else {
      report(
        ['timezone'],
        `${JSON.stringify(
          spec.timezone,
        )} is not an IANA time zone, such as Europe/Berlin or America/New_York`,
      );
    }
  }
  const time = (field: 'start' | 'end') => {
    if (typeof spec[field] !== 'string' || spec[field] === '') {
      return undefined;
    }
    const parsed = parseMaintenanceTime(spec[field] as string, timezone);
    if (parsed.problem !== undefined) {
      report([field], parsed.problem);
      return undefined;
    }
    return DateTime.fromMillis(parsed.epochMs, { zone: timezone });
  };
  const start = time('start');
  const end = time('end');

  const recurring = spec.rrule !== undefined || spec.cron !== undefined;
  if (spec.rrule !== undefined && spec.cron !== undefined) {
    report(['cron'], 'give either rrule or cron, not both');
  }
  if (recurring) {
    checkRecurrence(spec, options.recurrence, report);
    checkDuration(spec, report);
    if (start && end && end <= start) {
      report(
        ['end'],
        `the recurrence ends (${end.toISO()}) before it starts (${start.toISO()})`,
      );
    }
    return problems;
  }

  if (spec.duration !== undefined) {
    report(
      ['duration'],
      'belongs to a recurring window (with rrule or cron); a one-off window has start and end',
    );
  }
  if (spec.start === undefined) {
    report(
      ['start'],
      'is required: when the window starts (or give rrule or cron and a duration for a recurring window)',
    );
  }
  if (spec.end === undefined) {
    report(['end'], 'is required: when the window ends');
  }
  if (start && end) {
    const lengthMs = end.toMillis() - start.toMillis();
    if (lengthMs <= 0) {
      report(
        ['end'],
        `the window ends (${end.toISO()}) ${
          lengthMs === 0 ? 'when' : 'before'
        } it starts (${start.toISO()})`,
      );
    } else if (lengthMs > limits.maxOneOffMs) {
      report(
        ['end'],
        `the window lasts ${formatDuration(
          lengthMs,
        )}; a one-off window lasts at most ${formatDuration(
          limits.maxOneOffMs,
        )}`,
      );
    }
  }
  return problems;
}

function checkRecurrence(
  spec: Record<string, unknown>,
  rules: MaintenanceRecurrenceRules | undefined,
  report: (field: ProblemPath, reason: string) => void,
) {
  if (typeof spec.rrule === 'string' && spec.rrule !== '') {
    const rule = spec.rrule;
    if (/(^|\n)\s*(DTSTART|UNTIL)|;UNTIL=|^UNTIL=/i.test(rule)) {
      report(
        ['rrule'],
        'must not hold DTSTART or UNTIL: write them as the window\u2019s start and end, in its time zone',
      );
    } else if (!/(^|[;:])FREQ=/i.test(rule)) {
      report(
        ['rrule'],
        `${JSON.stringify(
          rule,
        )} has no FREQ; an RFC 5545 rule reads like FREQ=WEEKLY;BYDAY=SU;BYHOUR=2`,
      );
    } else {
      const reason = rules?.rruleProblem(rule);
      if (reason) report(['rrule'], reason);
    }
  }
  if (typeof spec.cron === 'string' && spec.cron !== '') {
    const fields = spec.cron.trim().split(/\s+/).length;
    if (fields !== 5 && fields !== 6) {
      report(
        ['cron'],
        `${JSON.stringify(spec.cron)} has ${fields} field${
          fields === 1 ? '' : 's'
        }; a cron expression has 5 (minute hour day month weekday), or 6 with seconds first`,
      );
    } else {
      const reason = rules?.cronProblem(spec.cron);
      if (reason) report(['cron'], reason);
    }
  }
}

function checkDuration(
  spec: Record<string, unknown>,
  report: (field: ProblemPath, reason: string) => void,
) {
  if (spec.duration === undefined) {
    report(
      ['duration'],
      'is required for a recurring window: how long each occurrence lasts, such as 1h',
    );
    return;
  }
  if (typeof spec.duration !== 'string') {
    report(
      ['duration'],
      `must be a string, not ${describeValue(spec.duration)}`,
    );
    return;
  }
  let durationMs: number;
  try {
    durationMs = parseDuration(spec.duration);
  } catch (error) {
    const reason =
      error instanceof DurationParseError ? error.reason : String(error);
    report(
      ['duration'],
      `${JSON.stringify(spec.duration)} is not a duration: ${reason}`,
    );
    return;
  }
  if (durationMs === 0) {
    report(['duration'], 'must be longer than 0s');
  } else if (durationMs > limits.maxOccurrenceMs) {
    report(
      ['duration'],
      `${spec.duration} is longer than the longest occurrence, ${formatDuration(
        limits.maxOccurrenceMs,
      )}`,
    );
  }
}

/** The list's strings when it is a list of non-empty strings; reports what is not. */
function checkList(
  spec: Record<string, unknown>,
  field: 'systems' | 'checks' | 'environments',
  report: (field: ProblemPath, reason: string) => void,
): string[] | undefined {
  const value = spec[field];
  if (value === undefined) {
    return undefined;
  }
  if (!Array.isArray(value)) {
    report([field], `must be a list, not ${describeValue(value)}`);
    return undefined;
  }
  if (value.length === 0) {
    report([field], 'must not be an empty list (leave it out instead)');
    return undefined;
  }
  if (value.length > limits[field]) {
    report(
      [field],
      `lists ${value.length} items; at most ${limits[field]} are allowed`,
    );
    return undefined;
  }
  const fine: string[] = [];
  value.forEach((item, index) => {
    if (typeof item !== 'string') {
      report([field, index], `must be a string, not ${describeValue(item)}`);
    } else if (item === '') {
      report([field, index], 'must not be empty');
    } else if (item.length > limits.textLength) {
      report(
        [field, index],
        `is ${item.length} characters long; at most ${limits.textLength} are allowed`,
      );
    } else {
      fine.push(item);
    }
  });
  return fine.length === value.length ? fine : [];
}

function checkRefList(
  spec: Record<string, unknown>,
  field: 'systems' | 'checks',
  kind: string,
  defaultNamespace: string,
  report: (field: ProblemPath, reason: string) => void,
): string[] | undefined {
  const refs = checkList(spec, field, report);
  const role =
    field === 'systems'
      ? 'a window covers systems'
      : 'a window covers HealthCheck entities';
  refs?.forEach((ref, index) => {
    try {
      const parsed = parseEntityRef(ref, {
        defaultKind: kind,
        defaultNamespace,
      });
      if (parsed.kind.toLowerCase() !== kind) {
        report(
          [field, index],
          `${JSON.stringify(ref)} refers to a ${parsed.kind}; ${role}`,
        );
      }
    } catch (error) {
      report([field, index], (error as Error).message);
    }
  });
  return spec[field] === undefined ? undefined : refs ?? [];
}

function checkText(
  spec: Record<string, unknown>,
  field: string,
  maxLength: number,
  report: (field: ProblemPath, reason: string) => void,
) {
  const value = spec[field];
  if (value === undefined) {
    return;
  }
  if (typeof value !== 'string') {
    report([field], `must be a string, not ${describeValue(value)}`);
  } else if (value === '') {
    report([field], 'must not be empty');
  } else if (value.length > maxLength) {
    report(
      [field],
      `is ${value.length} characters long; at most ${maxLength} are allowed`,
    );
  }
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Date) return `a date (${value.toISOString()}); quote it`;
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${JSON.stringify(value)}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
