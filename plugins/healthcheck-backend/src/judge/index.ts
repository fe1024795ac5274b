export {
  DEFAULT_STATUS_THRESHOLDS,
  applyRunOutcome,
  initialSliceStatusState,
  resolveStatusThresholds,
} from './sliceStatus';
export type {
  JudgedRun,
  RunOutcome,
  SliceStatus,
  SliceStatusState,
  StatusThresholds,
  StatusTransition,
} from './sliceStatus';
