import { createConditionExports } from '@backstage/plugin-permission-node';
import {
  healthcheckCheckPermissionResourceRef,
  healthcheckCheckPermissionRules,
} from './rules';

const { conditions, createConditionalDecision } = createConditionExports({
  resourceRef: healthcheckCheckPermissionResourceRef,
  rules: healthcheckCheckPermissionRules,
});

/**
 * The conditions of health-check permissions, for policies:
 * `healthcheckCheckConditions.isCheckOwner({ claims })`,
 * `healthcheckCheckConditions.hasCheckSource({ source: 'api' })`.
 * @alpha
 */
export const healthcheckCheckConditions = conditions;

/**
 * A conditional decision about a `healthcheck-check` resource permission,
 * as `createCatalogConditionalDecision` is for catalog entities:
 *
 * ```ts
 * if (isResourcePermission(request.permission, RESOURCE_TYPE_HEALTHCHECK_CHECK)) {
 *   return createHealthcheckCheckConditionalDecision(
 *     request.permission,
 *     healthcheckCheckConditions.isCheckOwner({
 *       claims: user?.info.ownershipEntityRefs ?? [],
 *     }),
 *   );
 * }
 * ```
 *
 * Whatever the policy decides, a caller sees a check only if the catalog
 * lets them read every system it names.
 * @alpha
 */
export const createHealthcheckCheckConditionalDecision =
  createConditionalDecision;
