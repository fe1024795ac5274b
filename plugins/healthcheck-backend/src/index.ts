/**
 * The Vigil health-check backend: slices per (check, system, environment),
 * one heap scheduler, probes, rollups and the REST API.
 *
 * @packageDocumentation
 */
export { healthcheckPlugin as default } from './plugin';
