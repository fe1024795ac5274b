import { Entity } from '@backstage/catalog-model';
import { JsonValue } from '@backstage/types';

/**
 * The apiVersion of HealthCheck entities declared as code.
 * @public
 */
export const HEALTHCHECK_API_VERSION = 'vigil.dev/v1alpha1';

/**
 * The kind of HealthCheck entities declared as code.
 * @public
 */
export const HEALTHCHECK_KIND = 'HealthCheck';

/**
 * System annotation listing the system's environments, comma separated.
 * @public
 */
export const ENVIRONMENTS_ANNOTATION = 'vigil.dev/environments';

/**
 * Component or Resource annotation naming the one environment it runs in.
 * @public
 */
export const ENVIRONMENT_ANNOTATION = 'vigil.dev/environment';

/**
 * The environment of a system that declares none.
 * @public
 */
export const DEFAULT_ENVIRONMENT = 'default';

/**
 * A health check declared as a catalog entity, next to `catalog-info.yaml`.
 * @public
 */
export interface HealthCheckEntityV1alpha1 extends Entity {
  apiVersion: typeof HEALTHCHECK_API_VERSION;
  kind: typeof HEALTHCHECK_KIND;
  spec: {
    type: string;
    /** Absent for a heartbeat check, which is pinged. */
    target?: string;
    interval?: string;
    timeout?: string;
    systems: string[];
    components?: string[];
    environments?: string[];
    paused?: boolean;
    owner?: string;
    [field: string]: JsonValue | undefined;
  };
}

/**
 * Whether an entity is a HealthCheck, judged by apiVersion and kind only.
 * @public
 */
export function isHealthCheckEntity(
  entity: Entity,
): entity is HealthCheckEntityV1alpha1 {
  return (
    entity.apiVersion === HEALTHCHECK_API_VERSION &&
    entity.kind === HEALTHCHECK_KIND
  );
}

/**
 * The kind of MaintenanceWindow entities declared as code.
 * @public
 */
export const MAINTENANCE_WINDOW_KIND = 'MaintenanceWindow';

/**
 * A maintenance window declared as a catalog entity; see
 * `MaintenanceWindowSpec` for what its fields mean.
 * @public
 */
export interface MaintenanceWindowEntityV1alpha1 extends Entity {
  apiVersion: typeof HEALTHCHECK_API_VERSION;
  kind: typeof MAINTENANCE_WINDOW_KIND;
  spec: {
    systems?: string[];
    checks?: string[];
    environments?: string[];
    timezone?: string;
    start?: string;
    end?: string;
    rrule?: string;
    cron?: string;
    duration?: string;
    reason?: string;
    owner?: string;
  };
}

/**
 * Whether an entity is a MaintenanceWindow, judged by apiVersion and kind only.
 * @public
 */
export function isMaintenanceWindowEntity(
  entity: Entity,
): entity is MaintenanceWindowEntityV1alpha1 {
  return (
    entity.apiVersion === HEALTHCHECK_API_VERSION &&
    entity.kind === MAINTENANCE_WINDOW_KIND
  );
}
