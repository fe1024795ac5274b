/**
 * Extension points of the Vigil health-check backend, for modules that add
 * probe types, and what the backend and the catalog module share: the
 * validation of check specs, the built-in probe types' fields and the
 * secrets checks may reference.
 *
 * @packageDocumentation
 */
export * from './probes';
export { ProbeConfigError } from './probeConfigError';
export * from './secrets/secrets';
export { parseHostPort } from './secrets/targets';
export type { HostPort } from './secrets/targets';
export * from './validation/builtinProbeTypes';
export {
  ExpectedPatternWatcher,
  expectedPatternProblem,
  parseExpectedPattern,
} from './validation/expectedPattern';
export type { ExpectedPattern } from './validation/expectedPattern';
export { validateProbeConfig } from './validation/probeConfigValidation';
export * from './validation/validateHealthCheckSpec';
export { readConfigDuration } from './config';
