/**
 * Extension points of the Vigil health-check backend, for modules that add
 * probe types, and what the backend and the catalog module share: the
 * built-in probe types' fields, the secrets checks may reference and how a
 * check's use of them is judged (the spec validator itself is
 * `@vigil/plugin-healthcheck-common`'s).
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
export { secretUsesOf } from './secrets/secretUses';
export { readConfigDuration } from './config';
export type {
  DeprecatedDurationKey,
  ReadConfigDurationOptions,
} from './config';
export {
  maintenanceRecurrenceOf,
  maintenanceRecurrenceRules,
} from './maintenance/recurrence';
export type { MaintenanceRecurrence } from './maintenance/recurrence';
export {
  CATALOG_CHANGES_TOPIC,
  MAX_SYSTEMS_PER_CHANGE,
  readCatalogChangeEvent,
} from './catalogChanges/catalogChangeEvent';
export type { CatalogChangeEvent } from './catalogChanges/catalogChangeEvent';
export {
  CATALOG_OWNERSHIP_KEY,
  coverageOwnershipProblems,
  coveringEntityOf,
  readCatalogOwnershipRule,
  readTargetOwners,
} from './ownership/catalogOwnership';
export type {
  CatalogEntityLike,
  CatalogOwnershipRule,
  CoveredTarget,
  CoveringEntity,
  TargetOwnerCatalog,
  TargetOwners,
} from './ownership/catalogOwnership';
