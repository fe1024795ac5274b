export { SliceScheduler } from './SliceScheduler';
export { createSchedulerMetrics } from './metrics';
export type { SchedulerMetrics, SchedulerSizes } from './metrics';
export { systemClock } from './clock';
export { claimKeyAt } from './tickGrid';
export type {
  DueTick,
  ScheduledSlice,
  SchedulerClock,
  SchedulerStats,
  SkipReason,
  SliceChange,
  SliceSchedulerDependencies,
  SliceSchedulerOptions,
  TickExecutor,
  TickRuns,
  TimerHandle,
} from './types';
