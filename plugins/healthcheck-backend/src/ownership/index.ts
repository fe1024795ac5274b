export { CachedRead } from './CachedRead';
export { CatalogCoverage, COVERING_ENTITY_FIELDS } from './CatalogCoverage';
export { judgeCoverage } from './judgeCoverage';
export type { CoverageCap, CoverageVerdict } from './judgeCoverage';
export {
  DEFAULT_COVERAGE_SETTINGS,
  readCoverageSettings,
} from './coverageSettings';
export type { CoverageSettings } from './coverageSettings';
