import { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import type { Config } from '@backstage/config';
import { createBuiltinProbeTypes } from '../probes/builtinProbeTypes';
import { readNetworkPolicy } from '../probes/networkGuard';
import { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';

/** The built-in probe types under the config's network policy and secrets, as a test instance runs them. */
export function builtinProbeTypeRegistry(config: Config): ProbeTypeRegistry {
  const registry = new ProbeTypeRegistry();
  for (const probeType of createBuiltinProbeTypes({
    networkPolicy: readNetworkPolicy(config),
    secrets: ProbeSecrets.fromConfig(config),
  })) {
    registry.add(probeType);
  }
  return registry;
}
