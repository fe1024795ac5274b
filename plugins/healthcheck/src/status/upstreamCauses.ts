import type { EnvironmentRollup } from '@vigil/plugin-healthcheck-common';

/**
 * The environments whose outage an upstream system explains, and which
 * (what the owner's notification put it down to).
 */
export function upstreamCausesOf(system: {
  environments: readonly EnvironmentRollup[];
}): Array<{ environment: string; systemRef: string }> {
  return system.environments.flatMap(environment =>
    environment.causedBy
      ? [{ environment: environment.name, systemRef: environment.causedBy }]
      : [],
  );
}
