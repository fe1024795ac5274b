import {
  MaintenanceOccurrence,
  SystemMaintenance,
} from '@vigil/plugin-healthcheck-common';

/**
 * How times are written; the reader's locale and time zone unless a test
 * fixes them.
 */
export interface TimeFormat {
  locale?: string;
  timeZone?: string;
}

function dayOf(ms: number, format: TimeFormat): string {
  return new Date(ms).toLocaleDateString(format.locale, {
    timeZone: format.timeZone,
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
  });
}

/**
 * A moment as a reader near it wants it: `14:30` today, `Sun 2 Nov, 02:00`
 * on another day (in the reader's locale).
 */
export function formatMoment(
  iso: string,
  now: number,
  format: TimeFormat = {},
): string {
  const ms = Date.parse(iso);
  const time = new Date(ms).toLocaleTimeString(format.locale, {
    timeZone: format.timeZone,
    hour: '2-digit',
    minute: '2-digit',
  });
  if (dayOf(ms, format) === dayOf(now, format)) {
    return time;
  }
  const day = new Date(ms).toLocaleDateString(format.locale, {
    timeZone: format.timeZone,
    weekday: 'short',
    day: 'numeric',
    month: 'short',
  });
  return `${day}, ${time}`;
}

function withReason(text: string, reason: string | undefined): string {
  return reason ? `${text} — ${reason}` : text;
}

/** `In maintenance until 14:30 — Deploying 4.2`. */
export function describeCurrentWindow(
  occurrence: MaintenanceOccurrence,
  now: number,
  format: TimeFormat = {},
): string {
  return withReason(
    `In maintenance until ${formatMoment(occurrence.end, now, format)}`,
    occurrence.reason,
  );
}

/** `Next maintenance Sun 2 Nov, 02:00 – 03:00 — Weekly patching`. */
export function describeNextWindow(
  occurrence: MaintenanceOccurrence,
  now: number,
  format: TimeFormat = {},
): string {
  const start = formatMoment(occurrence.start, now, format);
  // The end on the start's day needs only its time.
  const end = formatMoment(
    occurrence.end,
    Date.parse(occurrence.start),
    format,
  );
  return withReason(`Next maintenance ${start} – ${end}`, occurrence.reason);
}

/**
 * When the windows in force end: the latest end of those in force, since
 * the system is in maintenance until the last one ends. `undefined` when
 * none is in force.
 */
export function maintenanceUntil(
  maintenance: Pick<SystemMaintenance, 'current'> | undefined,
): MaintenanceOccurrence | undefined {
  let last: MaintenanceOccurrence | undefined;
  for (const occurrence of maintenance?.current ?? []) {
    if (!last || Date.parse(occurrence.end) > Date.parse(last.end)) {
      last = occurrence;
    }
  }
  return last;
}

/** Whether a check is in maintenance now in an environment. */
export function isInMaintenance(
  maintenance: SystemMaintenance | undefined,
  checkId: string,
  environment: string,
): boolean {
  return (maintenance?.inMaintenance ?? []).some(
    pair => pair.checkId === checkId && pair.environment === environment,
  );
}
