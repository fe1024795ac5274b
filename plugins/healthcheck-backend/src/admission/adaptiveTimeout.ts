import type { AdmissionOptions } from './options';

/**
 * Why a suspect run got the timeout it got.
 *
 * - `no_baseline`: no healthy sample yet, so nothing to shrink toward.
 * - `recovery_probe`: the periodic run at the full timeout.
 * - `baseline`: the baseline times the multiplier.
 * - `floor`: the baseline times the multiplier was below the floor.
 * - `configured`: the configured timeout was already at or below the target.
 *
 * @internal
 */
export type TimeoutReason =
  | 'no_baseline'
  | 'recovery_probe'
  | 'baseline'
  | 'floor'
  | 'configured';

/** @internal */
export interface AdaptiveTimeoutInput {
  readonly configuredTimeoutMs: number;
  readonly baselineMs: number | undefined;
  /** Runs in a row at a shrunk timeout, newest back. */
  readonly shrunkRunsInARow: number;
}

/** @internal */
export interface AdaptiveTimeout {
  readonly timeoutMs: number;
  readonly reason: TimeoutReason;
  /** Whether this is the full configured timeout. */
  readonly fullTimeout: boolean;
}

/**
 * The timeout of a suspect slice's next run: shrunk toward
 * `max(floor, baseline × multiplier)`, under the four guardrails that keep a
 * check whose real answers are slow from being starved of the time it needs:
 *
 * 1. no healthy baseline, no shrink;
 * 2. the baseline comes from healthy runs only (the caller's
 *    `SliceClassification.baselineMs`);
 * 3. after N - 1 shrunk runs in a row, the Nth runs at the full timeout, so
 *    a check that recovered but answers slower than the shrunk timeout is
 *    seen to pass (N = 1 means never shrink);
 * 4. never below the floor.
 *
 * And never above the configured timeout, floor or not.
 *
 * @internal
 */
export function adaptiveTimeout(
  input: AdaptiveTimeoutInput,
  options: Pick<
    AdmissionOptions,
    'recoveryProbeEvery' | 'timeoutFloorMs' | 'baselineMultiplier'
  >,
): AdaptiveTimeout {
  const configured = input.configuredTimeoutMs;
  const full = (reason: TimeoutReason): AdaptiveTimeout => ({
    timeoutMs: configured,
    reason,
    fullTimeout: true,
  });

  if (input.baselineMs === undefined) {
    return full('no_baseline');
  }
  if (input.shrunkRunsInARow >= options.recoveryProbeEvery - 1) {
    return full('recovery_probe');
  }

  const target = Math.ceil(input.baselineMs * options.baselineMultiplier);
  const floored = Math.max(options.timeoutFloorMs, target);
  if (floored >= configured) {
    return full('configured');
  }
  return {
    timeoutMs: floored,
    reason: target >= options.timeoutFloorMs ? 'baseline' : 'floor',
    fullTimeout: false,
  };
}
