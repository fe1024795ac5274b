import {
  EnvironmentRollup,
  HEALTH_STATUSES,
} from '@vigil/plugin-healthcheck-common';

/** The environment with the worst status; the first of equally bad ones. */
export function worstEnvironment(
  environments: EnvironmentRollup[],
): EnvironmentRollup | undefined {
  const rank = (environment: EnvironmentRollup) =>
    HEALTH_STATUSES.indexOf(environment.status);
  return environments.reduce<EnvironmentRollup | undefined>(
    (worst, environment) =>
      !worst || rank(environment) > rank(worst) ? environment : worst,
    undefined,
  );
}
