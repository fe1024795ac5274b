import type { MetricsService } from '@backstage/backend-plugin-api/alpha';

/**
 * Why a tick did not run: its slice was still running the previous one, or it
 * fell due while the process was stalled (skipped, not replayed).
 *
 * @internal
 */
export type SkipReason = 'in-flight' | 'missed';

/**
 * What the scheduler reports. A narrow interface so tests can pass a recorder
 * and production passes Backstage's metrics service through
 * {@link createSchedulerMetrics}.
 *
 * @internal
 */
export interface SchedulerMetrics {
  /** Actual start minus due time of one tick, in milliseconds. */
  recordLateness(latenessMs: number): void;
  addFiredTicks(count: number): void;
  addSkippedTicks(count: number, reason: SkipReason): void;
  addStalePops(count: number): void;
  /**
   * Registers a reader of the current sizes, polled at collection time.
   *
   * @returns a function that unregisters it
   */
  observeSizes(read: () => SchedulerSizes): () => void;
}

/** @internal */
export interface SchedulerSizes {
  heapSize: number;
  liveSlices: number;
}

/** @internal */
export const noopSchedulerMetrics: SchedulerMetrics = {
  recordLateness() {},
  addFiredTicks() {},
  addSkippedTicks() {},
  addStalePops() {},
  observeSizes: () => () => {},
};

const LATENESS_BUCKETS_SECONDS = [
  0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30,
];

/**
 * Scheduler metrics on Backstage's metrics service (OpenTelemetry underneath).
 *
 * @internal
 */
export function createSchedulerMetrics(
  metrics: MetricsService,
): SchedulerMetrics {
  const lateness = metrics.createHistogram(
    'healthcheck.scheduler.tick.lateness',
    {
      description: 'Actual start of a tick minus its scheduled time',
      unit: 's',
      advice: { explicitBucketBoundaries: LATENESS_BUCKETS_SECONDS },
    },
  );
  const fired = metrics.createCounter('healthcheck.scheduler.ticks.fired', {
    description: 'Ticks handed to the executor',
  });
  const skipped = metrics.createCounter<{ reason: SkipReason }>(
    'healthcheck.scheduler.ticks.skipped',
    { description: 'Ticks not run, by reason (in-flight, missed)' },
  );
  const stalePops = metrics.createCounter(
    'healthcheck.scheduler.heap.stale_pops',
    { description: 'Superseded or cancelled heap entries dropped on pop' },
  );
  const heapSize = metrics.createObservableGauge(
    'healthcheck.scheduler.heap.size',
    { description: 'Entries in the due heap, live and stale' },
  );
  const liveSlices = metrics.createObservableGauge(
    'healthcheck.scheduler.slices.live',
    { description: 'Slices currently scheduled' },
  );

  return {
    recordLateness: latenessMs => lateness.record(latenessMs / 1000),
    addFiredTicks: count => fired.add(count),
    addSkippedTicks: (count, reason) => skipped.add(count, { reason }),
    addStalePops: count => stalePops.add(count),
    observeSizes(read) {
      const observeHeap = (result: { observe(value: number): void }) =>
        result.observe(read().heapSize);
      const observeLive = (result: { observe(value: number): void }) =>
        result.observe(read().liveSlices);
      heapSize.addCallback(observeHeap);
      liveSlices.addCallback(observeLive);
      return () => {
        heapSize.removeCallback(observeHeap);
        liveSlices.removeCallback(observeLive);
      };
    },
  };
}

/** Tells Backstage's metrics service from an already adapted recorder. */
export function isMetricsService(
  metrics: MetricsService | SchedulerMetrics,
): metrics is MetricsService {
  return 'createHistogram' in metrics;
}
