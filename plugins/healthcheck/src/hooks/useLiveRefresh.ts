import { useSignal } from '@backstage/plugin-signals-react';
import {
  SYSTEM_STATUS_SIGNAL_CHANNEL,
  SystemStatusChangedEvent,
} from '@vigil/plugin-healthcheck-common';
import { useEffect, useRef } from 'react';

/** How often pages poll when signals are unavailable. */
export const POLL_INTERVAL_MS = 30_000;

/**
 * Calls `refresh` when the backend signals a system status change that
 * `matches` (every change when no filter is given), and every
 * {@link POLL_INTERVAL_MS} when the app has no signals.
 * @internal
 */
export function useLiveRefresh(
  refresh: () => void,
  matches?: (event: SystemStatusChangedEvent) => boolean,
): { live: boolean } {
  const { lastSignal, isSignalsAvailable } = useSignal<
    SystemStatusChangedEvent & Record<string, any>
  >(SYSTEM_STATUS_SIGNAL_CHANNEL);
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  const matchesRef = useRef(matches);
  matchesRef.current = matches;

  useEffect(() => {
    if (lastSignal && (!matchesRef.current || matchesRef.current(lastSignal))) {
      refreshRef.current();
    }
  }, [lastSignal]);

  useEffect(() => {
    if (isSignalsAvailable) {
      return undefined;
    }
    const timer = setInterval(() => refreshRef.current(), POLL_INTERVAL_MS);
    return () => clearInterval(timer);
  }, [isSignalsAvailable]);

  return { live: isSignalsAvailable };
}
