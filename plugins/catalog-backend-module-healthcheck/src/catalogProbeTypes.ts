import type { Config } from '@backstage/config';
import {
  probeTypeLookup,
  type ProbeTypeLookup,
} from '@vigil/plugin-healthcheck-common';
import { builtinProbeTypeDeclarations } from '@vigil/plugin-healthcheck-node';

/**
 * The config key listing probe types that backend modules add.
 * @internal
 */
export const MODULE_PROBE_TYPES_KEY = 'healthcheck.catalog.moduleProbeTypes';

/**
 * The probe types the catalog knows when it validates HealthCheck entities:
 * the built-in ones in full (their schemas and what only they can judge),
 * and by name only those `healthcheck.catalog.moduleProbeTypes` lists. The
 * catalog is another plugin and cannot see the modules that add types to
 * the health-check backend; that backend judges their config when it loads
 * the check, and runs nowhere a check that fails there.
 * @internal
 */
export function catalogProbeTypes(config: Config): ProbeTypeLookup {
  const listed = config.getOptionalStringArray(MODULE_PROBE_TYPES_KEY) ?? [];
  return probeTypeLookup([
    ...listed.map(type => ({ type })),
    ...builtinProbeTypeDeclarations(),
  ]);
}
