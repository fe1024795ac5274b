import { isResourcePermission } from '@backstage/plugin-permission-common';
import {
  healthcheckCheckCreatePermission,
  healthcheckCheckDeletePermission,
  healthcheckCheckReadPermission,
  healthcheckCheckRunPermission,
  healthcheckCheckUpdatePermission,
  healthcheckMaintenanceManagePermission,
  healthcheckPermissions,
  RESOURCE_TYPE_CATALOG_ENTITY,
  RESOURCE_TYPE_HEALTHCHECK_CHECK,
} from './permissions';

describe('healthcheck permissions', () => {
  it('names each permission after the plugin, the resource and the verb', () => {
    expect(
      healthcheckPermissions.map(p => [p.name, p.attributes.action]),
    ).toEqual([
      ['healthcheck.check.create', 'create'],
      ['healthcheck.check.read', 'read'],
      ['healthcheck.check.update', 'update'],
      ['healthcheck.check.delete', 'delete'],
      ['healthcheck.check.run', 'update'],
      ['healthcheck.maintenance.manage', 'update'],
    ]);
  });

  it('lists every exported permission once, so the registry knows them all', () => {
    expect(healthcheckPermissions).toEqual([
      healthcheckCheckCreatePermission,
      healthcheckCheckReadPermission,
      healthcheckCheckUpdatePermission,
      healthcheckCheckDeletePermission,
      healthcheckCheckRunPermission,
      healthcheckMaintenanceManagePermission,
    ]);
    expect(new Set(healthcheckPermissions.map(p => p.name)).size).toBe(6);
  });

  it('decides reading, changing and running per check, by its id', () => {
    for (const permission of [
      healthcheckCheckReadPermission,
      healthcheckCheckUpdatePermission,
      healthcheckCheckDeletePermission,
      healthcheckCheckRunPermission,
    ]) {
      expect(
        isResourcePermission(permission, RESOURCE_TYPE_HEALTHCHECK_CHECK),
      ).toBe(true);
    }
    expect(RESOURCE_TYPE_HEALTHCHECK_CHECK).toBe('healthcheck-check');
  });

  it('keeps creating a basic permission: there is no check yet to decide about', () => {
    expect(healthcheckCheckCreatePermission.type).toBe('basic');
  });

  it('decides managing maintenance windows per system, as a permission on its catalog entity', () => {
    expect(
      isResourcePermission(
        healthcheckMaintenanceManagePermission,
        RESOURCE_TYPE_CATALOG_ENTITY,
      ),
    ).toBe(true);
    // The catalog's own name, so its rules (isEntityOwner) decide it.
    expect(RESOURCE_TYPE_CATALOG_ENTITY).toBe('catalog-entity');
  });
});
