import { metricsServiceMock } from '@backstage/backend-test-utils/alpha';
import { instrumentNamed } from '../__testUtils__/metricsInstruments';
import { createRunMetrics } from './runMetrics';

describe('createRunMetrics', () => {
  const failedRun = {
    type: 'http',
    outcome: 'fail' as const,
    errorKind: 'timeout' as const,
    durationMs: 2_500,
    status: 'unhealthy' as const,
    statusChanged: true,
  };

  it('counts runs by probe type, outcome and error kind', () => {
    const service = metricsServiceMock.mock();
    const metrics = createRunMetrics(service);
    metrics.recordRun(failedRun);
    metrics.recordRun({
      ...failedRun,
      outcome: 'pass',
      errorKind: undefined,
      status: 'healthy',
    });

    const runs = instrumentNamed(service.createCounter, 'healthcheck.runs');
    expect(runs.add.mock.calls).toEqual([
      [1, { type: 'http', outcome: 'fail', error_kind: 'timeout' }],
      [1, { type: 'http', outcome: 'pass', error_kind: 'none' }],
    ]);
  });

  it('records how long each run took, in seconds', () => {
    const service = metricsServiceMock.mock();
    createRunMetrics(service).recordRun(failedRun);

    const duration = instrumentNamed(
      service.createHistogram,
      'healthcheck.run.duration',
    );
    expect(duration.record).toHaveBeenCalledWith(2.5, {
      type: 'http',
      outcome: 'fail',
    });
  });

  it('counts status changes by the status changed to, and only changes', () => {
    const service = metricsServiceMock.mock();
    const metrics = createRunMetrics(service);
    metrics.recordRun(failedRun);
    metrics.recordRun({ ...failedRun, statusChanged: false });

    const changes = instrumentNamed(
      service.createCounter,
      'healthcheck.status.changes',
    );
    expect(changes.add.mock.calls).toEqual([[1, { to: 'unhealthy' }]]);
  });

  it('counts ticks Vigil could not judge, by reason', () => {
    const service = metricsServiceMock.mock();
    const metrics = createRunMetrics(service);
    metrics.recordUnjudged!('database');
    metrics.recordUnjudged!('stopping');

    const unjudged = instrumentNamed(
      service.createCounter,
      'healthcheck.ticks.unjudged',
    );
    expect(unjudged.add.mock.calls).toEqual([
      [1, { reason: 'database' }],
      [1, { reason: 'stopping' }],
    ]);
  });
});
