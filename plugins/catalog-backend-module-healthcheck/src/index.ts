/**
 * A catalog module that teaches the catalog the `HealthCheck` kind of the
 * Vigil health-check plugin: it validates each check and relates it to its
 * owner, the systems it monitors and the components it targets.
 *
 * @packageDocumentation
 */
export { catalogModuleHealthCheckEntityModel as default } from './module';
