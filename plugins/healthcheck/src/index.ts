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
} from './plugin';
export {
  isHealthTabAvailable,
  type EntityHealthContentProps,
} from './components/HealthTab';
export {
  healthcheckApiRef,
  type HealthcheckApi,
  type CheckSummary,
} from './api/HealthcheckApi';
export { HealthcheckClient } from './api/HealthcheckClient';
export {
  HealthStatusBadge,
  EntityHealthStatusBadge,
  CopyBadgeMarkdownButton,
  useCopyBadgeMarkdown,
  useCopyEntityBadgeMarkdown,
  type HealthStatusBadgeProps,
  type EntityHealthStatusBadgeProps,
  type CopyBadgeMarkdownButtonProps,
} from './components/HealthStatusBadge';
export { EntityHealthOverviewCard } from './components/HealthOverviewCard';
export {
  HealthDependencyMapCard,
  HealthEntityNode,
  HealthLegend,
} from './components/HealthDependencyMap';
export {
  CheckForm,
  CheckFormDialog,
  NewCheckButton,
} from './components/CheckForm';
