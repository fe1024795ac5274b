import { BackstageCredentials } from '@backstage/backend-plugin-api';
import { CatalogService } from '@backstage/plugin-catalog-node';
import {
  CheckDetails,
  CheckSummary,
  HEALTHCHECK_KIND,
  isHealthCheckEntity,
} from '@vigil/plugin-healthcheck-common';
import { HealthcheckStore } from '../database/HealthcheckStore';
import { CheckAccess } from '../permissions/CheckAccess';
import { checkResourceOf } from '../permissions/checkResource';
import { apiCheckDetails, gitOpsCheckDetails } from './checkDetails';

/**
 * Every check the caller may see: those created through the API and those
 * declared as HealthCheck entities that the caller may read in the catalog,
 * each only if the caller can read every system it names and the policy
 * lets them read it.
 */
export async function listChecks(options: {
  store: HealthcheckStore;
  catalog: CatalogService;
  access: CheckAccess;
  credentials: BackstageCredentials;
}): Promise<CheckSummary[]> {
  const { store, catalog, access, credentials } = options;
  const [stored, { items: entities }] = await Promise.all([
    store.listChecks(),
    catalog.getEntities(
      // The apiVersion is checked below: an older or newer one is not ours.
      { filter: { kind: HEALTHCHECK_KIND } },
      { credentials },
    ),
  ]);
  const checks = [
    ...entities.filter(isHealthCheckEntity).map(gitOpsCheckDetails),
    ...stored.map(apiCheckDetails),
  ];
  const visible = await access.visible(checks, checkResourceOf, credentials);
  return visible.map(summaryOf).sort((a, b) => a.id.localeCompare(b.id));
}

function summaryOf(check: CheckDetails): CheckSummary {
  const { spec, source } = check;
  return {
    id: check.id,
    title: check.title,
    type: spec.type,
    target: spec.target,
    interval: spec.interval,
    systems: spec.systems,
    paused: spec.paused === true,
    source:
      source.kind === 'api'
        ? { kind: 'api', createdBy: source.createdBy }
        : source,
  };
}
