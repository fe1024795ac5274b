import type {
  ProbeErrorKind,
  ProbeResult,
} from '@vigil/plugin-healthcheck-node';
import type {
  ConditionSpec,
  JudgedCondition,
} from '@vigil/plugin-healthcheck-common';
import type { Lane } from '../admission';
import type {
  RunOutcome,
  SliceStatus,
  SliceStatusState,
  StatusThresholds,
} from '../judge';
import type { ScheduledSlice } from '../scheduler';

/**
 * A slice as the runner needs it: what to probe, how to judge it.
 */
export interface RunnableSlice extends ScheduledSlice {
  readonly checkId: string;
  readonly systemRef: string;
  readonly environment: string;
  /** The probe type, such as `http`. */
  readonly type: string;
  /** The target, already rendered for the system and environment. */
  readonly target: string;
  readonly timeoutMs: number;
  /** The probe type's own fields. */
  readonly config: Record<string, unknown>;
  readonly conditions: readonly ConditionSpec[];
  /** Unset fields take the defaults (2 failures, 1 success). */
  readonly thresholds?: Partial<StatusThresholds>;
}

/** One run of one slice at one scheduled tick, as recorded. */
export interface RunRecord {
  readonly sliceId: string;
  readonly checkId: string;
  readonly systemRef: string;
  readonly environment: string;
  /** The grid time of the tick (epoch ms). */
  readonly scheduledAt: number;
  readonly startedAt: number;
  readonly durationMs: number;
  readonly outcome: RunOutcome;
  readonly status: SliceStatus;
  readonly previousStatus: SliceStatus;
  readonly statusChanged: boolean;
  /** The slice's judged state after this run. */
  readonly state: SliceStatusState;
  readonly conditions: readonly JudgedCondition[];
  readonly error?: { kind: ProbeErrorKind; message: string };
  readonly lane: Lane;
  /** The timeout this run had: the configured one, or shrunk by the bulkhead. */
  readonly timeoutMs: number;
  /** From due time to start. */
  readonly queueWaitMs: number;
  readonly probe: Omit<ProbeResult, 'body'>;
}

/**
 * A pause of a slice, recorded as a marker run.
 *
 * @internal
 */
export interface PauseMarker {
  readonly sliceId: string;
  /** When the slice was paused (epoch ms). */
  readonly at: number;
}

/**
 * One run `POST /v1/checks/{id}/run` started.
 * @internal
 */
export interface CheckRunStarted {
  /**
   * `<sliceId>@<epoch ms>`: the slice and the time the run is recorded at
   * (when it was asked for, or that of the run under way it joined, on
   * whichever instance); its result is listed with the slice's runs.
   */
  runId: string;
  sliceId: string;
  systemRef: string;
  environment: string;
}
