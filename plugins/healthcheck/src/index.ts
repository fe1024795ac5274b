/**
 * The Vigil health-check frontend plugin (legacy frontend system; the new
 * system's plugin is in `./alpha`).
 *
 * @packageDocumentation
 */
export { healthcheckPlugin, HealthcheckPage } from './plugin';
export {
  healthcheckApiRef,
  type HealthcheckApi,
  type CheckSummary,
} from './api/HealthcheckApi';
export { HealthcheckClient } from './api/HealthcheckClient';
