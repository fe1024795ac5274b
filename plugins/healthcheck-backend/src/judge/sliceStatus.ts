import { InputError } from '@backstage/errors';
import type { HealthStatus } from '@vigil/plugin-healthcheck-common';

/**
 * What one run of a slice concluded, after its conditions were evaluated:
 * `pass` (every condition held), `degraded` (only conditions marked
 * `severity: degraded` failed) or `fail` (the probe failed or a condition
 * without that mark failed).
 *
 * @internal
 */
export type RunOutcome = 'pass' | 'degraded' | 'fail';

/**
 * The statuses a slice reaches through its runs. `paused` is not among them:
 * the caller shows a paused slice as paused and does not feed it runs.
 *
 * @internal
 */
export type SliceStatus = Exclude<HealthStatus, 'paused'>;

/**
 * How many runs in a row it takes to change a slice's mind.
 *
 * @internal
 */
export interface StatusThresholds {
  /** Failed runs in a row that turn a slice `unhealthy`. */
  readonly failure: number;
  /** Runs in a row that did not fail and bring an `unhealthy` slice back. */
  readonly success: number;
}

/** @internal */
export const DEFAULT_STATUS_THRESHOLDS: StatusThresholds = Object.freeze({
  failure: 2,
  success: 1,
});

/**
 * The judged state of one slice. Plain data, so it can be stored as a row and
 * read back.
 *
 * @internal
 */
export interface SliceStatusState {
  readonly status: SliceStatus;
  /** Runs in a row whose outcome was `fail`. */
  readonly consecutiveFailures: number;
  /** Runs in a row whose outcome was `pass` or `degraded`. */
  readonly consecutiveSuccesses: number;
  /** When `status` last changed (epoch ms); creation time while `unknown`. */
  readonly since: number;
  readonly lastOutcome: RunOutcome | null;
}

/**
 * One run as the judge sees it.
 *
 * @internal
 */
export interface JudgedRun {
  readonly outcome: RunOutcome;
  /** When the run happened (epoch ms); becomes `since` if the status changes. */
  readonly at: number;
}

/** @internal */
export interface StatusTransition {
  readonly state: SliceStatusState;
  readonly changed: boolean;
  readonly from: SliceStatus;
  readonly to: SliceStatus;
}

const RUN_OUTCOMES: readonly RunOutcome[] = ['pass', 'degraded', 'fail'];

/**
 * The state of a slice that has not run yet.
 *
 * @internal
 */
export function initialSliceStatusState(createdAt: number): SliceStatusState {
  return {
    status: 'unknown',
    consecutiveFailures: 0,
    consecutiveSuccesses: 0,
    since: createdAt,
    lastOutcome: null,
  };
}

/**
 * A check's `thresholds` with the defaults filled in. Throws an `InputError`
 * naming the field when a value is not a whole number of at least 1.
 *
 * @internal
 */
export function resolveStatusThresholds(
  thresholds?: Partial<Record<keyof StatusThresholds, unknown>>,
): StatusThresholds {
  const failure = thresholds?.failure ?? DEFAULT_STATUS_THRESHOLDS.failure;
  const success = thresholds?.success ?? DEFAULT_STATUS_THRESHOLDS.success;
  for (const [name, value] of [
    ['failure', failure],
    ['success', success],
  ] as const) {
    if (!Number.isSafeInteger(value) || (value as number) < 1) {
      throw new InputError(
        `thresholds.${name} must be a whole number of at least 1, got ${
          typeof value === 'string' ? JSON.stringify(value) : String(value)
        }`,
      );
    }
  }
  return { failure: failure as number, success: success as number };
}

/**
 * Judges one run of a slice: the next state, and whether the status changed.
 *
 * The rules, chosen so one lost packet does not page anyone and a fixed
 * service is called fixed:
 *
 * - A `fail` turns the slice `unhealthy` only once `thresholds.failure` runs
 *   in a row failed; until then the slice keeps its status. That holds from
 *   `unknown` too: a new slice whose first probe is lost stays `unknown`
 *   ("not known yet"), it does not start life paging its owners.
 * - From `unknown`, `healthy` or `degraded`, a run that did not fail sets the
 *   status at once: `pass` gives `healthy`, `degraded` gives `degraded`.
 *   `thresholds.success` guards recovery from an incident; a slice that was
 *   never `unhealthy` has nothing to recover from.
 * - From `unhealthy`, it takes `thresholds.success` runs in a row that did
 *   not fail; the status then follows the last of them (`healthy` or
 *   `degraded`). A `degraded` run counts toward recovery because only
 *   degraded-severity conditions failed: the service answered and passed
 *   every condition that decides up or down. Not counting it would keep a
 *   service that is back but slow `unhealthy` for as long as it stays slow.
 * - For the same reason a `degraded` run ends a failure streak.
 *
 * Each slice has its own state; feeding one slice's runs into another's
 * state is the caller's bug, not something this function can see.
 *
 * @internal
 */
export function applyRunOutcome(
  state: SliceStatusState,
  run: JudgedRun,
  thresholds: Partial<StatusThresholds> = DEFAULT_STATUS_THRESHOLDS,
): StatusTransition {
  const { failure, success } = resolveStatusThresholds(thresholds);
  if (!RUN_OUTCOMES.includes(run.outcome)) {
    throw new TypeError(`Unknown run outcome ${JSON.stringify(run.outcome)}`);
  }
  if (!Number.isFinite(run.at)) {
    throw new TypeError(`Run time must be a finite number, got ${run.at}`);
  }

  const failed = run.outcome === 'fail';
  const consecutiveFailures = failed ? state.consecutiveFailures + 1 : 0;
  const consecutiveSuccesses = failed ? 0 : state.consecutiveSuccesses + 1;
  const answered: SliceStatus = run.outcome === 'pass' ? 'healthy' : 'degraded';

  let to: SliceStatus;
  if (failed) {
    to = consecutiveFailures >= failure ? 'unhealthy' : state.status;
  } else if (state.status === 'unhealthy') {
    to = consecutiveSuccesses >= success ? answered : 'unhealthy';
  } else {
    to = answered;
  }

  const from = state.status;
  const changed = to !== from;
  return {
    state: {
      status: to,
      consecutiveFailures,
      consecutiveSuccesses,
      since: changed ? run.at : state.since,
      lastOutcome: run.outcome,
    },
    changed,
    from,
    to,
  };
}
