import { Entity } from '@backstage/catalog-model';
import { useApi } from '@backstage/core-plugin-api';
import { SystemHealthSummary } from '@vigil/plugin-healthcheck-common';
import { createContext, ReactNode, useContext, useMemo } from 'react';
import useAsyncRetry from 'react-use/esm/useAsyncRetry';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import { listConcerns, useLiveRefresh } from '../../hooks';
import { systemRefOfEntity } from '../../status';
import {
  HealthPresentation,
  presentHealth,
} from '../HealthStatusBadge/healthPresentation';

/** The most systems one request may list; the backend's page limit. */
const SYSTEMS_LIMIT = 500;

interface HealthNodesContextValue {
  /** The rollup of a system (canonical ref), if the list has it. */
  rollupOf(systemRef: string): SystemHealthSummary | undefined;
  /** Whether the list was loaded. */
  loaded: boolean;
  /** Whether the list holds every system, so a missing one has no checks. */
  complete: boolean;
  error?: Error;
  retry(): void;
}

const HealthNodesContext = createContext<HealthNodesContextValue | undefined>(
  undefined,
);

/**
 * Props of {@link HealthNodesProvider}.
 * @public
 */
export interface HealthNodesProviderProps {
  children?: ReactNode;
}

/**
 * Loads the health of every system once (one request of up to 500 systems)
 * for the {@link HealthEntityNode}s inside it, and reloads it when the
 * backend signals a status change of a system it may show (or every 30 s
 * without signals).
 * @public
 */
export function HealthNodesProvider(props: HealthNodesProviderProps) {
  const api = useApi(healthcheckApiRef);
  const { value, error, retry } = useAsyncRetry(
    () => api.listSystems({ limit: SYSTEMS_LIMIT }),
    [api],
  );
  useLiveRefresh(
    retry,
    liveKey => value !== undefined && listConcerns(value, liveKey),
  );

  const context = useMemo<HealthNodesContextValue>(() => {
    const bySystemRef = new Map(
      (value?.items ?? []).map(item => [item.systemRef.toLowerCase(), item]),
    );
    return {
      rollupOf: systemRef => bySystemRef.get(systemRef),
      loaded: value !== undefined,
      complete: value !== undefined && !value.nextCursor,
      error,
      retry,
    };
  }, [value, error, retry]);

  return (
    <HealthNodesContext.Provider value={context}>
      {props.children}
    </HealthNodesContext.Provider>
  );
}

/** The state of the nearest {@link HealthNodesProvider}, if any. */
export function useHealthNodes(): HealthNodesContextValue | undefined {
  return useContext(HealthNodesContext);
}

/**
 * How a graph node shows its entity's health: its system's status, or "No
 * checks". `undefined` when there is nothing to show: the entity has no
 * system, the health is not loaded (yet), or there is no provider.
 */
export function useEntityNodeHealth(
  entity: Entity,
): HealthPresentation | undefined {
  const context = useHealthNodes();
  const systemRef = systemRefOfEntity(entity);
  if (!context?.loaded || !systemRef) {
    return undefined;
  }
  const rollup = context.rollupOf(systemRef);
  if (!rollup && !context.complete) {
    return undefined;
  }
  return presentHealth(rollup);
}
