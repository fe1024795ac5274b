/**
 * Attributes of one measurement.
 *
 * @internal
 */
export type MetricAttributes = Readonly<Record<string, string>>;

/**
 * Where the bulkhead reports, shaped so that a thin adapter binds it to
 * Backstage's `MetricsService` (counters and histograms by name) and tests
 * can pass a recorder.
 *
 * @internal
 */
export interface AdmissionMetricsRecorder {
  counter(name: string): {
    add(value: number, attributes?: MetricAttributes): void;
  };
  histogram(name: string): {
    record(value: number, attributes?: MetricAttributes): void;
  };
}

/**
 * The names the bulkhead reports under, with what an adapter needs to
 * declare them.
 *
 * @internal
 */
export const ADMISSION_METRICS = Object.freeze({
  deferred: {
    name: 'healthcheck.deferred',
    description: 'Suspect runs not started, by reason',
    attributes: ['reason'],
  },
  started: {
    name: 'healthcheck.admission.started',
    description: 'Runs started, by lane',
    attributes: ['lane'],
  },
  queueWait: {
    name: 'healthcheck.admission.queue_wait',
    description: 'Start of a run minus its due time, by lane',
    unit: 's',
    attributes: ['lane'],
  },
});

/** @internal */
export const noopAdmissionMetrics: AdmissionMetricsRecorder = {
  counter: () => ({ add() {} }),
  histogram: () => ({ record() {} }),
};
