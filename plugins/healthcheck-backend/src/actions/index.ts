import type {
  AuditorService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import type { ActionsRegistryService } from '@backstage/backend-plugin-api/alpha';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import type { PermissionRuleset } from '@backstage/plugin-permission-node';
import type { HealthcheckStore } from '../database/HealthcheckStore';
import { CheckAccess } from '../permissions/CheckAccess';
import type { HealthCheckResource } from '../permissions/checkResource';
import { createCheckReader } from '../service/checkReader';
import { createCheckRunner } from '../service/checkRuns';
import type { CheckRunStarted } from '../model';
import type { SystemHealthReads } from '../service/systemHealthReads';
import { registerGetCheckHistoryAction } from './getCheckHistoryAction';
import { registerGetSystemHealthAction } from './getSystemHealthAction';
import { registerListUnhealthySystemsAction } from './listUnhealthySystemsAction';
import { registerRunCheckNowAction } from './runCheckNowAction';

/**
 * Registers Vigil's actions (`healthcheck:get-system-health`,
 * `healthcheck:list-unhealthy-systems`, `healthcheck:get-check-history`,
 * `healthcheck:run-check-now`) for agents, such as those of the MCP actions
 * backend. Each runs with the caller's own credentials through the same
 * reads, permission checks and audit events as the REST API.
 * @internal
 */
export function registerHealthActions(deps: {
  actionsRegistry: ActionsRegistryService;
  reads: SystemHealthReads;
  auditor: AuditorService;
  store: Pick<HealthcheckStore, 'getCheck'>;
  catalog: CatalogService;
  permissions: Pick<PermissionsService, 'authorizeConditional'>;
  checkRuleset?: PermissionRuleset<HealthCheckResource>;
  /** Starts a check's runs (`createRunCheckNow`), shared with the REST route for one rate limit. */
  runCheck: (checkId: string, caller: string) => Promise<CheckRunStarted[]>;
}): void {
  const { actionsRegistry, reads } = deps;
  const access = new CheckAccess({
    catalog: deps.catalog,
    permissions: deps.permissions,
    ruleset: deps.checkRuleset,
  });
  registerGetSystemHealthAction({ actionsRegistry, reads });
  registerListUnhealthySystemsAction({ actionsRegistry, reads });
  registerGetCheckHistoryAction({ actionsRegistry, reads });
  registerRunCheckNowAction({
    actionsRegistry,
    runCheck: createCheckRunner({
      auditor: deps.auditor,
      checks: createCheckReader({
        store: deps.store,
        catalog: deps.catalog,
        access,
      }),
      runCheck: deps.runCheck,
    }),
  });
}
