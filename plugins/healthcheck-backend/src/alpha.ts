/**
 * For authors of permission policies: the rules, conditions and resource of
 * the `healthcheck-check` resource type.
 *
 * @packageDocumentation
 */
export {
  createHealthcheckCheckConditionalDecision,
  healthcheckCheckConditions,
} from './permissions/conditionExports';
export {
  hasCheckSource,
  healthcheckCheckPermissionResourceRef,
  healthcheckCheckPermissionRules,
  isCheckOwner,
} from './permissions/rules';
export type { HealthCheckResourceFilter } from './permissions/rules';
export type { HealthCheckResource } from './permissions/checkResource';
