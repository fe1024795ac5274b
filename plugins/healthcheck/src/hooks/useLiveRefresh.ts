import { useSignal } from '@backstage/plugin-signals-react';
import {
  SYSTEM_STATUS_SIGNAL_CHANNEL,
  SystemListResponse,
  SystemStatusSignal,
} from '@vigil/plugin-healthcheck-common';
import { useEffect, useRef } from 'react';

/** How often pages poll when signals are unavailable. */
export const POLL_INTERVAL_MS = 30_000;

/**
 * The live key of a status signal, if the message is one.
 * @internal
 */
export function liveKeyOf(message: unknown): string | undefined {
  const signal = message as Partial<SystemStatusSignal> | undefined;
  return signal?.type === 'SYSTEM_STATUS_CHANGED' &&
    typeof signal.liveKey === 'string'
    ? signal.liveKey
    : undefined;
}

/**
 * Whether a status change of the system with this live key may change what
 * a list of systems shows: the system is on it, or the list does not hold
 * every system it counts (another page, a status filter), so the change
 * may move the counts or bring a system onto the page. A key the list does
 * not know is a system the caller cannot see, or not on the list.
 * @internal
 */
export function listConcerns(
  list: Pick<SystemListResponse, 'items' | 'counts' | 'nextCursor'>,
  liveKey: string,
): boolean {
  if (list.items.some(item => item.liveKey === liveKey)) {
    return true;
  }
  const counted = Object.values(list.counts).reduce((a, b) => a + b, 0);
  return list.nextCursor !== undefined || counted > list.items.length;
}

/**
 * Calls `refresh` when the backend signals that the status of a system
 * changed and `concerns` says the page shows that system (by the opaque
 * live key the API gave with it; the signal names no system), and every
 * {@link POLL_INTERVAL_MS} when the app has no signals. The refresh reads
 * through the API, which answers only what the user may read.
 * @internal
 */
export function useLiveRefresh(
  refresh: () => void,
  concerns: (liveKey: string) => boolean,
): { live: boolean } {
  const { lastSignal, isSignalsAvailable } = useSignal<
    SystemStatusSignal & Record<string, any>
  >(SYSTEM_STATUS_SIGNAL_CHANNEL);
  const refreshRef = useRef(refresh);
  refreshRef.current = refresh;
  const concernsRef = useRef(concerns);
  concernsRef.current = concerns;

  useEffect(() => {
    const liveKey = liveKeyOf(lastSignal);
    if (liveKey !== undefined && concernsRef.current(liveKey)) {
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
