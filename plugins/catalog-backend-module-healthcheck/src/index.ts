/**
 * A catalog module that teaches the catalog the `HealthCheck` and
 * `MaintenanceWindow` kinds of the Vigil health-check plugin: it validates
 * each check and relates it to its owner, the systems it monitors and the
 * components it targets, and each window to the systems and checks it covers.
 *
 * @packageDocumentation
 */
export { catalogModuleHealthCheckEntityModel as default } from './module';
