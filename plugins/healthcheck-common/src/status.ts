/**
 * The status of a slice, an environment or a system.
 * @public
 */
export type HealthStatus =
  | 'healthy'
  | 'degraded'
  | 'unhealthy'
  | 'unknown'
  | 'paused';

/**
 * Every status, from best to worst, in the order a rollup ranks them.
 *
 * `paused` ranks below `healthy` because a paused check says nothing about
 * the system. `unknown` (no run yet) ranks above `healthy`, so a system is not
 * called healthy before it was probed, and below `degraded`, so it never
 * hides a known problem.
 * @public
 */
export const HEALTH_STATUSES: readonly HealthStatus[] = [
  'paused',
  'healthy',
  'unknown',
  'degraded',
  'unhealthy',
];

/**
 * Whether a value is one of the {@link HealthStatus} words.
 * @public
 */
export function isHealthStatus(value: unknown): value is HealthStatus {
  return (HEALTH_STATUSES as readonly unknown[]).includes(value);
}

/**
 * The worst of some statuses; `unknown` when there are none.
 * @public
 */
export function worstStatus(statuses: Iterable<HealthStatus>): HealthStatus {
  let worst: HealthStatus | undefined;
  for (const status of statuses) {
    if (
      worst === undefined ||
      HEALTH_STATUSES.indexOf(status) > HEALTH_STATUSES.indexOf(worst)
    ) {
      worst = status;
    }
  }
  return worst ?? 'unknown';
}
