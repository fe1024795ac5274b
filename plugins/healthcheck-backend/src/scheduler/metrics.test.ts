import { metricsServiceMock } from '@backstage/backend-test-utils/alpha';
import { instrumentNamed } from '../__testUtils__/metricsInstruments';
import { createSchedulerMetrics, isMetricsService } from './metrics';

describe('createSchedulerMetrics', () => {
  it('records lateness in seconds on a histogram with bucket advice', () => {
    const service = metricsServiceMock.mock();
    const metrics = createSchedulerMetrics(service);
    metrics.recordLateness(1.5);
    const histogram = instrumentNamed(
      service.createHistogram,
      'healthcheck.scheduler.tick.lateness',
    );
    expect(histogram.record).toHaveBeenCalledWith(0.0015);
    expect(service.createHistogram.mock.calls[0][1]).toMatchObject({
      unit: 's',
      advice: { explicitBucketBoundaries: expect.arrayContaining([0.001]) },
    });
  });

  it('counts fired ticks, skipped ticks by reason and stale pops', () => {
    const service = metricsServiceMock.mock();
    const metrics = createSchedulerMetrics(service);
    metrics.addFiredTicks(5);
    metrics.addSkippedTicks(2, 'in-flight');
    metrics.addSkippedTicks(7, 'missed');
    metrics.addStalePops(3);
    const fired = instrumentNamed(
      service.createCounter,
      'healthcheck.scheduler.ticks.fired',
    );
    const skipped = instrumentNamed(
      service.createCounter,
      'healthcheck.scheduler.ticks.skipped',
    );
    const stale = instrumentNamed(
      service.createCounter,
      'healthcheck.scheduler.heap.stale_pops',
    );
    expect(fired.add).toHaveBeenCalledWith(5);
    expect(skipped.add.mock.calls).toEqual([
      [2, { reason: 'in-flight' }],
      [7, { reason: 'missed' }],
    ]);
    expect(stale.add).toHaveBeenCalledWith(3);
  });

  it('observes heap size and live slices until unregistered', () => {
    const service = metricsServiceMock.mock();
    const metrics = createSchedulerMetrics(service);
    const unregister = metrics.observeSizes(() => ({
      heapSize: 12,
      liveSlices: 10,
    }));
    const heap = instrumentNamed(
      service.createObservableGauge,
      'healthcheck.scheduler.heap.size',
    );
    const live = instrumentNamed(
      service.createObservableGauge,
      'healthcheck.scheduler.slices.live',
    );
    const observe = jest.fn();
    heap.addCallback.mock.calls[0][0]({ observe });
    live.addCallback.mock.calls[0][0]({ observe });
    expect(observe.mock.calls).toEqual([[12], [10]]);
    unregister();
    expect(heap.removeCallback).toHaveBeenCalledWith(
      heap.addCallback.mock.calls[0][0],
    );
    expect(live.removeCallback).toHaveBeenCalledWith(
      live.addCallback.mock.calls[0][0],
    );
  });

  it('tells the metrics service from a recorder', () => {
    expect(isMetricsService(metricsServiceMock.mock())).toBe(true);
    expect(
      isMetricsService(createSchedulerMetrics(metricsServiceMock.mock())),
    ).toBe(false);
  });
});
