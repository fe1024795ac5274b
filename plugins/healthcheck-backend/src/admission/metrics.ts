import type { MetricsService } from '@backstage/backend-plugin-api/alpha';

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

/**
 * Binds the bulkhead's metrics to Backstage's metrics service, declaring
 * each instrument once with its description and unit.
 *
 * @internal
 */
export function createAdmissionMetrics(
  metrics: MetricsService,
): AdmissionMetricsRecorder {
  const declared = Object.values(ADMISSION_METRICS);
  const describe = (name: string) => {
    const metric = declared.find(m => m.name === name);
    return {
      description: metric?.description,
      unit: metric && 'unit' in metric ? metric.unit : undefined,
    };
  };
  const counters = new Map<
    string,
    ReturnType<AdmissionMetricsRecorder['counter']>
  >();
  const histograms = new Map<
    string,
    ReturnType<AdmissionMetricsRecorder['histogram']>
  >();
  return {
    counter(name) {
      let counter = counters.get(name);
      if (!counter) {
        counter = metrics.createCounter(name, describe(name));
        counters.set(name, counter);
      }
      return counter;
    },
    histogram(name) {
      let histogram = histograms.get(name);
      if (!histogram) {
        histogram = metrics.createHistogram(name, describe(name));
        histograms.set(name, histogram);
      }
      return histogram;
    },
  };
}
