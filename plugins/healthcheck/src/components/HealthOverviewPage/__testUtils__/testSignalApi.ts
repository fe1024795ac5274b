import { SignalApi } from '@backstage/plugin-signals-react';
import { act } from '@testing-library/react';

/** A signal API whose messages a test sends with `emit`. */
export function createTestSignalApi() {
  const subscribers = new Map<string, Set<(message: any) => void>>();
  const api: SignalApi = {
    subscribe(channel, onMessage) {
      const set = subscribers.get(channel) ?? new Set();
      set.add(onMessage as (message: any) => void);
      subscribers.set(channel, set);
      return {
        unsubscribe: () => set.delete(onMessage as (message: any) => void),
      };
    },
  };
  return {
    api,
    subscriberCount: (channel: string) => subscribers.get(channel)?.size ?? 0,
    emit(channel: string, message: Record<string, unknown>) {
      act(() => {
        subscribers.get(channel)?.forEach(onMessage => onMessage(message));
      });
    },
  };
}
