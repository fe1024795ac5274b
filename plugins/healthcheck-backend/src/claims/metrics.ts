import type { MetricsService } from '@backstage/backend-plugin-api/alpha';

/**
 * What became of a due tick at the claim stage: this instance `claimed` it,
 * `lost` it (its run row already existed: another instance, or an earlier
 * life of this one, claimed it first), it was `not-owned` (another live
 * instance owns the slice), or the claim failed (database error) and the
 * tick runs `unclaimed` (outage mode) or, without outage mode, `failed` (it
 * does not run).
 *
 * @internal
 */
export type ClaimOutcome =
  | 'claimed'
  | 'lost'
  | 'not-owned'
  | 'failed'
  | 'unclaimed';

/**
 * Where the claim stage reports. A narrow interface so tests can pass a
 * recorder and production binds Backstage's metrics service through
 * {@link createClaimMetrics}.
 *
 * @internal
 */
export interface ClaimMetrics {
  addTicks(count: number, outcome: ClaimOutcome): void;
  /** One claim statement's duration, in milliseconds. */
  recordClaimDuration(durationMs: number): void;
}

/** @internal */
export const noopClaimMetrics: ClaimMetrics = {
  addTicks() {},
  recordClaimDuration() {},
};

const CLAIM_DURATION_BUCKETS_SECONDS = [
  0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5,
];

/**
 * Claim metrics on Backstage's metrics service (OpenTelemetry underneath).
 *
 * @internal
 */
export function createClaimMetrics(metrics: MetricsService): ClaimMetrics {
  const ticks = metrics.createCounter<{ outcome: ClaimOutcome }>(
    'healthcheck.claims.ticks',
    {
      description:
        'Due ticks at the claim stage, by outcome (claimed, lost, not-owned, unclaimed, failed)',
    },
  );
  const duration = metrics.createHistogram('healthcheck.claims.duration', {
    description: 'Duration of one claim statement for a batch of ticks',
    unit: 's',
    advice: { explicitBucketBoundaries: CLAIM_DURATION_BUCKETS_SECONDS },
  });
  return {
    addTicks: (count, outcome) => {
      if (count > 0) {
        ticks.add(count, { outcome });
      }
    },
    recordClaimDuration: durationMs => duration.record(durationMs / 1000),
  };
}

/** Tells Backstage's metrics service from an already adapted recorder. */
export function isMetricsService(
  metrics: MetricsService | ClaimMetrics,
): metrics is MetricsService {
  return 'createCounter' in metrics;
}
