import type { Config } from '@backstage/config';
import { createBuiltinProbeTypes } from '../probes/builtinProbeTypes';
import { readNetworkPolicy } from '../probes/networkGuard';
import { ProbeSecrets } from '../probes/secrets';
import type { ProbeTypeLookup } from './validateHealthCheckSpec';

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
  const byName = new Map<
    string,
    NonNullable<ReturnType<ProbeTypeLookup['get']>>
  >();
  for (const type of config.getOptionalStringArray(MODULE_PROBE_TYPES_KEY) ??
    []) {
    byName.set(type, { type });
  }
  // Only their schemas and validators are used here: no probe runs.
  for (const probeType of createBuiltinProbeTypes({
    networkPolicy: readNetworkPolicy(config),
    secrets: new ProbeSecrets({}),
  })) {
    byName.set(probeType.type, probeType);
  }
  const names = [...byName.keys()].sort();
  return { get: type => byName.get(type), list: () => names };
}
