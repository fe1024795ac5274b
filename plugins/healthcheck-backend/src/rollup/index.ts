export {
  buildEnvironmentNotification,
  upstreamCauses,
} from './buildNotification';
export type {
  EnvironmentNotification,
  NotificationSettings,
  UpstreamAttribution,
  UpstreamCause,
} from './buildNotification';
export { computeRollup, environmentVerdict } from './computeRollup';
export {
  EnvironmentTransitions,
  handleTransitionEffects,
} from './EnvironmentTransitions';
export { createRunFollowUp, reasonOfRun } from './runFollowUp';
export { createReconcileFollowUp } from './reconcileFollowUp';
export {
  RollupConsumer,
  rollupBucketId,
  systemOfRollupBucket,
} from './RollupConsumer';
export { handleSystemAnnouncements, RollupService } from './RollupService';
export { OwnerNotifier } from './OwnerNotifier';
export type { NotificationHold } from './OwnerNotifier';
export { readRollupSettings } from './rollupSettings';
export type { RollupSettings } from './rollupSettings';
