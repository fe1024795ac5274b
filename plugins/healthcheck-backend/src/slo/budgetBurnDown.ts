import { HOUR_MS } from '../history/aggregateRuns';
import { measureSlices } from './computeSlo';
import { Interval } from './intervals';
import type { SloIndicator, SloSliceHistory } from './measureIndicator';

/** About this many steps across a window: a point a day for 30 days. */
const BURN_DOWN_STEPS = 30;

/**
 * One point of a burn-down: the budget left at `at`, as a share of the
 * budget of the whole window so far.
 *
 * @internal
 */
export interface BurnDownPoint {
  readonly at: number;
  readonly remainingRatio: number;
}

/**
 * The steps of a burn-down over `window`: whole hours, about
 * {@link BURN_DOWN_STEPS} of them across the window, at least one hour.
 *
 * @internal
 */
export function burnDownStepMs(window: Interval): number {
  const hours = Math.ceil(
    (window.to - window.from) / HOUR_MS / BURN_DOWN_STEPS,
  );
  return Math.max(1, hours) * HOUR_MS;
}

/**
 * How the error budget of the window so far (`budget`, in the objective's
 * unit) was spent through the window: at the window's start and after each
 * step the bad counted from the start is taken from the budget. The first
 * point is 1 (nothing spent), the last, at the window's end, is the
 * objective's `remainingRatio` now. Empty without a budget (nothing
 * counted, so nothing to burn).
 *
 * @internal
 */
export function budgetBurnDown(
  objective: SloIndicator,
  slices: readonly SloSliceHistory[],
  window: Interval,
  budget: number,
): BurnDownPoint[] {
  if (!(budget > 0)) {
    return [];
  }
  const step = burnDownStepMs(window);
  const points: BurnDownPoint[] = [{ at: window.from, remainingRatio: 1 }];
  let spent = 0;
  for (let from = window.from; from < window.to; from += step) {
    const to = Math.min(from + step, window.to);
    // The windows are disjoint and measuring adds up over them, so the
    // spend so far is the sum of the steps.
    spent += measureSlices(slices, { from, to }, objective).bad;
    points.push({ at: to, remainingRatio: (budget - spent) / budget });
  }
  return points;
}
