import { Entity } from '@backstage/catalog-model';
import { useApi, useApiHolder } from '@backstage/core-plugin-api';
import { signalApiRef } from '@backstage/plugin-signals-react';
import { useSyncExternalStore } from 'react';
import { HealthcheckApi, healthcheckApiRef } from '../../api/HealthcheckApi';
import { systemRefOfEntity } from '../../status';
import {
  HealthPresentation,
  presentHealth,
} from '../HealthStatusBadge/healthPresentation';
import { SystemsHealthStore } from './systemsHealthStore';

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

/**
 * The health of every system, shared by every caller in the app and kept
 * live while any is mounted; `reload` tries again after an error.
 */
export function useSystemsHealth() {
  const store = useSystemsHealthStore();
  const snapshot = useSyncExternalStore(store.subscribe, store.getSnapshot);
  return { ...snapshot, reload: store.reload };
}

/**
 * How a graph node shows its entity's health: its system's status, or "No
 * checks". `undefined` when there is nothing to show: the entity has no
 * system, or the health is not loaded (yet, or after an error).
 */
export function useEntityNodeHealth(
  entity: Entity,
): HealthPresentation | undefined {
  const health = useSystemsHealth();
  const systemRef = systemRefOfEntity(entity);
  if (!health.loaded || !systemRef) {
    return undefined;
  }
  const rollup = health.rollupOf(systemRef);
  if (!rollup && !health.complete) {
    return undefined;
  }
  return presentHealth(rollup);
}
