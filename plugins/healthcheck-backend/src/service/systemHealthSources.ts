import type { BackstageCredentials } from '@backstage/backend-plugin-api';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { MaintenanceCalendar } from '../maintenance/MaintenanceCalendar';
import { systemMaintenance } from '../maintenance/systemMaintenance';
import type { HistoryStore } from '../model';
import type { SystemReadModel } from '../readModel/SystemReadModel';
import type { RollupService } from '../rollup';
import type { LiveKeyOf } from '../rollup/liveKeys';
import {
  type ObjectiveAdmission,
  type SloHistoryReader,
  systemSloSummaries,
} from '../slo';

/**
 * Where the plugin's reads of system health come from: rollups from the
 * rollup service, a system's slices from this instance's read model where
 * it keeps one (PostgreSQL) and else from the state table, maintenance from
 * the calendar, objectives from the catalog and the history.
 * @internal
 */
export function systemHealthSources(options: {
  catalog: CatalogService;
  states: DatabaseStateStore;
  history: HistoryStore;
  rollups: Pick<RollupService, 'get' | 'getMany'>;
  readModel?: Pick<SystemReadModel, 'read'>;
  liveKeyOf: LiveKeyOf;
  maintenance: Pick<MaintenanceCalendar, 'windows'>;
  sloReader: SloHistoryReader;
  /** Which objectives count at all (their owner owns their system). */
  objectiveAdmission: Pick<ObjectiveAdmission, 'admitted'>;
  now?: () => number;
}) {
  const { catalog, states, history, rollups, readModel, maintenance } = options;
  const now = options.now ?? Date.now;
  return {
    catalog,
    states,
    history,
    liveKeyOf: options.liveKeyOf,
    loadRollup: (systemRef: string) => rollups.get(systemRef),
    loadRollups: (systemRefs: readonly string[]) => rollups.getMany(systemRefs),
    // From memory without a promise: a read's deadline timer is then spared.
    loadSystemSlices: (systemRef: string) =>
      readModel?.read(systemRef)?.slices ?? states.readSystemSlices(systemRef),
    maintenanceOf: async (
      systemSlices: Parameters<typeof systemMaintenance>[1],
    ) => systemMaintenance(await maintenance.windows(), systemSlices, now()),
    sloSummaries: (
      systemRefs: readonly string[],
      credentials: BackstageCredentials,
    ) =>
      systemSloSummaries({
        catalog,
        admission: options.objectiveAdmission,
        reader: options.sloReader,
        credentials,
        systemRefs,
        now: now(),
      }),
  };
}
