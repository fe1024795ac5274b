import { InputError } from '@backstage/errors';

/**
 * The knobs of the slow-check bulkhead. Every field has a default; see
 * {@link DEFAULT_ADMISSION_OPTIONS}.
 *
 * @internal
 */
export interface AdmissionOptions {
  /** Probes this instance runs at once, suspect lane included. */
  readonly concurrency: number;
  /** Suspect probes this instance runs at once (below `concurrency`). */
  readonly laneCapacity: number;
  /**
   * Slots one endpoint may always hold. Beyond them it takes a slot only if
   * as many stay free for other endpoints, so a host nobody knows to be down
   * yet (a cold start, a fresh outage) cannot pin every slot for the full
   * timeout before its first K failures come back. Work-conserving otherwise.
   */
  readonly endpointShare: number;
  /**
   * K: slow transport failures in a row that make a slice suspect, on its
   * own runs or on its endpoint's.
   */
  readonly suspectAfterRuns: number;
  /**
   * A failed run is slow when it lasted at least this share of the timeout
   * it had (0 to 1).
   */
  readonly slowFraction: number;
  /** N: every Nth suspect run runs at the full timeout, to see recovery. */
  readonly recoveryProbeEvery: number;
  /** A shrunk timeout is never below this (milliseconds). */
  readonly timeoutFloorMs: number;
  /** A shrunk timeout aims at the healthy baseline times this. */
  readonly baselineMultiplier: number;
  /** Which percentile of healthy durations is the baseline (1 to 100). */
  readonly baselinePercentile: number;
  /** Healthy durations kept per slice for the baseline. */
  readonly baselineSamples: number;
  /**
   * Whether the bulkhead gates at all (suspect slices and endpoints, and the
   * endpoint share). Off, every run goes through the normal lane at its full
   * timeout, first come first served: the behaviour without a bulkhead, kept
   * for comparison in the scale harness.
   */
  readonly gateSuspectSlices: boolean;
}

/** @internal */
export const DEFAULT_ADMISSION_OPTIONS: AdmissionOptions = Object.freeze({
  concurrency: 20,
  laneCapacity: 3,
  endpointShare: 3,
  suspectAfterRuns: 3,
  slowFraction: 0.9,
  recoveryProbeEvery: 5,
  timeoutFloorMs: 1000,
  baselineMultiplier: 3,
  baselinePercentile: 90,
  baselineSamples: 20,
  gateSuspectSlices: true,
});

/** Runs kept per slice: enough for K and N, and a few more to look at. */
export function runsKept(options: AdmissionOptions): number {
  return Math.max(options.suspectAfterRuns, options.recoveryProbeEvery, 20);
}

function describe(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}

function requireWhole(name: string, value: number, min: number): void {
  if (!Number.isSafeInteger(value) || value < min) {
    throw new InputError(
      `${name} must be a whole number of at least ${min}, got ${describe(
        value,
      )}`,
    );
  }
}

function requireRange(
  name: string,
  value: number,
  [min, max]: [number, number],
  { minExclusive = false } = {},
): void {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    (minExclusive ? value > min : value >= min) &&
    value <= max;
  if (!ok) {
    throw new InputError(
      `${name} must be a number ${minExclusive ? 'above' : 'from'} ${min} ${
        minExclusive ? 'up to' : 'to'
      } ${max}, got ${describe(value)}`,
    );
  }
}

/**
 * The bulkhead's options with defaults filled in, or an `InputError` that
 * names the first bad one.
 *
 * @internal
 */
export function resolveAdmissionOptions(
  options: Partial<AdmissionOptions> = {},
): AdmissionOptions {
  const resolved: AdmissionOptions = {
    ...DEFAULT_ADMISSION_OPTIONS,
    ...Object.fromEntries(
      Object.entries(options).filter(([, value]) => value !== undefined),
    ),
  };
  requireWhole('concurrency', resolved.concurrency, 1);
  requireWhole('laneCapacity', resolved.laneCapacity, 1);
  if (resolved.laneCapacity >= resolved.concurrency) {
    // Otherwise suspect probes could hold every slot and healthy work wait.
    throw new InputError(
      `laneCapacity (${resolved.laneCapacity}) must be below concurrency (${resolved.concurrency})`,
    );
  }
  requireWhole('endpointShare', resolved.endpointShare, 1);
  requireWhole('suspectAfterRuns', resolved.suspectAfterRuns, 1);
  requireRange('slowFraction', resolved.slowFraction, [0, 1], {
    minExclusive: true,
  });
  requireWhole('recoveryProbeEvery', resolved.recoveryProbeEvery, 1);
  requireRange('timeoutFloorMs', resolved.timeoutFloorMs, [
    0,
    Number.MAX_SAFE_INTEGER,
  ]);
  requireRange('baselineMultiplier', resolved.baselineMultiplier, [
    1,
    Number.MAX_SAFE_INTEGER,
  ]);
  requireRange('baselinePercentile', resolved.baselinePercentile, [0, 100], {
    minExclusive: true,
  });
  requireWhole('baselineSamples', resolved.baselineSamples, 1);
  if (typeof resolved.gateSuspectSlices !== 'boolean') {
    throw new InputError(
      `gateSuspectSlices must be true or false, got ${describe(
        resolved.gateSuspectSlices,
      )}`,
    );
  }
  return resolved;
}
