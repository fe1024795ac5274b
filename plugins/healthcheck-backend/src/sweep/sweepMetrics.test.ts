import { metricsServiceMock } from '@backstage/backend-test-utils/alpha';
import { instrumentNamed } from '../__testUtils__/metricsInstruments';
import { createSweepMetrics, SweepOutcome } from './sweepMetrics';

const QUIET: SweepOutcome = {
  scope: 'all',
  systems: 2_000,
  slices: 10_000,
  environments: 0,
  goneEnvironments: 0,
  rollups: { 'missed-window': 0, drift: 0, upstream: 0 },
  failedRollups: 0,
  prunedClaims: 0,
  durationMs: 1_500,
};

describe('createSweepMetrics', () => {
  it('counts each kind of repair with its reason, and nothing for a quiet sweep', () => {
    const service = metricsServiceMock.mock();
    const metrics = createSweepMetrics(service);
    metrics.recordSweep(QUIET);
    metrics.recordSweep({
      ...QUIET,
      environments: 1,
      goneEnvironments: 2,
      rollups: { 'missed-window': 3, drift: 4, upstream: 0 },
    });
    const repairs = instrumentNamed(
      service.createCounter,
      'healthcheck.sweep.repairs',
    );
    expect(repairs.add.mock.calls).toEqual([
      [1, { kind: 'environment', reason: 'missed-transition' }],
      [2, { kind: 'environment', reason: 'gone' }],
      [3, { kind: 'rollup', reason: 'missed-window' }],
      [4, { kind: 'rollup', reason: 'drift' }],
    ]);
  });

  it('records how long each sweep took, in seconds, by scope', () => {
    const service = metricsServiceMock.mock();
    const metrics = createSweepMetrics(service);
    metrics.recordSweep(QUIET);
    metrics.recordSweep({
      ...QUIET,
      scope: ['system:default/a'],
      durationMs: 20,
    });
    const duration = instrumentNamed(
      service.createHistogram,
      'healthcheck.sweep.duration',
    );
    expect(duration.record.mock.calls).toEqual([
      [1.5, { scope: 'all' }],
      [0.02, { scope: 'systems' }],
    ]);
  });
});
