import {
  healthcheckCheckCreatePermission,
  healthcheckCheckDeletePermission,
  healthcheckCheckRunPermission,
  healthcheckCheckUpdatePermission,
  healthcheckPermissions,
} from './permissions';

describe('healthcheck permissions', () => {
  it('names each permission after the plugin, the resource and the verb', () => {
    expect(
      healthcheckPermissions.map(p => [p.name, p.attributes.action]),
    ).toEqual([
      ['healthcheck.check.create', 'create'],
      ['healthcheck.check.update', 'update'],
      ['healthcheck.check.delete', 'delete'],
      ['healthcheck.check.run', 'update'],
    ]);
  });

  it('lists every exported permission once, so the registry knows them all', () => {
    expect(healthcheckPermissions).toEqual([
      healthcheckCheckCreatePermission,
      healthcheckCheckUpdatePermission,
      healthcheckCheckDeletePermission,
      healthcheckCheckRunPermission,
    ]);
    expect(new Set(healthcheckPermissions.map(p => p.name)).size).toBe(4);
  });

  it('are basic permissions that policies decide without a resource', () => {
    for (const permission of healthcheckPermissions) {
      expect(permission.type).toBe('basic');
    }
  });
});
