/**
 * The outbox: side effects written with the state change that calls for
 * them, delivered at least once by whichever instance is alive.
 */
export { DatabaseOutbox } from './DatabaseOutbox';
export type {
  ClaimedOutboxEntry,
  OutboxEntry,
  OutboxMeasure,
} from './DatabaseOutbox';
export {
  DEFAULT_OUTBOX_DISPATCHER_SETTINGS,
  OutboxDispatcher,
} from './OutboxDispatcher';
export type {
  OutboxDelivery,
  OutboxDispatcherSettings,
  OutboxWriter,
} from './OutboxDispatcher';
export { createOutboxMetrics, noopOutboxMetrics } from './outboxMetrics';
export type { DeliveryResult, OutboxMetrics } from './outboxMetrics';
