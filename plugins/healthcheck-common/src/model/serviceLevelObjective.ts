import type { Entity } from '@backstage/catalog-model';
import type { JsonObject } from '@backstage/types';

/**
 * The kind of a service-level objective entity, next to HealthCheck under
 * `apiVersion: vigil.dev/v1alpha1`. Its spec follows OpenSLO v1's `SLO`
 * (`indicator`, `timeWindow`, `budgetingMethod`, `objectives[].target` or
 * `targetPercent`) where the fields fit Vigil's runs.
 * @public
 */
export const SERVICE_LEVEL_OBJECTIVE_KIND = 'ServiceLevelObjective';

/**
 * What counts as good.
 *
 * - `availability`: the slice is up (healthy or degraded) rather than down
 *   (unhealthy); with `Timeslices` budgeting weighted by time like up-time,
 *   with `Occurrences` counted in runs (a run is bad when it failed).
 * - `latency`: the `percentile` of run durations is below `threshold`
 *   (a duration such as `300ms`), judged per hour (`Timeslices` only: an
 *   hour is good when its percentile is below the threshold).
 * @public
 */
export type ServiceLevelIndicatorSpec =
  | { type: 'availability' }
  | { type: 'latency'; percentile: 50 | 95 | 99; threshold: string };

/**
 * OpenSLO's `timeWindow` item: a rolling window of whole days (`7d`, `28d`,
 * `30d`, `4w`) with `isRolling: true`, or the calendar month (`1M`) with
 * `isRolling: false`.
 * @public
 */
export interface ServiceLevelTimeWindowSpec {
  duration: string;
  isRolling: boolean;
  /** Only for a calendar window; months start in UTC. */
  calendar?: { timeZone?: string };
}

/**
 * One objective: `target` as a ratio (`0.999`) or `targetPercent` (`99.9`),
 * exactly one of the two.
 * @public
 */
export interface ServiceLevelObjectiveTargetSpec {
  displayName?: string;
  target?: number;
  targetPercent?: number;
}

/**
 * The spec of a ServiceLevelObjective entity: an objective for one check in
 * one environment of a system (`check` given), or for all the system's
 * checks in that environment (`check` left out).
 * @public
 */
export interface ServiceLevelObjectiveSpec {
  description?: string;
  /** Ref of the system; the kind defaults to System. */
  system: string;
  /** An environment name of the system. */
  environment: string;
  /** Ref of one HealthCheck of the system; all of them when left out. */
  check?: string;
  indicator: ServiceLevelIndicatorSpec;
  /** Exactly one window, as in OpenSLO. */
  timeWindow: ServiceLevelTimeWindowSpec[];
  /** `Timeslices` (time-weighted; the default) or `Occurrences` (runs). */
  budgetingMethod?: 'Occurrences' | 'Timeslices';
  /** Exactly one objective. */
  objectives: ServiceLevelObjectiveTargetSpec[];
  /**
   * Who declares the objective: a Group or User ref (kind Group and the
   * objective's namespace by default). It may name only a system (and a
   * check) this owner owns, unless `healthcheck.checks.fromCatalog` is
   * `any`: its alerts page the system's owner.
   */
  owner?: string;
}

/**
 * A valid spec read into the numbers the SLO math uses.
 * @public
 */
export interface ResolvedServiceLevelObjective {
  /** Canonical (lower-case) system ref. */
  systemRef: string;
  /** Canonical environment name. */
  environment: string;
  /** Canonical (lower-case) HealthCheck entity ref; undefined for the whole system. */
  checkRef?: string;
  indicator:
    | { type: 'availability' }
    | { type: 'latency'; percentile: 50 | 95 | 99; thresholdMs: number };
  window:
    | { type: 'rolling'; durationMs: number }
    | { type: 'calendarMonth'; timeZone: 'UTC' };
  budgetingMethod: 'Occurrences' | 'Timeslices';
  /** The target as a ratio, strictly between 0 and 1. */
  target: number;
  displayName?: string;
}

/**
 * Bounds of a ServiceLevelObjective spec.
 * @public
 */
export const SERVICE_LEVEL_OBJECTIVE_LIMITS = {
  /** The longest rolling window: beyond it hourly aggregates may be pruned. */
  maxRollingDays: 90,
  maxDescriptionLength: 1_000,
  maxDisplayNameLength: 200,
} as const;

/**
 * A service-level objective declared as a catalog entity.
 * @public
 */
export interface ServiceLevelObjectiveEntityV1alpha1 extends Entity {
  apiVersion: 'vigil.dev/v1alpha1';
  kind: typeof SERVICE_LEVEL_OBJECTIVE_KIND;
  spec: ServiceLevelObjectiveSpec & JsonObject;
}

/**
 * Whether an entity is a ServiceLevelObjective, judged by apiVersion and
 * kind only.
 * @public
 */
export function isServiceLevelObjectiveEntity(
  entity: Entity,
): entity is ServiceLevelObjectiveEntityV1alpha1 {
  return (
    entity.apiVersion === 'vigil.dev/v1alpha1' &&
    entity.kind === SERVICE_LEVEL_OBJECTIVE_KIND
  );
}
