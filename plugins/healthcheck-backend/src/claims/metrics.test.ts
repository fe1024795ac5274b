import { metricsServiceMock } from '@backstage/backend-test-utils/alpha';
import { instrumentNamed } from '../__testUtils__/metricsInstruments';
import {
  createClaimMetrics,
  isMetricsService,
  noopClaimMetrics,
} from './metrics';

describe('createClaimMetrics', () => {
  it('counts ticks by outcome, and leaves out empty counts', () => {
    const service = metricsServiceMock.mock();
    const metrics = createClaimMetrics(service);
    metrics.addTicks(12, 'claimed');
    metrics.addTicks(0, 'lost');
    metrics.addTicks(24, 'not-owned');
    metrics.addTicks(3, 'failed');

    const ticks = instrumentNamed(
      service.createCounter,
      'healthcheck.claims.ticks',
    );
    expect(ticks.add.mock.calls).toEqual([
      [12, { outcome: 'claimed' }],
      [24, { outcome: 'not-owned' }],
      [3, { outcome: 'failed' }],
    ]);
  });

  it('records claim durations in seconds', () => {
    const service = metricsServiceMock.mock();
    createClaimMetrics(service).recordClaimDuration(2.5);
    const histogram = instrumentNamed(
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
