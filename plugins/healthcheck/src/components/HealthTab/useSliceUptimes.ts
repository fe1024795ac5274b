import { useApi } from '@backstage/core-plugin-api';
import {
  SliceUptimeResponse,
  SystemHealthDetails,
} from '@vigil/plugin-healthcheck-common';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { healthcheckApiRef } from '../../api/HealthcheckApi';

/** The slice ids of a system's matrix, sorted, as one string. */
export function sliceIdsKey(system: SystemHealthDetails | undefined): string {
  return (system?.checks ?? [])
    .flatMap(check => Object.values(check.cells).map(cell => cell.sliceId))
    .sort()
    .join('\n');
}

/**
 * The up-time of each cell of a system's matrix over 24 hours, 7 days and
 * 30 days. Asked for once the matrix is there and apart from it, so the
 * matrix shows without waiting for a read of up to 30 days of history.
 * Loaded again when the matrix gains or loses a cell, not on each status
 * change, which moves these figures little.
 */
export function useSliceUptimes(system: SystemHealthDetails | undefined) {
  const api = useApi(healthcheckApiRef);
  const systemRef =
    system && system.checks.length > 0 ? system.systemRef : undefined;
  const key = sliceIdsKey(system);
  return useAsyncRetry(
    async (): Promise<SliceUptimeResponse | undefined> =>
      systemRef ? await api.getSliceUptimes(systemRef) : undefined,
    [api, systemRef, key],
  );
}
