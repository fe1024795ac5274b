import type { HealthCheckSecretUses } from '@vigil/plugin-healthcheck-common';
import { type ProbeSecrets, templateOrigin } from './secrets';

/**
 * The judge of a check's secret references for the spec validator of
 * `@vigil/plugin-healthcheck-common`: each config is judged against the
 * origin its target template fixes (or each slice's, where a placeholder
 * decides the host), which only Node can tell, as it reads IP addresses.
 * @public
 */
export function secretUsesOf(
  secrets: Pick<ProbeSecrets, 'findUseProblems'>,
): HealthCheckSecretUses {
  return {
    findUseProblems(config, { probeType, target, namespace, path }) {
      const { origin, perSlice } = templateOrigin(probeType, target);
      return secrets
        .findUseProblems(config, {
          origin,
          originPerSlice: perSlice,
          namespace,
        })
        .map(problem => ({
          path: [...path, ...problem.configPath],
          reason: problem.reason,
        }));
    },
  };
}
