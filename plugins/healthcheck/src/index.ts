/**
 * The Vigil health-check frontend plugin (legacy frontend system; the new
 * system's plugin is in `./alpha`).
 *
 * @packageDocumentation
 */
export {
  healthcheckPlugin,
  HealthcheckPage,
  EntityHealthContent,
  EntityHealthOverviewCard,
  HealthDependencyMapCard,
  HealthLegend,
  HealthStatusBadge,
  EntityHealthStatusBadge,
  CopyBadgeMarkdownButton,
  CheckForm,
  CheckFormDialog,
  NewCheckButton,
} from './plugin';
export {
  isHealthTabAvailable,
  type EntityHealthContentProps,
} from './components/HealthTab';
export {
  healthcheckApiRef,
  type HealthcheckApi,
  type CheckSummary,
  type MaintenanceWindowRequest,
} from './api/HealthcheckApi';
export { HealthcheckClient } from './api/HealthcheckClient';
export {
  useCopyBadgeMarkdown,
  useCopyEntityBadgeMarkdown,
  type HealthStatusBadgeProps,
  type EntityHealthStatusBadgeProps,
  type CopyBadgeMarkdownButtonProps,
} from './components/HealthStatusBadge';
export type { EntityHealthOverviewCardProps } from './components/HealthOverviewCard';
export {
  HealthEntityNode,
  type HealthDependencyMapCardProps,
} from './components/HealthDependencyMap';
export type {
  CheckFormProps,
  CheckFormDialogProps,
  NewCheckButtonProps,
} from './components/CheckForm';
