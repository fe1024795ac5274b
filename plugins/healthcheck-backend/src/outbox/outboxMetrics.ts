import type { MetricsService } from '@backstage/backend-plugin-api/alpha';
import type { OutboxMeasure } from './DatabaseOutbox';

/**
 * What became of a delivery: `delivered` (the receiver accepted it),
 * `failed` (put back to retry), `dropped` (given up: older than the
 * delivery deadline, or over the outbox's bound).
 * @internal
 */
export type DeliveryResult = 'delivered' | 'failed' | 'dropped';

/**
 * Where the outbox dispatcher reports; production binds Backstage's
 * metrics service through {@link createOutboxMetrics}.
 * @internal
 */
export interface OutboxMetrics {
  addDeliveries(count: number, kind: string, result: DeliveryResult): void;
  /** Registers a reader of the outbox's last measure, polled at collection. */
  observe(read: (now: number) => OutboxMeasure | undefined): void;
}

/** @internal */
export const noopOutboxMetrics: OutboxMetrics = {
  addDeliveries() {},
  observe() {},
};

/**
 * Outbox metrics on Backstage's metrics service:
 * - `healthcheck.outbox.deliveries`: by `kind` and `result`;
 * - `healthcheck.outbox.pending`: entries waiting (as of the last measure);
 * - `healthcheck.outbox.failing`: entries whose last delivery failed;
 * - `healthcheck.outbox.oldest_age`: seconds the oldest entry has waited.
 * @internal
 */
export function createOutboxMetrics(metrics: MetricsService): OutboxMetrics {
  const deliveries = metrics.createCounter<{
    kind: string;
    result: DeliveryResult;
  }>('healthcheck.outbox.deliveries', {
    description:
      'Outbox deliveries (notifications, events, signals, SLO alerts), by kind and result',
  });
  const pending = metrics.createObservableGauge('healthcheck.outbox.pending', {
    description: 'Side effects waiting in the outbox for delivery',
  });
  const failing = metrics.createObservableGauge('healthcheck.outbox.failing', {
    description: 'Outbox entries whose last delivery failed',
  });
  const oldestAge = metrics.createObservableGauge(
    'healthcheck.outbox.oldest_age',
    {
      description: 'How long the oldest outbox entry has waited, in seconds',
      unit: 's',
    },
  );
  return {
    addDeliveries: (count, kind, result) => {
      if (count > 0) {
        deliveries.add(count, { kind, result });
      }
    },
    observe: read => {
      pending.addCallback(result => {
        const measure = read(Date.now());
        if (measure) result.observe(measure.pending);
      });
      failing.addCallback(result => {
        const measure = read(Date.now());
        if (measure) result.observe(measure.failing);
      });
      oldestAge.addCallback(result => {
        const now = Date.now();
        const measure = read(now);
        if (measure) {
          result.observe(
            measure.oldestCreatedAt === undefined
              ? 0
              : Math.max(0, (now - measure.oldestCreatedAt) / 1000),
          );
        }
      });
    },
  };
}
