import { stringifyEntityRef } from '@backstage/catalog-model';
import { BackstageCredentials } from '@backstage/backend-plugin-api';
import { CatalogService } from '@backstage/plugin-catalog-node';
import {
  CheckSummary,
  HEALTHCHECK_KIND,
  isHealthCheckEntity,
} from '@vigil/plugin-healthcheck-common';
import { HealthcheckStore } from '../database/HealthcheckStore';
import { gitOpsCheckSource } from './checkDetails';

/**
 * Every check the plugin knows: those created through the API and those
 * declared as HealthCheck entities that the caller may read in the catalog.
 */
export async function listChecks(options: {
  store: HealthcheckStore;
  catalog: CatalogService;
  credentials: BackstageCredentials;
}): Promise<CheckSummary[]> {
  const { store, catalog, credentials } = options;
  const [stored, { items: entities }] = await Promise.all([
    store.listChecks(),
    catalog.getEntities(
      // The apiVersion is checked below: an older or newer one is not ours.
      { filter: { kind: HEALTHCHECK_KIND } },
      { credentials },
    ),
  ]);

  const fromApi: CheckSummary[] = stored.map(check => ({
    id: check.id,
    title: check.title,
    type: check.spec.type,
    target: check.spec.target,
    interval: check.spec.interval,
    systems: check.spec.systems,
    paused: check.spec.paused === true,
    source: { kind: 'api', createdBy: check.createdBy },
  }));

  const fromCatalog: CheckSummary[] = entities
    .filter(isHealthCheckEntity)
    .map(entity => ({
      id: stringifyEntityRef(entity),
      title: entity.metadata.title,
      type: entity.spec.type,
      target: entity.spec.target,
      interval: entity.spec.interval,
      systems: entity.spec.systems,
      paused: entity.spec.paused === true,
      source: gitOpsCheckSource(entity),
    }));

  return [...fromCatalog, ...fromApi].sort((a, b) => a.id.localeCompare(b.id));
}
