import { CheckDetails } from '@vigil/plugin-healthcheck-common';
import { createContext, useContext, useMemo } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';

/** What the tab knows of one check. */
export type CheckDetailsState =
  | { status: 'loading' }
  | { status: 'loaded'; value: CheckDetails }
  | { status: 'error'; error: Error };

/** The details of every check of one system, from one request. */
export type SystemChecks = {
  loading: boolean;
  error?: Error;
  /** By check id as given and lower-cased (the matrix names checks by canonical id). */
  byId: ReadonlyMap<string, CheckDetails>;
  retry: () => void;
};

export const SystemChecksContext = createContext<SystemChecks | undefined>(
  undefined,
);

/**
 * Loads the details of a system's checks once for the whole Health tab, in
 * one request, after the first paint (live refreshes of the matrix do not ask
 * again).
 */
export function useSystemChecksRequest(
  load: () => Promise<CheckDetails[]>,
): SystemChecks {
  const { value, loading, error, retry } = useAsyncRetry(load, [load]);
  const byId = useMemo(() => {
    const map = new Map<string, CheckDetails>();
    for (const details of value ?? []) {
      map.set(details.id, details);
      map.set(details.id.toLowerCase(), details);
    }
    return map;
  }, [value]);
  return { loading, error, byId, retry };
}

const NOT_IN_SYSTEM = new Error('This check is not among the system’s checks');

/** The details of one check, from the tab's system checks. */
export function useCheckDetails(checkId: string): {
  state: CheckDetailsState;
  retry: () => void;
} {
  const checks = useContext(SystemChecksContext);
  if (!checks || checks.loading) {
    return { state: { status: 'loading' }, retry: () => checks?.retry() };
  }
  const value =
    checks.byId.get(checkId) ?? checks.byId.get(checkId.toLowerCase());
  if (value) {
    return { state: { status: 'loaded', value }, retry: checks.retry };
  }
  return {
    state: { status: 'error', error: checks.error ?? NOT_IN_SYSTEM },
    retry: checks.retry,
  };
}

/** The check's title when known, else its short name. */
export function checkTitleOf(
  state: CheckDetailsState,
  fallback: string,
): string {
  return state.status === 'loaded' && state.value.title
    ? state.value.title
    : fallback;
}
