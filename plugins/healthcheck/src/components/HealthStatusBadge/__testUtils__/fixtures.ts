import { Entity } from '@backstage/catalog-model';
import { SignalApi } from '@backstage/plugin-signals-react';
import {
  SYSTEM_STATUS_SIGNAL_CHANNEL,
  SystemHealthDetails,
  SystemStatusSignal,
} from '@vigil/plugin-healthcheck-common';
import { act } from '@testing-library/react';

/** The health of `system:default/payments`: degraded in production. */
export function paymentsHealth(
  overrides: Partial<SystemHealthDetails> = {},
): SystemHealthDetails {
  return {
    systemRef: 'system:default/payments',
    liveKey: 'live-key-of-payments',
    name: 'payments',
    namespace: 'default',
    title: 'Payments',
    status: 'degraded',
    environments: [
      {
        name: 'staging',
        status: 'healthy',
        healthy: 2,
        total: 2,
        since: '2025-01-01T00:00:00Z',
      },
      {
        name: 'production',
        status: 'degraded',
        healthy: 1,
        total: 2,
        since: '2025-01-01T00:00:00Z',
      },
    ],
    reasons: [
      {
        checkId: 'healthcheck:default/payments-api',
        environment: 'production',
        status: 'degraded',
        display: '[RESPONSE_TIME] (812) < 500',
      },
    ],
    healthy: 3,
    total: 4,
    upstream: [],
    updatedAt: new Date(Date.now() - 120_000).toISOString(),
    since: '2025-01-01T00:00:00Z',
    environmentNames: ['production', 'staging'],
    checks: [],
    ...overrides,
  };
}

/** A system the backend knows but that has no checks. */
export function healthWithoutChecks(
  overrides: Partial<SystemHealthDetails> = {},
): SystemHealthDetails {
  return paymentsHealth({
    status: 'unknown',
    environments: [],
    reasons: [],
    healthy: 0,
    total: 0,
    ...overrides,
  });
}

export const paymentsSystem: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'System',
  metadata: { name: 'payments', namespace: 'default' },
  spec: { owner: 'group:default/payments-team' },
};

export const paymentsApiComponent: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: { name: 'payments-api', namespace: 'default' },
  spec: {
    type: 'service',
    lifecycle: 'production',
    owner: 'group:default/payments-team',
    system: 'payments',
  },
};

/** A signal API whose messages the test sends with `emit`. */
export function createMockSignalApi(): SignalApi & {
  emit(signal: SystemStatusSignal): void;
} {
  const listeners = new Map<string, Set<(message: unknown) => void>>();
  return {
    subscribe(channel, onMessage) {
      const listener = onMessage as (message: unknown) => void;
      const channelListeners = listeners.get(channel) ?? new Set();
      channelListeners.add(listener);
      listeners.set(channel, channelListeners);
      return { unsubscribe: () => channelListeners.delete(listener) };
    },
    emit(signal) {
      act(() => {
        listeners
          .get(SYSTEM_STATUS_SIGNAL_CHANNEL)
          ?.forEach(listener => listener(signal));
      });
    },
  };
}

/**
 * The signal the backend sends when a system's status changed: its live
 * key, nothing else.
 */
export function statusChanged(
  system: Pick<SystemHealthDetails, 'liveKey'>,
): SystemStatusSignal {
  return { type: 'SYSTEM_STATUS_CHANGED', liveKey: system.liveKey };
}
