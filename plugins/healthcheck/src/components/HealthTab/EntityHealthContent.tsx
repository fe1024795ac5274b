import {
  EmptyState,
  Progress,
  ResponseErrorPanel,
} from '@backstage/core-components';
import { useApi } from '@backstage/core-plugin-api';
import { Entity } from '@backstage/catalog-model';
import { useEntity } from '@backstage/plugin-catalog-react';
import Button from '@material-ui/core/Button';
import Grid from '@material-ui/core/Grid';
import { useCallback, useState } from 'react';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import { MaintenanceBanner } from '../Maintenance';
import { SloCard } from '../Slo';
import { useSystemHealth } from '../../hooks';
import { systemRefOfEntity } from '../../status';
import { CellHistoryDrawer } from './CellHistoryDrawer';
import { SystemChecksContext, useSystemChecksRequest } from './systemChecks';
import { ComponentChecksCaption, useComponentChecks } from './ComponentChecks';
import { EmptyHealthState } from './EmptyHealthState';
import { HealthMatrix, SelectedCell } from './HealthMatrix';
import { NowProvider } from './RelativeTime';
import { RollupCard } from './RollupCard';
import { UptimeCard } from './UptimeCard';
import { useSliceUptimes } from './useSliceUptimes';

/**
 * Whether the Health tab applies to an entity: Systems, and Components
 * (which show the checks of their system that target them).
 * @public
 */
export function isHealthTabAvailable(entity: Entity): boolean {
  const kind = entity.kind.toLowerCase();
  return kind === 'system' || kind === 'component';
}

/**
 * Props of {@link EntityHealthContent}.
 * @public
 */
export interface EntityHealthContentProps {
  /**
   * How long after "Run now" started its runs the tab loads the system
   * again, to show their results. Default 2000 ms.
   */
  refreshAfterRunMs?: number;
}

/**
 * The Health tab of a System (or Component) entity page: maintenance in
 * force or ahead, the rollup, up-time per environment, the service-level
 * objectives, and the environment x check matrix with each
 * cell's up-time and history, "Run now" and each check's source. Live
 * through signals, polling without them.
 * @public
 */
export function EntityHealthContent(props: EntityHealthContentProps = {}) {
  const { entity } = useEntity();
  const systemRef = systemRefOfEntity(entity);
  const isSystem = entity.kind.toLowerCase() === 'system';

  if (!systemRef) {
    return (
      <EmptyState
        missing="field"
        title="This entity is not part of a system"
        description="Health checks run per system and environment. Set spec.system in this entity's catalog-info.yaml to see the health of its system here."
      />
    );
  }
  return (
    <NowProvider>
      <SystemHealthContent
        systemRef={systemRef}
        componentEntity={isSystem ? undefined : entity}
        refreshAfterRunMs={props.refreshAfterRunMs}
      />
    </NowProvider>
  );
}

function SystemHealthContent(props: {
  systemRef: string;
  componentEntity?: Entity;
  refreshAfterRunMs?: number;
}) {
  const { systemRef, componentEntity, refreshAfterRunMs } = props;
  const api = useApi(healthcheckApiRef);
  const {
    value: system,
    loading,
    error,
    retry,
    live,
  } = useSystemHealth(systemRef);
  const uptimes = useSliceUptimes(system);
  // Async, so an API that throws at once is an error of the checks alone.
  const loadChecks = useCallback(
    async () => api.listSystemChecks(systemRef),
    [api, systemRef],
  );
  const checks = useSystemChecksRequest(loadChecks);
  const [selected, setSelected] = useState<SelectedCell | undefined>();
  const [refreshKey, setRefreshKey] = useState(0);
  const onRunStarted = useCallback(() => {
    setRefreshKey(key => key + 1);
    retry();
  }, [retry]);
  const onClose = useCallback(() => setSelected(undefined), []);
  const componentView = useComponentChecks(system, componentEntity);

  if (loading && !system) {
    return <Progress />;
  }
  if (error) {
    return (
      <>
        <ResponseErrorPanel
          error={error}
          title="Could not load the health of this system"
        />
        <Button variant="contained" color="primary" onClick={retry}>
          Retry
        </Button>
      </>
    );
  }

  const caption = componentView ? (
    <ComponentChecksCaption systemRef={systemRef} view={componentView} />
  ) : null;

  if (!system || system.checks.length === 0) {
    return (
      <>
        {caption}
        <EmptyHealthState systemRef={systemRef} />
      </>
    );
  }
  // On a Component's page, the rows of the checks that target it.
  const shown = componentView?.system ?? system;
  if (shown.checks.length === 0) {
    return caption;
  }

  return (
    <SystemChecksContext.Provider value={checks}>
      {caption}
      <Grid container spacing={3}>
        {system.maintenance && (
          <Grid item xs={12}>
            <MaintenanceBanner maintenance={system.maintenance} />
          </Grid>
        )}
        <Grid item xs={12}>
          <RollupCard system={system} live={live} />
        </Grid>
        <Grid item xs={12}>
          <UptimeCard
            systemRef={system.systemRef}
            environmentNames={system.environmentNames}
            environments={system.environments}
          />
        </Grid>
        <Grid item xs={12}>
          <SloCard
            systemRef={system.systemRef}
            refreshKey={`${system.status}@${system.since}`}
          />
        </Grid>
        <Grid item xs={12}>
          <HealthMatrix
            system={shown}
            selected={selected}
            onOpenCell={setSelected}
            uptimes={uptimes}
            onRunStarted={onRunStarted}
            refreshDelayMs={refreshAfterRunMs}
          />
        </Grid>
      </Grid>
      <CellHistoryDrawer
        system={shown}
        selected={selected}
        onClose={onClose}
        refreshKey={refreshKey}
        onRunStarted={onRunStarted}
        refreshDelayMs={refreshAfterRunMs}
      />
    </SystemChecksContext.Provider>
  );
}
