import {
  createPermissionResourceRef,
  createPermissionRule,
} from '@backstage/plugin-permission-node';
import { RESOURCE_TYPE_HEALTHCHECK_CHECK } from '@vigil/plugin-healthcheck-common';
import { z } from 'zod';
import type { HealthCheckResource } from './checkResource';

/**
 * What a rule about checks turns into for a query: the field and the
 * values any of which it must have. The plugin applies conditions to
 * loaded checks; this is for whoever wants to filter a store by them.
 * @alpha
 */
export interface HealthCheckResourceFilter {
  key: 'owner' | 'source';
  values: string[];
}

/**
 * The permission resource of health checks, for
 * `permissionsRegistry.addResourceType` and for modules that add rules.
 * @alpha
 */
export const healthcheckCheckPermissionResourceRef =
  createPermissionResourceRef<
    HealthCheckResource,
    HealthCheckResourceFilter
  >().with({
    pluginId: 'healthcheck',
    resourceType: RESOURCE_TYPE_HEALTHCHECK_CHECK,
  });

/**
 * A check owned by one of the claims, typically the user's ownership refs
 * (`user?.info.ownershipEntityRefs`): its `spec.owner`, else for a check
 * made through the API, its creator.
 * @alpha
 */
export const isCheckOwner = createPermissionRule({
  name: 'IS_CHECK_OWNER',
  description:
    'Allow checks whose spec.owner (else, for API checks, whose creator) is one of the claims',
  resourceRef: healthcheckCheckPermissionResourceRef,
  paramsSchema: z.object({
    claims: z
      .array(z.string())
      .describe(
        'Entity refs, such as the user ref and groups, one of which must own the check',
      ),
  }),
  apply: (check, { claims }) =>
    check.owner !== undefined &&
    claims.some(claim => claim.toLocaleLowerCase('en-US') === check.owner),
  toQuery: ({ claims }) => ({
    key: 'owner',
    values: claims.map(claim => claim.toLocaleLowerCase('en-US')),
  }),
});

/**
 * A check from one source: `gitops` (a HealthCheck entity, changed in Git)
 * or `api` (made through the API or the UI).
 * @alpha
 */
export const hasCheckSource = createPermissionRule({
  name: 'HAS_CHECK_SOURCE',
  description:
    'Allow checks from one source: gitops (a HealthCheck entity) or api',
  resourceRef: healthcheckCheckPermissionResourceRef,
  paramsSchema: z.object({
    source: z
      .enum(['api', 'gitops'])
      .describe(
        'gitops for HealthCheck entities, api for checks made through the API',
      ),
  }),
  apply: (check, { source }) => check.source === source,
  toQuery: ({ source }) => ({ key: 'source', values: [source] }),
});

/**
 * The permission rules of health checks, which the plugin registers with
 * its resource type.
 * @alpha
 */
export const healthcheckCheckPermissionRules = { isCheckOwner, hasCheckSource };
