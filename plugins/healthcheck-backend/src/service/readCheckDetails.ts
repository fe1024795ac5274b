import type { BackstageCredentials } from '@backstage/backend-plugin-api';
import { stringifyEntityRef } from '@backstage/catalog-model';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import {
  CheckDetails,
  isHealthCheckEntity,
} from '@vigil/plugin-healthcheck-common';
import type { HealthcheckStore } from '../database/HealthcheckStore';
import { apiCheckDetails, gitOpsCheckDetails } from './checkDetails';
import { gitOpsCheckRef, isApiCheckId } from './checkIds';

/**
 * The details of some checks by id: API checks from the store, GitOps ones
 * from the catalog as the caller may read them (one request for all of
 * them). An id that names no check the caller can see is left out; the
 * rest keep the order of `ids`.
 * @internal
 */
export async function readCheckDetails(options: {
  ids: readonly string[];
  store: Pick<HealthcheckStore, 'getCheck'>;
  catalog: CatalogService;
  credentials: BackstageCredentials;
}): Promise<CheckDetails[]> {
  const { ids, store, catalog, credentials } = options;
  const gitOpsRefs = ids
    .filter(id => !isApiCheckId(id))
    .map(id => gitOpsCheckRef(id))
    .filter(ref => ref !== undefined)
    .map(ref => stringifyEntityRef(ref));
  const [apiChecks, entities] = await Promise.all([
    Promise.all(ids.filter(isApiCheckId).map(id => store.getCheck(id))),
    gitOpsRefs.length === 0
      ? { items: [] }
      : catalog.getEntitiesByRefs({ entityRefs: gitOpsRefs }, { credentials }),
  ]);
  const byId = new Map<string, CheckDetails>();
  for (const check of apiChecks) {
    if (check) {
      byId.set(check.id, apiCheckDetails(check));
    }
  }
  for (const entity of entities.items) {
    if (entity && isHealthCheckEntity(entity)) {
      const details = gitOpsCheckDetails(entity);
      byId.set(details.id.toLowerCase(), details);
    }
  }
  return ids.flatMap(id => {
    const details = byId.get(id) ?? byId.get(id.toLowerCase());
    return details ? [details] : [];
  });
}
