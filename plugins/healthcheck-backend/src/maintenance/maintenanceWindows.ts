import {
  canonicalEntityRef,
  canonicalEnvironmentName,
  DEFAULT_MAINTENANCE_TIMEZONE,
  MaintenanceWindowSpec,
  parseDuration,
  parseMaintenanceTime,
} from '@vigil/plugin-healthcheck-common';
import {
  MaintenanceRecurrence,
  maintenanceRecurrenceOf,
} from '@vigil/plugin-healthcheck-node';

/**
 * When a window is in force: one span, or a recurrence whose occurrences
 * each last `durationMs`, beginning no earlier than `fromMs` and no later
 * than `untilMs`.
 * @internal
 */
export type MaintenanceSchedule =
  | { kind: 'once'; startMs: number; endMs: number }
  | {
      kind: 'recurring';
      recurrence: MaintenanceRecurrence;
      durationMs: number;
      fromMs?: number;
      untilMs?: number;
    };

/**
 * A maintenance window as the backend uses it: what it covers, as
 * canonical refs and environment names (absent means every one), and when.
 * @internal
 */
export interface MaintenanceWindow {
  /** `maintenancewindow:default/x` for an entity, the row id for one made through the API. */
  id: string;
  source: 'catalog' | 'api';
  systems?: readonly string[];
  checks?: readonly string[];
  environments?: readonly string[];
  schedule: MaintenanceSchedule;
  reason?: string;
}

/**
 * One slice as a window sees it.
 * @internal
 */
export interface CoveredSlice {
  checkId: string;
  systemRef: string;
  environment: string;
}

/**
 * A validated spec as a {@link MaintenanceWindow}.
 * @throws Error for a spec that does not validate; validate first.
 * @internal
 */
export function maintenanceWindowFromSpec(
  id: string,
  source: MaintenanceWindow['source'],
  spec: MaintenanceWindowSpec,
  defaultNamespace: string = 'default',
): MaintenanceWindow {
  const zone = spec.timezone ?? DEFAULT_MAINTENANCE_TIMEZONE;
  const time = (text: string | undefined) => {
    if (text === undefined) return undefined;
    const parsed = parseMaintenanceTime(text, zone);
    if (parsed.problem !== undefined) throw new Error(parsed.problem);
    return parsed.epochMs;
  };
  const refs = (list: string[] | undefined, defaultKind: string) =>
    list?.map(
      ref => canonicalEntityRef(ref, { defaultKind, defaultNamespace }) ?? ref,
    );
  const recurrence = maintenanceRecurrenceOf(spec);
  return {
    id,
    source,
    systems: refs(spec.systems, 'system'),
    checks: refs(spec.checks, 'healthcheck'),
    environments: spec.environments?.map(canonicalEnvironmentName),
    reason: spec.reason,
    schedule: recurrence
      ? {
          kind: 'recurring',
          recurrence,
          durationMs: parseDuration(spec.duration ?? ''),
          fromMs: time(spec.start),
          untilMs: time(spec.end),
        }
      : { kind: 'once', startMs: time(spec.start)!, endMs: time(spec.end)! },
  };
}

/**
 * Whether a window covers a slice: the slice's system is among its systems
 * and its check among its checks (where the window names them), and its
 * environment among its environments (where it names them).
 * @internal
 */
export function windowCovers(
  window: MaintenanceWindow,
  slice: CoveredSlice,
): boolean {
  const has = (list: readonly string[] | undefined, value: string) =>
    list === undefined || list.includes(value);
  return (
    has(window.systems, slice.systemRef.toLowerCase()) &&
    has(window.checks, slice.checkId.toLowerCase()) &&
    has(window.environments, canonicalEnvironmentName(slice.environment))
  );
}
