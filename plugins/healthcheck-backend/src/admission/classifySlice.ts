import type { ProbeErrorKind } from '@vigil/plugin-healthcheck-node';
import type { RunOutcome } from '../judge';
import type { AdmissionOptions } from './options';

/**
 * What a probe run reports back to the bulkhead.
 *
 * @internal
 */
export interface RunSummary {
  readonly outcome: RunOutcome;
  /** How long the run held its slot, in milliseconds. */
  readonly durationMs: number;
  /** Set when the probe itself failed (not only a condition). */
  readonly errorKind?: ProbeErrorKind;
}

/**
 * A run as the bulkhead remembers it: the summary and the timeout it ran with.
 *
 * @internal
 */
export interface RecordedRun extends RunSummary {
  /** The timeout this run actually had, shrunk or not. */
  readonly timeoutMsUsed: number;
  /**
   * Whether it ran at the full configured timeout. Counted to space the
   * recovery probes; a run without the flag counts as shrunk, which only
   * makes the next full-timeout run come sooner.
   */
  readonly fullTimeoutProbe?: boolean;
}

/**
 * The recent past of one slice, newest first. Healthy durations are kept
 * apart from the runs so a long outage, which fills the run window with
 * failures, does not push the baseline out and stop the shrink.
 *
 * @internal
 */
export interface SliceHistory {
  readonly recentRuns: readonly RecordedRun[];
  readonly healthyDurationsMs: readonly number[];
}

/** @internal */
export const EMPTY_SLICE_HISTORY: SliceHistory = Object.freeze({
  recentRuns: Object.freeze([]) as readonly RecordedRun[],
  healthyDurationsMs: Object.freeze([]) as readonly number[],
});

/** @internal */
export interface SliceClassification {
  /** The last K runs were all slow transport failures. */
  readonly suspect: boolean;
  /** Slow transport failures in a row, newest back. */
  readonly slowFailureStreak: number;
  /** Runs in a row, newest back, that ran at a shrunk timeout. */
  readonly shrunkRunsInARow: number;
  /** The healthy latency baseline; undefined without healthy samples. */
  readonly baselineMs: number | undefined;
}

/**
 * Error kinds that come from reaching the target. `guard` and `config` are
 * refusals decided before any connection, so they never held a slot long.
 * `other` counts: a probe error we could not name may still have held the
 * connection open.
 */
const TRANSPORT_ERROR_KINDS: ReadonlySet<ProbeErrorKind> = new Set([
  'timeout',
  'refused',
  'dns',
  'tls',
  'reset',
  'other',
]);

/**
 * Whether a run failed in transport and held its slot about as long as it
 * was allowed to: a timeout, or another transport error that took at least
 * `slowFraction` of the timeout that run had.
 *
 * Judged against `timeoutMsUsed`, never the configured timeout: a suspect
 * run with a shrunk timeout of 1 s that times out is as slow as it could be.
 * Against a configured 5 s it would look fast, end the streak, and send the
 * slice back to the normal lane at its full timeout (the seed's flaw).
 *
 * @internal
 */
export function isSlowTransportFailure(
  run: RecordedRun,
  slowFraction: number,
): boolean {
  if (run.outcome !== 'fail' || run.errorKind === undefined) {
    return false;
  }
  if (!TRANSPORT_ERROR_KINDS.has(run.errorKind)) {
    return false;
  }
  return (
    run.errorKind === 'timeout' ||
    run.durationMs >= slowFraction * run.timeoutMsUsed
  );
}

/**
 * Whether a run counts toward the healthy baseline: it did not fail. A
 * degraded run answered too; leaving it out would only make the baseline,
 * and so the shrunk timeout, smaller than what real answers needed.
 */
function isHealthyRun(run: RunSummary): boolean {
  return run.outcome !== 'fail';
}

/**
 * The `percentile` of some durations by nearest rank (p90 of 10 samples is
 * the 9th smallest); undefined without samples.
 *
 * @internal
 */
export function healthyBaselineMs(
  healthyDurationsMs: readonly number[],
  percentile: number,
): number | undefined {
  if (healthyDurationsMs.length === 0) {
    return undefined;
  }
  const sorted = [...healthyDurationsMs].sort((a, b) => a - b);
  const rank = Math.ceil((percentile / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * The history with one more run at the front, trimmed to what is kept.
 *
 * @internal
 */
export function recordRun(
  history: SliceHistory,
  run: RecordedRun,
  limits: { runsKept: number; baselineSamples: number },
): SliceHistory {
  return {
    recentRuns: prepended(run, history.recentRuns, limits.runsKept),
    healthyDurationsMs: isHealthyRun(run)
      ? prepended(
          run.durationMs,
          history.healthyDurationsMs,
          limits.baselineSamples,
        )
      : history.healthyDurationsMs,
  };
}

/** `[first, ...rest]` cut to `max` items, made in one array (every run). */
function prepended<T>(first: T, rest: readonly T[], max: number): T[] {
  const length = Math.min(rest.length + 1, max);
  const items = new Array<T>(length);
  if (length > 0) {
    items[0] = first;
  }
  for (let i = 1; i < length; i++) {
    items[i] = rest[i - 1];
  }
  return items;
}

function countLeading<T>(
  items: readonly T[],
  predicate: (item: T) => boolean,
): number {
  let count = 0;
  while (count < items.length && predicate(items[count])) {
    count++;
  }
  return count;
}

/**
 * Whether a slice's last `suspectAfterRuns` runs were all slow transport
 * failures: {@link classifySlice}'s `suspect` alone, without the baseline,
 * which takes a sort of the healthy durations that an unsuspected run
 * (nearly every run) never needs.
 *
 * @internal
 */
export function isSliceSuspect(
  history: SliceHistory,
  options: Pick<AdmissionOptions, 'suspectAfterRuns' | 'slowFraction'>,
): boolean {
  const runs = history.recentRuns;
  if (runs.length < options.suspectAfterRuns) {
    return false;
  }
  for (let i = 0; i < options.suspectAfterRuns; i++) {
    if (!isSlowTransportFailure(runs[i], options.slowFraction)) {
      return false;
    }
  }
  return true;
}

/**
 * Reads a slice's history: is it suspect, how many shrunk runs since the
 * last full-timeout one, and what is its healthy baseline.
 *
 * @internal
 */
export function classifySlice(
  history: SliceHistory,
  options: Pick<
    AdmissionOptions,
    'suspectAfterRuns' | 'slowFraction' | 'baselinePercentile'
  >,
): SliceClassification {
  const slowFailureStreak = countLeading(history.recentRuns, run =>
    isSlowTransportFailure(run, options.slowFraction),
  );
  return {
    suspect: slowFailureStreak >= options.suspectAfterRuns,
    slowFailureStreak,
    shrunkRunsInARow: countLeading(
      history.recentRuns,
      run => run.fullTimeoutProbe !== true,
    ),
    baselineMs: healthyBaselineMs(
      history.healthyDurationsMs,
      options.baselinePercentile,
    ),
  };
}
