import { Config } from '@backstage/config';
import { InputError } from '@backstage/errors';
import {
  CatalogOwnershipRule,
  readCatalogOwnershipRule,
} from '@vigil/plugin-healthcheck-node';
import type { CoverageCap } from './judgeCoverage';

/**
 * What MaintenanceWindow and ServiceLevelObjective entities may reach.
 * @internal
 */
export interface CoverageSettings {
  /** `healthcheck.checks.fromCatalog`: the rule every kind follows. */
  rule: CatalogOwnershipRule;
  /** MaintenanceWindow entities per system (and per check). */
  windowCap: CoverageCap;
  /** ServiceLevelObjective entities per system. */
  objectiveCap: CoverageCap;
}

const WINDOWS_KEY = 'healthcheck.maintenance.maxWindowsPerSystem';
const OBJECTIVES_KEY = 'healthcheck.slo.maxObjectivesPerSystem';

/**
 * The defaults: a rule that reaches only what an entity's owner owns, and
 * 20 windows and 20 objectives per system, more than a team declares by
 * hand and few enough to compute on every read.
 * @internal
 */
export const DEFAULT_COVERAGE_SETTINGS: CoverageSettings = {
  rule: 'owner',
  windowCap: { perTarget: 20, key: WINDOWS_KEY },
  objectiveCap: {
    perTarget: 20,
    key: OBJECTIVES_KEY,
    counts: target => target.path[1] === 'system',
  },
};

/**
 * Reads `healthcheck.checks.fromCatalog`,
 * `healthcheck.maintenance.maxWindowsPerSystem` and
 * `healthcheck.slo.maxObjectivesPerSystem` (whole numbers from 1 to 1000).
 * @throws InputError naming the key, for a value it does not take.
 * @internal
 */
export function readCoverageSettings(config: Config): CoverageSettings {
  const cap = (base: CoverageCap): CoverageCap => {
    if (!config.has(base.key)) {
      return base;
    }
    const value = config.getNumber(base.key);
    if (!Number.isInteger(value) || value < 1 || value > 1000) {
      throw new InputError(
        `Invalid ${base.key} ${value}: it is how many entities may reach one system, a whole number from 1 to 1000`,
      );
    }
    return { ...base, perTarget: value };
  };
  return {
    rule: readCatalogOwnershipRule(config),
    windowCap: cap(DEFAULT_COVERAGE_SETTINGS.windowCap),
    objectiveCap: cap(DEFAULT_COVERAGE_SETTINGS.objectiveCap),
  };
}
