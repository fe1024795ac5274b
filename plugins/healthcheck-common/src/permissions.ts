import { createPermission } from '@backstage/plugin-permission-common';

/**
 * Create a health check through the API. GitOps checks need no permission of
 * the plugin: they are changed in Git and reviewed there.
 * @public
 */
export const healthcheckCheckCreatePermission = createPermission({
  name: 'healthcheck.check.create',
  attributes: { action: 'create' },
});

/**
 * Change a health check created through the API.
 * @public
 */
export const healthcheckCheckUpdatePermission = createPermission({
  name: 'healthcheck.check.update',
  attributes: { action: 'update' },
});

/**
 * Delete a health check created through the API.
 * @public
 */
export const healthcheckCheckDeletePermission = createPermission({
  name: 'healthcheck.check.delete',
  attributes: { action: 'delete' },
});

/**
 * Run a check now, outside its schedule. Not a read: it probes a target and
 * records a run that moves the slice's status, so policies that let everyone
 * read must not let everyone do it; it is grouped with `update`.
 * @public
 */
export const healthcheckCheckRunPermission = createPermission({
  name: 'healthcheck.check.run',
  attributes: { action: 'update' },
});

/**
 * Every permission of the health-check plugin, for the permissions registry.
 * @public
 */
export const healthcheckPermissions = [
  healthcheckCheckCreatePermission,
  healthcheckCheckUpdatePermission,
  healthcheckCheckDeletePermission,
  healthcheckCheckRunPermission,
];
