import type { JsonObject } from '@backstage/types';
import type {
  ConditionSpec,
  HealthCheckThresholds,
  SliceKey,
} from '@vigil/plugin-healthcheck-common';

/**
 * One slice that should be running, with all a run needs.
 * @internal
 */
export interface DesiredSlice extends SliceKey {
  /** `encodeSliceId` of the key. */
  id: string;
  intervalMs: number;
  timeoutMs: number;
  type: string;
  /** Rendered for this system and environment, after the environment's override. */
  target: string;
  /** The probe type's config, the environment's override merged in. */
  config: JsonObject;
  conditions: ConditionSpec[];
  thresholds: HealthCheckThresholds;
  /**
   * Hash of everything that shapes a run or its judgement but not its timing
   * (type, target, config, conditions, thresholds): equal hashes mean an
   * edit changed nothing a run would notice.
   */
  configHash: string;
  /**
   * Canonical refs of the Components the check targets, sorted; absent when
   * it names none. Not part of a run (nor of `configHash`): they tell the
   * matrix and notifications what the slice's outage affects.
   */
  components?: string[];
}

/**
 * A slice that would run if its check were not paused; its state shows
 * `paused`.
 * @internal
 */
export interface PausedSlice extends SliceKey {
  id: string;
  /** As {@link DesiredSlice.components}. */
  components?: string[];
}

/**
 * A system a check is assigned to that is not among the systems given (not
 * in the catalog, or its ref does not parse).
 * @internal
 */
export interface UnresolvedSystem {
  checkId: string;
  systemRef: string;
  reason: string;
}

/**
 * A slice that would exist but is refused: its target cannot be rendered
 * safely for its system and environment (a value that is not a host label
 * in the host, a template whose host a placeholder picks, a rendered target
 * whose scheme or host is not the template's), or its environment is no
 * environment name. It runs nowhere; a slice that ran before is removed.
 * `loadDesiredSlices` adds those its `validateSlice` refuses (a secret
 * bound for another origin), so the reconciler reports them all alike.
 * @internal
 */
export interface RefusedSlice extends SliceKey {
  id: string;
  reason: string;
}

/**
 * What the reconciler's `desiredSlices` derives.
 * @internal
 */
export interface DesiredSliceSet {
  slices: DesiredSlice[];
  paused: PausedSlice[];
  unresolvedSystems: UnresolvedSystem[];
  refused: RefusedSlice[];
}
