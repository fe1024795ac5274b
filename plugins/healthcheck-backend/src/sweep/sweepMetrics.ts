import type { MetricsService } from '@backstage/backend-plugin-api/alpha';
import type { RollupRepairReason } from './planSystemRepair';

/**
 * What one sweep found and did.
 * @internal
 */
export interface SweepOutcome {
  /** `all`, or the systems a scoped sweep covered. */
  scope: 'all' | string[];
  /** Systems and slices read. */
  systems: number;
  slices: number;
  /** Environment transitions made that the live path had missed. */
  environments: number;
  /** Stored environment statuses forgotten: their slices are gone. */
  goneEnvironments: number;
  /** Rollups recomputed, by why. */
  rollups: Record<RollupRepairReason, number>;
  /** Rollups that could not be recomputed (the next sweep tries again). */
  failedRollups: number;
  /** Rollup claims pruned (full sweeps only). */
  prunedClaims: number;
  durationMs: number;
}

/**
 * Where the sweep reports. A narrow interface so tests can pass a recorder
 * and production binds Backstage's metrics service through
 * {@link createSweepMetrics}.
 * @internal
 */
export interface SweepMetrics {
  recordSweep(outcome: SweepOutcome): void;
}

/** @internal */
export const noopSweepMetrics: SweepMetrics = { recordSweep() {} };

const SWEEP_DURATION_BUCKETS_SECONDS = [0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

/**
 * Sweep metrics on Backstage's metrics service (OpenTelemetry underneath):
 * - `healthcheck.sweep.repairs`: what sweeps repaired, by `kind`
 *   (`environment`, `rollup`) and `reason` (`missed-transition`, `gone`
 *   for environments; `missed-window`, `drift`, `upstream` for rollups).
 *   Anything above zero is a follow-up the live path missed;
 * - `healthcheck.sweep.duration`: how long a sweep took, in seconds, by
 *   `scope` (`all` or `systems`).
 * @internal
 */
export function createSweepMetrics(metrics: MetricsService): SweepMetrics {
  const repairs = metrics.createCounter<{
    kind: 'environment' | 'rollup';
    reason: 'missed-transition' | 'gone' | RollupRepairReason;
  }>('healthcheck.sweep.repairs', {
    description:
      'Environment statuses and rollups a sweep found wrong and repaired, by kind and reason',
  });
  const duration = metrics.createHistogram<{ scope: 'all' | 'systems' }>(
    'healthcheck.sweep.duration',
    {
      description: 'Time a sweep of environment statuses and rollups took',
      unit: 's',
      advice: { explicitBucketBoundaries: SWEEP_DURATION_BUCKETS_SECONDS },
    },
  );
  return {
    recordSweep(outcome) {
      const add = (
        count: number,
        kind: 'environment' | 'rollup',
        reason: 'missed-transition' | 'gone' | RollupRepairReason,
      ) => {
        if (count > 0) {
          repairs.add(count, { kind, reason });
        }
      };
      add(outcome.environments, 'environment', 'missed-transition');
      add(outcome.goneEnvironments, 'environment', 'gone');
      for (const [reason, count] of Object.entries(outcome.rollups)) {
        add(count, 'rollup', reason as RollupRepairReason);
      }
      duration.record(outcome.durationMs / 1000, {
        scope: outcome.scope === 'all' ? 'all' : 'systems',
      });
    },
  };
}
