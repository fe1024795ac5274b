/**
 * The sweep: re-derives every environment's status and every system's
 * rollup from durable state, periodically and on demand, and repairs what
 * the live path missed.
 */
import type { SweepOutcome } from './sweepMetrics';

export { HealthSweep, joinSweepScopes } from './HealthSweep';
export type { SweepScope } from './HealthSweep';
export {
  environmentNeedsRepair,
  planSystemRepair,
  rollupFingerprint,
} from './planSystemRepair';
export type {
  RollupRepairReason,
  SystemRepairPlan,
  SystemSnapshot,
} from './planSystemRepair';
export { scheduleSweep, SWEEP_TASK_ID } from './scheduleSweep';
export { createSweepMetrics, noopSweepMetrics } from './sweepMetrics';
export type { SweepMetrics, SweepOutcome } from './sweepMetrics';
export { readSweepSettings } from './sweepSettings';
export type { SweepSettings } from './sweepSettings';

/**
 * Re-derives environment statuses and rollups from durable state now: see
 * `HealthSweep.rederiveNow`. What the run path calls once the database is
 * back from an outage.
 * @internal
 */
export type RederiveHealth = (options?: {
  /** Only these systems (entity refs, any case); every system when absent. */
  systemRefs?: readonly string[];
}) => Promise<SweepOutcome>;
