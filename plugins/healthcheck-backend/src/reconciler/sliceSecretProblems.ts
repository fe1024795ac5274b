import {
  type ProbeSecrets,
  targetOrigin,
} from '@vigil/plugin-healthcheck-node';
import { parseEntityRef } from '@backstage/catalog-model';
import { isApiCheckId } from '../service/checkIds';
import type { DesiredSlice } from '../model';

/**
 * Secret references a slice may not use, judged on its rendered target: the
 * origin it would send them to, and the namespace they are used for (a
 * HealthCheck entity's own; for a check made through the API, that of the
 * slice's system). Loading judges what a template fixes; this catches the
 * rest, a placeholder in the host or port included.
 * @internal
 */
export function sliceSecretProblems(
  secrets: Pick<ProbeSecrets, 'findUseProblems'>,
  slice: Pick<
    DesiredSlice,
    'checkId' | 'systemRef' | 'type' | 'target' | 'config'
  >,
): Array<{ path: string; reason: string }> {
  const namespace = parseEntityRef(
    isApiCheckId(slice.checkId) ? slice.systemRef : slice.checkId,
  ).namespace;
  return secrets
    .findUseProblems(slice.config, {
      origin: targetOrigin(slice.type, slice.target),
      namespace,
      path: 'config',
    })
    .map(({ path, reason }) => ({ path, reason }));
}
