export {
  burnRateConditionHolds,
  decideBurnRateAlerts,
  DEFAULT_BURN_RATE_ALERT_RULES,
} from './burnRateAlerts';
export type {
  BurnRateAlertChange,
  BurnRateAlertRule,
  BurnRateSeverity,
} from './burnRateAlerts';
export { buildSloNotification } from './buildSloNotification';
export { loadCatalogObjectives } from './catalogObjectives';
export { ObjectiveAdmission } from './ObjectiveAdmission';
export type { CatalogObjective } from './catalogObjectives';
export {
  BURN_RATE_WINDOWS,
  burnRate,
  computeSlo,
  measureSlices,
  sloWindow,
} from './computeSlo';
export type { BurnRateWindow, SloStatus } from './computeSlo';
export { DatabaseSloAlertStore } from './DatabaseSloAlertStore';
export { measureSlice } from './measureIndicator';
export type {
  GoodAndBad,
  SloHour,
  SloIndicator,
  SloSliceHistory,
} from './measureIndicator';
export {
  evaluateSloAlerts,
  handleSloAlerts,
  readSloAlertRules,
  scheduleSloAlerts,
  SLO_ALERTS_TASK_ID,
} from './sloAlerts';
export { rawRangesFor, SloHistoryReader } from './SloHistoryReader';
export type { SloHistoryQuery } from './SloHistoryReader';
export { createSloRouter } from './sloRouter';
export {
  summarizeObjectives,
  systemSloSummaries,
  worstObjective,
} from './objectiveSummaries';
export type { ObjectiveSummary } from './objectiveSummaries';
