export { CatalogChangeListener } from './CatalogChangeListener';
export { CatalogChangePoller } from './CatalogChangePoller';
export type { CatalogPollOutcome } from './CatalogChangePoller';
export { createReconcileLock } from './ReconcileLock';
export type { ReconcileLock } from './ReconcileLock';
export { createStoredSliceSource } from './createStoredSliceSource';
export {
  readDesiredSliceSettings,
  readReconcileSettings,
} from './reconcileSettings';
export type {
  DesiredSliceSettings,
  ReconcileSettings,
} from './reconcileSettings';
export { Reconciler } from './Reconciler';
export type { ReconcileOutcome } from './Reconciler';
export { scheduleReconcileTasks } from './scheduleReconcileTasks';
export { sliceSecretProblems } from './sliceSecretProblems';
