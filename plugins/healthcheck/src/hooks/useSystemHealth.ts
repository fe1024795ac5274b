import { useApi } from '@backstage/core-plugin-api';
import { SystemHealthDetails } from '@vigil/plugin-healthcheck-common';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { healthcheckApiRef } from '../api/HealthcheckApi';
import { useLiveRefresh } from './useLiveRefresh';

/**
 * A system's rollup and matrix, kept current: refetched when the backend
 * signals that the system's status changed (or, without signals, polled).
 * `value` is `undefined` for a system the backend does not know.
 * @internal
 */
export function useSystemHealth(systemRef: string | undefined) {
  const api = useApi(healthcheckApiRef);
  const state = useAsyncRetry<SystemHealthDetails | undefined>(
    async () => (systemRef ? await api.getSystem(systemRef) : undefined),
    [api, systemRef],
  );
  const { live } = useLiveRefresh(
    state.retry,
    event => event.systemRef === systemRef?.toLowerCase(),
  );
  return { ...state, live };
}
