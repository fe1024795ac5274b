import { metricsServiceMock } from '@backstage/backend-test-utils/alpha';
import {
  createClaimMetrics,
  isMetricsService,
  noopClaimMetrics,
} from './metrics';

function instrument(mock: jest.MockInstance<any, any>, name: string) {
  const index = mock.mock.calls.findIndex(([called]) => called === name);
  expect(index).toBeGreaterThanOrEqual(0);
  return mock.mock.results[index].value;
}

describe('createClaimMetrics', () => {
  it('counts ticks by outcome, and leaves out empty counts', () => {
    const service = metricsServiceMock.mock();
    const metrics = createClaimMetrics(service);
    metrics.addTicks(12, 'claimed');
    metrics.addTicks(0, 'lost');
    metrics.addTicks(24, 'not-owned');
    metrics.addTicks(3, 'failed');

    const ticks = instrument(service.createCounter, 'healthcheck.claims.ticks');
    expect(ticks.add.mock.calls).toEqual([
      [12, { outcome: 'claimed' }],
      [24, { outcome: 'not-owned' }],
      [3, { outcome: 'failed' }],
    ]);
  });

  it('records claim durations in seconds', () => {
    const service = metricsServiceMock.mock();
    createClaimMetrics(service).recordClaimDuration(2.5);
    const histogram = instrument(
      service.createHistogram,
      'healthcheck.claims.duration',
    );
    expect(histogram.record).toHaveBeenCalledWith(0.0025);
  });

  it('tells the metrics service from a recorder', () => {
    expect(isMetricsService(metricsServiceMock.mock())).toBe(true);
    expect(isMetricsService(noopClaimMetrics)).toBe(false);
  });
});
