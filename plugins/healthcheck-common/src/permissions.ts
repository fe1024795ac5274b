import { createPermission } from '@backstage/plugin-permission-common';

/**
 * The resource type of health checks in the permission framework. The
 * resource ref of a check is its id: the API id (`payments-http`) or the
 * entity ref of a GitOps check (`healthcheck:default/payments-api`).
 * @public
 */
export const RESOURCE_TYPE_HEALTHCHECK_CHECK = 'healthcheck-check';

/**
 * Create a health check through the API. GitOps checks need no permission of
 * the plugin: they are changed in Git and reviewed there. A basic permission,
 * as `catalog.entity.create` is: there is no check yet to decide about.
 * @public
 */
export const healthcheckCheckCreatePermission = createPermission({
  name: 'healthcheck.check.create',
  attributes: { action: 'create' },
});

/**
 * Read a health check, from either source. On top of any policy, a caller
 * sees a check only if the catalog lets them read every system it names.
 * @public
 */
export const healthcheckCheckReadPermission = createPermission({
  name: 'healthcheck.check.read',
  attributes: { action: 'read' },
  resourceType: RESOURCE_TYPE_HEALTHCHECK_CHECK,
});

/**
 * Change a health check created through the API.
 * @public
 */
export const healthcheckCheckUpdatePermission = createPermission({
  name: 'healthcheck.check.update',
  attributes: { action: 'update' },
  resourceType: RESOURCE_TYPE_HEALTHCHECK_CHECK,
});

/**
 * Delete a health check created through the API.
 * @public
 */
export const healthcheckCheckDeletePermission = createPermission({
  name: 'healthcheck.check.delete',
  attributes: { action: 'delete' },
  resourceType: RESOURCE_TYPE_HEALTHCHECK_CHECK,
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
  resourceType: RESOURCE_TYPE_HEALTHCHECK_CHECK,
});

/**
 * The resource type of catalog entities in the permission framework, as
 * `@backstage/plugin-catalog-common` names it (`RESOURCE_TYPE_CATALOG_ENTITY`):
 * a permission of this type is decided per entity ref, with the catalog's
 * rules (`isEntityOwner`, `hasAnnotation`, ...).
 * @public
 */
export const RESOURCE_TYPE_CATALOG_ENTITY = 'catalog-entity';

/**
 * Open a maintenance window through the API over a system, or end one
 * early: a resource permission on the system's catalog entity (its ref),
 * so a policy can allow it only for the systems the caller owns, with the
 * catalog's `isEntityOwner` rule. On top of it, the caller must be able to
 * read the system in the catalog. Windows declared as MaintenanceWindow
 * entities are changed in Git.
 * @public
 */
export const healthcheckMaintenanceManagePermission = createPermission({
  name: 'healthcheck.maintenance.manage',
  attributes: { action: 'update' },
  resourceType: RESOURCE_TYPE_CATALOG_ENTITY,
});

/**
 * Every permission of the health-check plugin, for the permissions registry.
 * @public
 */
export const healthcheckPermissions = [
  healthcheckCheckCreatePermission,
  healthcheckCheckReadPermission,
  healthcheckCheckUpdatePermission,
  healthcheckCheckDeletePermission,
  healthcheckCheckRunPermission,
  healthcheckMaintenanceManagePermission,
];
