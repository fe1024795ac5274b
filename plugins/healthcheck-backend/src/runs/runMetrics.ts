import type { ProbeErrorKind } from '@vigil/plugin-healthcheck-node';
import type { MetricsService } from '@backstage/backend-plugin-api/alpha';
import type { RunOutcome, SliceStatus } from '../judge';
import type { NotJudgedReason } from './notJudged';

/**
 * One finished probe run as metrics see it. Only attributes with a handful
 * of values: a series per system or slice would swamp a metrics backend,
 * and the history and the rollup already answer "which one".
 *
 * @internal
 */
export interface RunMeasurement {
  /** The probe type, such as `http`: one per installed probe module. */
  type: string;
  outcome: RunOutcome;
  errorKind?: ProbeErrorKind;
  durationMs: number;
  /** The slice's status after the run, and whether the run changed it. */
  status: SliceStatus;
  statusChanged: boolean;
}

/**
 * Where the runner reports each run. A narrow interface so tests can pass a
 * recorder and production binds Backstage's metrics service through
 * {@link createRunMetrics}.
 *
 * @internal
 */
export interface RunMetrics {
  recordRun(run: RunMeasurement): void;
  /** A tick that could not be judged, for a fault of Vigil's own. */
  recordUnjudged?(reason: NotJudgedReason): void;
}

/** @internal */
export const noopRunMetrics: RunMetrics = { recordRun() {} };

/** From a fast loopback answer to the longest timeout a check may have. */
const RUN_DURATION_BUCKETS_SECONDS = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

/**
 * Run metrics on Backstage's metrics service (OpenTelemetry underneath):
 * - `healthcheck.runs`: runs finished, by `type`, `outcome` and
 *   `error_kind` (`none` for a run without an error);
 * - `healthcheck.run.duration`: probe time in seconds, by `type` and
 *   `outcome`;
 * - `healthcheck.status.changes`: slice status changes, by the status
 *   changed `to`;
 * - `healthcheck.ticks.unjudged`: ticks that recorded no run and changed
 *   no status because Vigil could not judge them, by `reason`.
 *
 * @internal
 */
export function createRunMetrics(metrics: MetricsService): RunMetrics {
  const runs = metrics.createCounter<{
    type: string;
    outcome: RunOutcome;
    error_kind: ProbeErrorKind | 'none';
  }>('healthcheck.runs', {
    description:
      'Probe runs finished, by probe type, outcome and error kind (none without an error)',
  });
  const duration = metrics.createHistogram<{
    type: string;
    outcome: RunOutcome;
  }>('healthcheck.run.duration', {
    description: 'Time a probe run took, by probe type and outcome',
    unit: 's',
    advice: { explicitBucketBoundaries: RUN_DURATION_BUCKETS_SECONDS },
  });
  const statusChanges = metrics.createCounter<{ to: SliceStatus }>(
    'healthcheck.status.changes',
    { description: 'Slice status changes, by the status changed to' },
  );
  const unjudged = metrics.createCounter<{ reason: NotJudgedReason }>(
    'healthcheck.ticks.unjudged',
    {
      description:
        'Ticks not judged for a fault of Vigil itself (database: its read failed; stopping: the instance cut the probe short), recording no run and changing no status',
    },
  );
  return {
    recordRun(run) {
      const { type, outcome } = run;
      runs.add(1, { type, outcome, error_kind: run.errorKind ?? 'none' });
      duration.record(run.durationMs / 1000, { type, outcome });
      if (run.statusChanged) {
        statusChanges.add(1, { to: run.status });
      }
    },
    recordUnjudged(reason) {
      unjudged.add(1, { reason });
    },
  };
}
