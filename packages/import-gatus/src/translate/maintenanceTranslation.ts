/**
 * Gatus maintenance (the configuration's `maintenance`, an endpoint's
 * `maintenance-windows`) as MaintenanceWindow entities. Gatus mutes alerts
 * in a daily or weekly window; a MaintenanceWindow holds notifications back
 * the same way, and keeps showing the status, so the translation is a cron
 * expression at the window's start plus its duration, in its time zone.
 */
import {
  formatDuration,
  formatSpecProblems,
  HEALTHCHECK_API_VERSION,
  MAINTENANCE_WINDOW_KIND,
  MaintenanceWindowEntityV1alpha1,
  parseDuration,
  validateMaintenanceWindowSpec,
} from '@vigil/plugin-healthcheck-common';
import { maintenanceRecurrenceRules } from '@vigil/plugin-healthcheck-node';
import { asRecord } from './endpointTranslation';

/** Gatus's day names, as cron numbers them (Sunday 0). */
const CRON_DAYS: Record<string, number> = {
  sunday: 0,
  monday: 1,
  tuesday: 2,
  wednesday: 3,
  thursday: 4,
  friday: 5,
  saturday: 6,
};

const KNOWN_FIELDS = new Set([
  'enabled',
  'start',
  'duration',
  'timezone',
  'every',
]);

/** What a window covers: the systems of the checks, or the checks themselves. */
export interface MaintenanceCover {
  systems?: string[];
  checks?: string[];
}

/** A Gatus window that became a MaintenanceWindow, or why it did not. */
export type MaintenanceTranslation =
  | { kind: 'window'; entity: MaintenanceWindowEntityV1alpha1; notes: string[] }
  | { kind: 'skipped'; reasons: string[] };

/**
 * One Gatus maintenance window (`where` names it in reasons, such as
 * `maintenance` or `endpoints[3].maintenance-windows[0]`) as an entity
 * called `name`, covering `cover`; the entity passes the same validation
 * as the catalog's MaintenanceWindow processor, or is skipped with why.
 */
export function translateMaintenance(
  value: unknown,
  options: {
    where: string;
    name: string;
    namespace?: string;
    cover: MaintenanceCover;
    reason: string;
    /** `spec.owner`, the checks' own: a window covers only what its owner owns. */
    owner?: string;
  },
): MaintenanceTranslation {
  const { where } = options;
  const maintenance = asRecord(value);
  if (maintenance.enabled === false) {
    return {
      kind: 'skipped',
      reasons: [`${where}: disabled (enabled: false)`],
    };
  }
  const notes = Object.keys(maintenance)
    .filter(field => !KNOWN_FIELDS.has(field))
    .map(
      field => `${where}.${field}: not a field this importer knows; ignored`,
    );
  const problems: string[] = [];
  const start = parseStart(maintenance.start);
  if (typeof start === 'string') {
    problems.push(`${where}.start: ${start}`);
  }
  const duration = parseGatusDuration(maintenance.duration);
  if (duration.problem) {
    problems.push(`${where}.duration: ${duration.problem}`);
  }
  const days = parseDays(maintenance.every);
  if (typeof days === 'string') {
    problems.push(`${where}.every: ${days}`);
  }
  if (
    typeof start === 'string' ||
    duration.problem !== undefined ||
    typeof days === 'string'
  ) {
    return { kind: 'skipped', reasons: problems };
  }
  const spec: MaintenanceWindowEntityV1alpha1['spec'] = {
    ...options.cover,
    timezone:
      typeof maintenance.timezone === 'string' && maintenance.timezone !== ''
        ? maintenance.timezone
        : 'UTC',
    cron: `${start.minute} ${start.hour} * * ${
      days.length === 0 ? '*' : days.join(',')
    }`,
    duration: duration.text,
    reason: options.reason,
    ...(options.owner ? { owner: options.owner } : {}),
  };
  const invalid = formatSpecProblems(
    validateMaintenanceWindowSpec(spec, {
      recurrence: maintenanceRecurrenceRules,
      defaultNamespace: options.namespace ?? 'default',
    }),
  );
  if (invalid.length > 0) {
    return {
      kind: 'skipped',
      reasons: invalid.map(
        problem => `${where}: not valid in Vigil: ${problem}`,
      ),
    };
  }
  return {
    kind: 'window',
    entity: {
      apiVersion: HEALTHCHECK_API_VERSION,
      kind: MAINTENANCE_WINDOW_KIND,
      metadata: {
        name: options.name,
        ...(options.namespace ? { namespace: options.namespace } : {}),
        description: `Imported from Gatus's ${where}`,
      },
      spec,
    },
    notes,
  };
}

/** `23:00` as hour and minute, or why it is not a time of day. */
function parseStart(value: unknown): { hour: number; minute: number } | string {
  if (value === undefined) {
    return 'is required: the time of day the window starts, such as 23:00';
  }
  const match = /^(\d{1,2}):(\d{2})$/.exec(String(value).trim());
  const hour = Number(match?.[1]);
  const minute = Number(match?.[2]);
  if (!match || hour > 23 || minute > 59) {
    return `${JSON.stringify(value)} is not a time of day such as 23:00`;
  }
  return { hour, minute };
}

function parseGatusDuration(
  value: unknown,
): { text: string; problem?: undefined } | { problem: string } {
  if (value === undefined) {
    return { problem: 'is required: how long the window lasts, such as 1h' };
  }
  try {
    const ms = parseDuration(String(value).trim());
    return ms > 0
      ? { text: formatDuration(ms) }
      : { problem: 'must be longer than 0s' };
  } catch (error) {
    return { problem: (error as Error).message };
  }
}

/** Gatus's `every` as cron day numbers, in week order; [] for every day. */
function parseDays(value: unknown): number[] | string {
  if (value === undefined || value === null) {
    return [];
  }
  const names = Array.isArray(value) ? value : [value];
  const unknown = names.filter(
    name => CRON_DAYS[String(name).trim().toLowerCase()] === undefined,
  );
  if (unknown.length > 0) {
    return `${unknown
      .map(name => JSON.stringify(name))
      .join(', ')} is not a day of the week such as Monday`;
  }
  return [
    ...new Set(names.map(name => CRON_DAYS[String(name).trim().toLowerCase()])),
  ].sort((a, b) => a - b);
}
