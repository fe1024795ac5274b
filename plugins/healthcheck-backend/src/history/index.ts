export {
  HOUR_MS,
  hourStartOf,
  nearestRankPercentile,
  runStatistics,
  summarizeHours,
  summarizeWindow,
} from './aggregateRuns';
export type {
  HourSummary,
  RunStatistics,
  WindowSummary,
} from './aggregateRuns';
export { DatabaseHistoryStore } from './DatabaseHistoryStore';
export {
  AGGREGATION_SETTLE_MS,
  HISTORY_MAINTENANCE_TASK_ID,
  readHistorySettings,
  runHistoryMaintenance,
  scheduleHistoryMaintenance,
} from './HistoryMaintenance';
export type { HistorySettings } from './HistoryMaintenance';
export { timeWeightedUptime, uptimeRatio } from './timeWeightedUptime';
export type {
  HistoryRun,
  TimeWeightedUptime,
  UptimeWindow,
} from './timeWeightedUptime';
