import { useApi } from '@backstage/core-plugin-api';
import { SystemListResponse } from '@vigil/plugin-healthcheck-common';
import { useCallback, useEffect, useRef } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import { listConcerns, useLiveRefresh } from '../../hooks';
import { listQueryOf, OverviewState } from './overviewState';

/** Status changes within this long of the first cause one refetch. @internal */
export const LIVE_REFRESH_DEBOUNCE_MS = 500;

/**
 * The current page of systems, refetched when the filters or the page
 * change, when `reloadToken` changes, and (at most every
 * {@link LIVE_REFRESH_DEBOUNCE_MS}) when the backend signals that the
 * status of a system the page may show changed (see `listConcerns`);
 * polled when the app has no signals. While refetching, `value` keeps the
 * previous page.
 * @internal
 */
export function useSystemsPage(state: OverviewState, reloadToken = 0) {
  const api = useApi(healthcheckApiRef);
  const query = listQueryOf(state);
  const queryKey = JSON.stringify(query);
  const result = useAsyncRetry<SystemListResponse>(
    () => api.listSystems(query),
    // The query is rebuilt each render; its JSON says when it changed.
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [api, queryKey, reloadToken],
  );

  const retryRef = useRef(result.retry);
  retryRef.current = result.retry;
  const loadingRef = useRef(result.loading);
  loadingRef.current = result.loading;
  const timer = useRef<ReturnType<typeof setTimeout>>();
  const scheduleRefresh = useCallback(() => {
    if (timer.current !== undefined) {
      return; // one refetch is already due, and it will see this change too
    }
    const fire = () => {
      if (loadingRef.current) {
        // A fetch in flight may predate the change; fetch again after it.
        timer.current = setTimeout(fire, LIVE_REFRESH_DEBOUNCE_MS);
        return;
      }
      timer.current = undefined;
      retryRef.current();
    };
    timer.current = setTimeout(fire, LIVE_REFRESH_DEBOUNCE_MS);
  }, []);
  useEffect(() => () => clearTimeout(timer.current), []);

  const { live } = useLiveRefresh(
    scheduleRefresh,
    liveKey =>
      result.value !== undefined && listConcerns(result.value, liveKey),
  );
  return { ...result, live };
}
