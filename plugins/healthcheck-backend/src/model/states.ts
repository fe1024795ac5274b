import type {
  HealthStatus,
  SystemRollup,
} from '@vigil/plugin-healthcheck-common';
import type { SliceStatusState } from '../judge';

/**
 * A slice's judged state as stored, with what the rollup shows of its last run.
 * @internal
 */
export interface StoredSliceState extends SliceStatusState {
  sliceId: string;
  checkId: string;
  systemRef: string;
  environment: string;
  /** Grid time of the run this state follows. */
  lastScheduledAt: number;
  lastRunAt: number;
  lastDurationMs?: number;
  /** The first failing condition as displayed, or the probe error. */
  lastReason?: string;
}

/**
 * A slice of an environment as the rollup sees it: stored, maybe paused,
 * maybe never run.
 * @internal
 */
export interface EnvironmentSlice {
  sliceId: string;
  checkId: string;
  systemRef: string;
  environment: string;
  paused: boolean;
  state?: StoredSliceState;
  /** Canonical refs of the Components the check targets; absent when none. */
  components?: string[];
}

/**
 * A stored rollup, and when the state it was computed from was read.
 * @internal
 */
export interface StoredRollup {
  rollup: SystemRollup;
  /** Epoch ms. */
  computedAt: number;
}

/**
 * A rollup debounce claim: one instance's promise to recompute a system at
 * the end of a window.
 * @internal
 */
export interface RollupClaim {
  id: string;
  claimedBy: string;
  /** Epoch ms. */
  claimedAt: number;
}

/**
 * What one environment's slices add up to.
 * @internal
 */
export interface EnvironmentVerdict {
  status: HealthStatus;
  /** Healthy slices, of those not paused. */
  healthy: number;
  total: number;
  /** The slices that set the status (the worst ones), when it is not healthy. */
  responsible: EnvironmentSlice[];
}

/** Where a slice's status lives between runs. */
export interface SliceStateStore {
  get(sliceId: string): SliceStatusState | undefined;
  /**
   * Called once the run is written, never before. `scheduledAt` is the grid
   * time of the run the state follows.
   */
  set(sliceId: string, state: SliceStatusState, scheduledAt: number): void;
  /** Drops the states of slices that no longer run here. */
  forget?(sliceIds: Iterable<string>): void;
  /**
   * Makes `get` current for ticks about to run, in one round trip: a state
   * another instance wrote since is read here.
   */
  prepare?(
    ticks: ReadonlyArray<{
      sliceId: string;
      scheduledAt: number;
      intervalMs: number;
    }>,
  ): Promise<void>;
  /**
   * Resolves once a read `prepare` gave up on has answered, or given up
   * again; `get` is then as current as it can be.
   */
  settled?(sliceId: string): Promise<void>;
}
