import type {
  AuthService,
  PermissionsRegistryService,
} from '@backstage/backend-plugin-api';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import type { PermissionRuleset } from '@backstage/plugin-permission-node';
import { healthcheckPermissions } from '@vigil/plugin-healthcheck-common';
import type { HealthcheckStore } from '../database/HealthcheckStore';
import { readCheckDetails } from '../service/readCheckDetails';
import { checkResourceOf, HealthCheckResource } from './checkResource';
import {
  healthcheckCheckPermissionResourceRef,
  healthcheckCheckPermissionRules,
} from './rules';

/**
 * Registers the plugin's permissions and the `healthcheck-check` resource
 * type with its rules, and how the permission backend loads checks by id to
 * resolve a conditional decision it is asked about. Returns the ruleset,
 * which includes the rules modules add, for applying conditions here.
 * @internal
 */
export function registerCheckResourceType(options: {
  permissionsRegistry: PermissionsRegistryService;
  store: Pick<HealthcheckStore, 'getCheck'>;
  catalog: CatalogService;
  auth: AuthService;
}): PermissionRuleset<HealthCheckResource> {
  const { permissionsRegistry, store, catalog, auth } = options;
  permissionsRegistry.addPermissions(healthcheckPermissions);
  permissionsRegistry.addResourceType({
    resourceRef: healthcheckCheckPermissionResourceRef,
    permissions: healthcheckPermissions,
    rules: Object.values(healthcheckCheckPermissionRules),
    getResources: async ids => {
      // The backend's own view: which caller may see a check is decided
      // where the decision is used, with the caller's credentials.
      const checks = await readCheckDetails({
        ids,
        store,
        catalog,
        credentials: await auth.getOwnServiceCredentials(),
      });
      const byId = new Map(
        checks.map(check => [check.id.toLowerCase(), checkResourceOf(check)]),
      );
      return ids.map(id => byId.get(id.toLowerCase()));
    },
  });
  return permissionsRegistry.getPermissionRuleset(
    healthcheckCheckPermissionResourceRef,
  );
}
