export { DurationParseError, formatDuration, parseDuration } from './duration';
export {
  DEFAULT_CHECK_INTERVAL,
  DEFAULT_CHECK_TIMEOUT,
  HEALTHCHECK_SPEC_LIMITS,
  healthCheckSpecSchema,
  resolveCheckTiming,
} from './healthCheckSpec';
export {
  DEFAULT_HEARTBEAT_TIMEZONE,
  HEARTBEAT_CHECK_TYPE,
  HEARTBEAT_LIMITS,
  heartbeatCheckEveryMs,
  heartbeatTimingOf,
  isHeartbeatSpec,
} from './heartbeat';
export type { HeartbeatTiming } from './heartbeat';
export type {
  HealthCheckEnvironmentOverride,
  HealthCheckSpec,
  HealthCheckThresholds,
} from './healthCheckSpec';
export {
  canonicalComponentRef,
  canonicalComponentRefs,
  canonicalEntityRef,
} from './componentRefs';
export {
  applyEnvironmentOverride,
  canonicalEnvironmentName,
  findEnvironmentOverride,
  mergePatch,
} from './environmentOverrides';
export {
  compileTargetTemplate,
  findTargetTemplateProblems,
  renderTargetTemplate,
  TARGET_TEMPLATE_VARIABLES,
} from './targetTemplate';
export type {
  CompiledTargetTemplate,
  RenderedTarget,
  TargetTemplateOptions,
  TargetTemplateValues,
} from './targetTemplate';
export {
  ENVIRONMENT_NAME_PATTERN,
  ENVIRONMENT_NAME_RULE,
  environmentNameProblem,
  validateCheckEnvironmentNames,
} from './environmentNames';
export type { CheckEnvironmentNameProblem } from './environmentNames';
export {
  decodeSliceId,
  encodeSliceId,
  SLICE_ID_PREFIX,
  tryDecodeSliceId,
} from './sliceId';
export type { SliceKey } from './sliceId';
export {
  DEFAULT_MAINTENANCE_TIMEZONE,
  MAINTENANCE_WINDOW_LIMITS,
} from './maintenanceWindowSpec';
export type { MaintenanceWindowSpec } from './maintenanceWindowSpec';
export {
  isServiceLevelObjectiveEntity,
  SERVICE_LEVEL_OBJECTIVE_KIND,
  SERVICE_LEVEL_OBJECTIVE_LIMITS,
} from './serviceLevelObjective';
export type {
  ResolvedServiceLevelObjective,
  ServiceLevelIndicatorSpec,
  ServiceLevelObjectiveEntityV1alpha1,
  ServiceLevelObjectiveSpec,
  ServiceLevelObjectiveTargetSpec,
  ServiceLevelTimeWindowSpec,
} from './serviceLevelObjective';
