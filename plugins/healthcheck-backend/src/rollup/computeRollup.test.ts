import type { SliceStatus } from '../judge';
import { computeRollup, environmentVerdict } from './computeRollup';
import type { EnvironmentSlice } from '../model';

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

function slice(
  checkId: string,
  environment: string,
  status: SliceStatus | 'never-ran' | 'paused',
  lastReason?: string,
): EnvironmentSlice {
  return {
    sliceId: `${checkId}@${environment}`,
    checkId,
    systemRef: 'system:default/payments',
    environment,
    paused: status === 'paused',
    state:
      status === 'never-ran' || status === 'paused'
        ? undefined
        : {
            sliceId: `${checkId}@${environment}`,
            checkId,
            systemRef: 'system:default/payments',
            environment,
            status,
            consecutiveFailures: status === 'unhealthy' ? 2 : 0,
            consecutiveSuccesses: status === 'healthy' ? 1 : 0,
            since: T0 - 60_000,
            lastOutcome: status === 'unhealthy' ? 'fail' : 'pass',
            lastScheduledAt: T0 - 10_000,
            lastRunAt: T0 - 10_000,
            lastReason,
          },
  };
}

describe('environmentVerdict', () => {
  it('is the worst of the slices, counting k of n healthy', () => {
    expect(
      environmentVerdict([
        slice('a', 'production', 'healthy'),
        slice('b', 'production', 'degraded'),
        slice('c', 'production', 'healthy'),
      ]),
    ).toMatchObject({ status: 'degraded', healthy: 2, total: 3 });
  });

  it('names the slices that set a bad status', () => {
    const verdict = environmentVerdict([
      slice('a', 'production', 'unhealthy'),
      slice('b', 'production', 'degraded'),
    ]);
    expect(verdict.responsible.map(s => s.checkId)).toEqual(['a']);
  });

  it('is unknown while a slice has not run, and paused only when every slice is', () => {
    expect(
      environmentVerdict([
        slice('a', 'production', 'healthy'),
        slice('b', 'production', 'never-ran'),
      ]).status,
    ).toBe('unknown');
    expect(
      environmentVerdict([
        slice('a', 'production', 'healthy'),
        slice('b', 'production', 'paused'),
      ]),
    ).toMatchObject({ status: 'healthy', healthy: 1, total: 1 });
    expect(
      environmentVerdict([slice('a', 'production', 'paused')]),
    ).toMatchObject({ status: 'paused', healthy: 0, total: 0 });
  });
});

describe('computeRollup', () => {
  it('takes the worst environment for the system, with reasons worst first', () => {
    const rollup = computeRollup({
      systemRef: 'system:default/Payments',
      slices: [
        slice('api', 'production', 'unhealthy', '[STATUS] (500) == 200'),
        slice('db', 'production', 'healthy'),
        slice('api', 'staging', 'degraded', '[RESPONSE_TIME] (812) < 500'),
      ],
      environmentSince: new Map(),
      upstream: [],
      now: T0,
    });
    expect(rollup).toMatchObject({
      systemRef: 'system:default/payments',
      status: 'unhealthy',
      healthy: 1,
      total: 3,
      environments: [
        { name: 'production', status: 'unhealthy', healthy: 1, total: 2 },
        { name: 'staging', status: 'degraded', healthy: 0, total: 1 },
      ],
      reasons: [
        {
          checkId: 'api',
          environment: 'production',
          status: 'unhealthy',
          display: '[STATUS] (500) == 200',
        },
        {
          checkId: 'api',
          environment: 'staging',
          status: 'degraded',
          display: '[RESPONSE_TIME] (812) < 500',
        },
      ],
    });
  });

  it('says which components a failing check targets, when it names any', () => {
    const rollup = computeRollup({
      systemRef: 'system:default/payments',
      slices: [
        {
          ...slice('api', 'production', 'unhealthy', 'down'),
          components: ['component:default/payments-service'],
        },
        slice('db', 'production', 'unhealthy', 'down'),
      ],
      environmentSince: new Map(),
      upstream: [],
      now: T0,
    });
    expect(rollup.reasons).toEqual([
      {
        checkId: 'api',
        environment: 'production',
        status: 'unhealthy',
        display: 'down',
        components: ['component:default/payments-service'],
      },
      {
        checkId: 'db',
        environment: 'production',
        status: 'unhealthy',
        display: 'down',
      },
    ]);
  });

  it('lists the upstream systems that are degraded or unhealthy, not the healthy ones', () => {
    const rollup = computeRollup({
      systemRef: 'system:default/checkout',
      slices: [slice('web', 'production', 'unhealthy')],
      environmentSince: new Map(),
      upstream: [
        { systemRef: 'system:default/payments', status: 'unhealthy' },
        { systemRef: 'system:default/identity', status: 'healthy' },
        { systemRef: 'system:default/messaging', status: 'unknown' },
      ],
      now: T0,
    });
    expect(rollup.upstream).toEqual([
      { systemRef: 'system:default/payments', status: 'unhealthy' },
    ]);
  });

  it('keeps since while the status holds, and restarts it on a change', () => {
    const first = computeRollup({
      systemRef: 'system:default/payments',
      slices: [slice('api', 'production', 'healthy')],
      environmentSince: new Map([
        ['production', { status: 'healthy', since: T0 - 5_000 }],
      ]),
      upstream: [],
      now: T0,
    });
    expect(first.environments[0].since).toBe(
      new Date(T0 - 5_000).toISOString(),
    );
    const same = computeRollup({
      systemRef: 'system:default/payments',
      slices: [slice('api', 'production', 'healthy')],
      environmentSince: new Map(),
      upstream: [],
      previous: first,
      now: T0 + 60_000,
    });
    expect(same.since).toBe(first.since);
    const changed = computeRollup({
      systemRef: 'system:default/payments',
      slices: [slice('api', 'production', 'unhealthy')],
      environmentSince: new Map(),
      upstream: [],
      previous: first,
      now: T0 + 60_000,
    });
    expect(changed.since).toBe(new Date(T0 + 60_000).toISOString());
  });

  it('is unknown for a system without slices', () => {
    expect(
      computeRollup({
        systemRef: 'system:default/empty',
        slices: [],
        environmentSince: new Map(),
        upstream: [],
        now: T0,
      }),
    ).toMatchObject({
      status: 'unknown',
      environments: [],
      healthy: 0,
      total: 0,
    });
  });
});
