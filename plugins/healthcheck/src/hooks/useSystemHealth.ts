import { useApi } from '@backstage/core-plugin-api';
import { SystemHealthDetails } from '@vigil/plugin-healthcheck-common';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { healthcheckApiRef } from '../api/HealthcheckApi';
import { useLiveRefresh } from './useLiveRefresh';

/**
 * A system's rollup and matrix, kept current: refetched when the backend
 * signals a change under the system's live key (or, without signals,
 * polled). `value` is `undefined` for a system the backend does not know.
 * @internal
 */
export function useSystemHealth(systemRef: string | undefined) {
  const api = useApi(healthcheckApiRef);
  const state = useAsyncRetry<SystemHealthDetails | undefined>(
    async () => (systemRef ? await api.getSystem(systemRef) : undefined),
    [api, systemRef],
  );
  // Before the first answer there is no key; that answer is current anyway.
  const { live } = useLiveRefresh(
    state.retry,
    liveKey => liveKey === state.value?.liveKey,
  );
  return { ...state, live };
}
