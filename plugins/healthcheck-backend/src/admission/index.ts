export { Bulkhead } from './Bulkhead';
export type {
  BulkheadDependencies,
  BulkheadRequest,
  BulkheadResult,
  BulkheadStats,
  BulkheadWork,
} from './Bulkhead';
export { admit, mayTakeSlot } from './admit';
export type {
  AdmissionDecision,
  AdmissionInput,
  DeferReason,
  Lane,
  SlotShareInput,
} from './admit';
export { adaptiveTimeout } from './adaptiveTimeout';
export type {
  AdaptiveTimeout,
  AdaptiveTimeoutInput,
  TimeoutReason,
} from './adaptiveTimeout';
export {
  EMPTY_ENDPOINT_HISTORY,
  classifyEndpoint,
  endpointKeyOf,
  recordEndpointRun,
} from './classifyEndpoint';
export type {
  EndpointClassification,
  EndpointHistory,
} from './classifyEndpoint';
export {
  EMPTY_SLICE_HISTORY,
  classifySlice,
  healthyBaselineMs,
  isSlowTransportFailure,
  recordRun,
} from './classifySlice';
export type {
  RecordedRun,
  RunSummary,
  SliceClassification,
  SliceHistory,
} from './classifySlice';
export {
  ADMISSION_METRICS,
  createAdmissionMetrics,
  noopAdmissionMetrics,
} from './metrics';
export type { AdmissionMetricsRecorder, MetricAttributes } from './metrics';
export { DEFAULT_ADMISSION_OPTIONS, resolveAdmissionOptions } from './options';
export { primeBulkhead, recordedRunOf } from './primeBulkhead';
export type { PrimingRun } from './primeBulkhead';
export type { AdmissionOptions } from './options';
