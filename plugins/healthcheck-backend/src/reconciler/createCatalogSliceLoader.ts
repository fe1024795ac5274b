import { AuthService, LoggerService } from '@backstage/backend-plugin-api';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { DesiredSlice } from './desiredSlices';
import { loadDesiredSlices } from './loadDesiredSlices';

/**
 * The scheduler's loader: on each refresh, reads the catalog and the stored
 * checks with the plugin's own credentials and returns the desired slices.
 * What it finds wrong is logged when it changes, not on every refresh.
 */
export function createCatalogSliceLoader(options: {
  catalog: CatalogService;
  auth: AuthService;
  logger: LoggerService;
  listStoredChecks: () => Promise<Array<{ id: string; spec: object }>>;
}): { load(): Promise<DesiredSlice[]> } {
  const { catalog, auth, logger, listStoredChecks } = options;
  let lastProblems = '';
  return {
    async load() {
      const credentials = await auth.getOwnServiceCredentials();
      const loaded = await loadDesiredSlices({
        catalog,
        credentials,
        listStoredChecks,
      });
      const problems = [
        ...loaded.environmentProblems.map(p => p.message),
        ...loaded.unresolvedSystems.map(
          u =>
            `check ${u.checkId} names ${u.systemRef}, which is not in the catalog`,
        ),
      ].join('\n');
      if (problems !== lastProblems) {
        lastProblems = problems;
        if (problems) {
          logger.warn(`Reconcile found problems:\n${problems}`);
        }
      }
      logger.debug(
        `Reconciled ${loaded.slices.length} slices, ${loaded.paused.length} paused`,
      );
      return loaded.slices;
    },
  };
}
