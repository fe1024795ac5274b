import { Entity } from '@backstage/catalog-model';
import { useApi, useApiHolder } from '@backstage/core-plugin-api';
import { signalApiRef } from '@backstage/plugin-signals-react';
import { useCallback, useSyncExternalStore } from 'react';
import { HealthcheckApi, healthcheckApiRef } from '../../api/HealthcheckApi';
import { systemRefOfEntity } from '../../status';
import {
  HealthPresentation,
  presentHealth,
} from '../HealthStatusBadge/healthPresentation';
import { SystemHealthSnapshot, SystemsHealthStore } from './systemsHealthStore';

/** One store per API instance, that is per app; gone with the app. */
const stores = new WeakMap<HealthcheckApi, SystemsHealthStore>();

function useSystemsHealthStore(): SystemsHealthStore {
  const api = useApi(healthcheckApiRef);
  const signalApi = useApiHolder().get(signalApiRef);
  let store = stores.get(api);
  if (!store) {
    store = new SystemsHealthStore(api, signalApi);
    stores.set(api, store);
  }
  return store;
}

const NO_SYSTEM: SystemHealthSnapshot = { loaded: false };
const noop = () => {};

/** A system's health from the app's shared store, kept live while shown. */
function useSystemHealthSnapshot(systemRef: string | undefined) {
  const store = useSystemsHealthStore();
  const subscribe = useCallback(
    (listener: () => void) =>
      systemRef ? store.subscribe(systemRef, listener) : noop,
    [store, systemRef],
  );
  const getSnapshot = useCallback(
    () => (systemRef ? store.getSnapshot(systemRef) : NO_SYSTEM),
    [store, systemRef],
  );
  return useSyncExternalStore(subscribe, getSnapshot);
}

/**
 * Whether the health of a system shown could not be loaded, and a retry of
 * those that failed.
 */
export function useSystemsHealthError() {
  const store = useSystemsHealthStore();
  const error = useSyncExternalStore(store.subscribeToErrors, store.getError);
  return { error, retry: store.retryFailed };
}

/**
 * How a graph node shows its entity's health: its system's status, or "No
 * checks", and whether a maintenance window is in force over the system.
 * `undefined` when there is nothing to show: the entity has no system, or
 * the health is not loaded (yet, or after an error).
 */
export function useEntityNodeHealth(
  entity: Entity,
): (HealthPresentation & { inMaintenance: boolean }) | undefined {
  const snapshot = useSystemHealthSnapshot(systemRefOfEntity(entity));
  if (!snapshot.loaded) {
    return undefined;
  }
  return {
    ...presentHealth(snapshot.rollup),
    inMaintenance: (snapshot.rollup?.maintenance?.current.length ?? 0) > 0,
  };
}
