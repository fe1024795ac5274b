import type { HealthStatus } from '@vigil/plugin-healthcheck-common';
import { computeRollup } from '../rollup/computeRollup';
import {
  environmentNeedsRepair,
  planSystemRepair,
  rollupFingerprint,
  SystemSnapshot,
} from './planSystemRepair';
import type { EnvironmentSlice } from '../model';

const SYSTEM = 'system:default/payments';
const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);

function slice(
  environment: string,
  status: HealthStatus | 'never-ran',
  lastReason?: string,
): EnvironmentSlice {
  const key = { checkId: 'payments-health', systemRef: SYSTEM, environment };
  return {
    sliceId: `healthcheck:payments-health:payments:${environment}`,
    ...key,
    paused: status === 'paused',
    state:
      status === 'never-ran' || status === 'paused'
        ? undefined
        : {
            sliceId: `healthcheck:payments-health:payments:${environment}`,
            ...key,
            status: status as any,
            consecutiveFailures: 0,
            consecutiveSuccesses: 1,
            since: NOW - 60_000,
            lastOutcome: status === 'healthy' ? 'pass' : 'fail',
            lastScheduledAt: NOW - 10_000,
            lastRunAt: NOW - 10_000,
            lastReason,
          },
  };
}

/** A system whose stored statuses and rollup say what its slices say. */
function consistent(slices: EnvironmentSlice[]): SystemSnapshot {
  const environmentStates = new Map(
    slices.map(s => [
      s.environment,
      { status: (s.state?.status ?? 'unknown') as HealthStatus, since: NOW },
    ]),
  );
  const rollup = computeRollup({
    systemRef: SYSTEM,
    slices,
    environmentSince: environmentStates,
    upstream: [],
    now: NOW - 30_000,
  });
  return {
    systemRef: SYSTEM,
    slices,
    environmentStates,
    stored: { rollup, computedAt: NOW - 30_000 },
    statusOf: () => undefined,
  };
}

describe('environmentNeedsRepair', () => {
  it('repairs a stored status other than the verdict', () => {
    expect(environmentNeedsRepair('healthy', 'unhealthy')).toBe(true);
    expect(environmentNeedsRepair('unhealthy', 'unhealthy')).toBe(false);
  });

  it('repairs a status never stored, unless the slices have not run yet', () => {
    expect(environmentNeedsRepair(undefined, 'unhealthy')).toBe(true);
    expect(environmentNeedsRepair(undefined, 'unknown')).toBe(false);
  });
});

describe('rollupFingerprint', () => {
  it('changes with what the slices decide, not with the times', () => {
    const { stored } = consistent([slice('production', 'unhealthy', 'down')]);
    const rollup = stored!.rollup;
    const later = { ...rollup, updatedAt: 'later', since: 'later' };
    const otherReason = {
      ...rollup,
      reasons: [{ ...rollup.reasons[0], display: 'timeout' }],
    };
    expect(rollupFingerprint(later)).toBe(rollupFingerprint(rollup));
    expect(rollupFingerprint(otherReason)).not.toBe(rollupFingerprint(rollup));
  });
});

describe('planSystemRepair', () => {
  it('repairs nothing of a system whose stored state says what its slices say', () => {
    const snapshot = consistent([
      slice('production', 'unhealthy', 'down'),
      slice('staging', 'healthy'),
    ]);
    expect(planSystemRepair(snapshot, NOW)).toEqual({
      environments: [],
      goneEnvironments: [],
    });
  });

  it('repairs an environment whose stored status is not what its slices say, and the rollup', () => {
    const before = consistent([
      slice('production', 'healthy'),
      slice('staging', 'healthy'),
    ]);
    // A run turned production unhealthy; its follow-up never ran.
    const snapshot = {
      ...before,
      slices: [
        slice('production', 'unhealthy', 'down'),
        slice('staging', 'healthy'),
      ],
    };
    expect(planSystemRepair(snapshot, NOW)).toEqual({
      environments: ['production'],
      goneEnvironments: [],
      rollup: 'drift',
    });
  });

  it('recomputes a rollup whose reasons changed while every status held', () => {
    const before = consistent([slice('production', 'unhealthy', 'down')]);
    const snapshot = {
      ...before,
      slices: [slice('production', 'unhealthy', 'timeout')],
    };
    expect(planSystemRepair(snapshot, NOW).rollup).toBe('drift');
  });

  it('forgets the status of an environment that lost its slices, and drops it from the rollup', () => {
    const before = consistent([
      slice('production', 'healthy'),
      slice('canary', 'unhealthy', 'down'),
    ]);
    const snapshot = { ...before, slices: [slice('production', 'healthy')] };
    expect(planSystemRepair(snapshot, NOW)).toEqual({
      environments: [],
      goneEnvironments: ['canary'],
      rollup: 'drift',
    });
  });

  it('recomputes a system with slices and no rollup, but not one with neither', () => {
    const withSlices = {
      ...consistent([slice('production', 'never-ran')]),
      stored: undefined,
    };
    expect(planSystemRepair(withSlices, NOW).rollup).toBe('drift');
    expect(
      planSystemRepair({ ...withSlices, slices: [] }, NOW).rollup,
    ).toBeUndefined();
  });

  it('recomputes a system whose window was claimed and never computed', () => {
    const snapshot = consistent([slice('production', 'healthy')]);
    const claimedAfter = snapshot.stored!.computedAt + 1;
    expect(
      planSystemRepair({ ...snapshot, overdueClaimAt: claimedAfter }, NOW)
        .rollup,
    ).toBe('missed-window');
    expect(
      planSystemRepair(
        { ...snapshot, overdueClaimAt: snapshot.stored!.computedAt },
        NOW,
      ).rollup,
    ).toBeUndefined();
  });

  it('recomputes a rollup that names an upstream system with another status now', () => {
    const snapshot = consistent([slice('production', 'unhealthy', 'down')]);
    snapshot.stored!.rollup.upstream = [
      { systemRef: 'system:default/identity', status: 'unhealthy' },
    ];
    const withUpstream = (status: HealthStatus | undefined) =>
      planSystemRepair({ ...snapshot, statusOf: () => status }, NOW).rollup;
    expect(withUpstream('healthy')).toBe('upstream');
    expect(withUpstream('unhealthy')).toBeUndefined();
    // Not read: nothing to compare with.
    expect(withUpstream(undefined)).toBeUndefined();
  });
});
