import type { ResolvedServiceLevelObjective } from '@vigil/plugin-healthcheck-common';
import { Interval } from './intervals';
import {
  GoodAndBad,
  measureSlice,
  SloIndicator,
  SloSliceHistory,
} from './measureIndicator';

/**
 * The windows burn rates are given over, as in the SRE workbook's
 * multi-window alerts: 5 m, 30 m, 1 h, 6 h and 3 d.
 *
 * @internal
 */
export const BURN_RATE_WINDOWS = {
  '5m': 5 * 60_000,
  '30m': 30 * 60_000,
  '1h': 3_600_000,
  '6h': 6 * 3_600_000,
  '3d': 3 * 86_400_000,
} as const;

/** @internal */
export type BurnRateWindow = keyof typeof BURN_RATE_WINDOWS;

/**
 * An objective's standing at one instant.
 *
 * @internal
 */
export interface SloStatus {
  /** The window the objective is judged over, up to now. */
  readonly window: Interval;
  /** What `good`, `bad` and the budget are counted in. */
  readonly unit: 'seconds' | 'runs' | 'hours';
  readonly good: number;
  readonly bad: number;
  /** `good / (good + bad)`; undefined when nothing counted yet. */
  readonly attainment: number | undefined;
  readonly target: number;
  readonly errorBudget: {
    /** `(1 - target) * (good + bad)`: the bad the objective allows. */
    readonly total: number;
    /** The bad so far. */
    readonly spent: number;
    /** `total - spent`; negative once the objective is missed. */
    readonly remaining: number;
    /** `remaining / total`, 1 untouched, 0 used up, below 0 overspent; undefined without a budget. */
    readonly remainingRatio: number | undefined;
  };
  /**
   * Per window ending now, how fast the budget burns: the bad share of the
   * window over `1 - target`; 1 spends exactly the budget over the SLO
   * window, undefined where nothing counted.
   */
  readonly burnRates: Readonly<Record<BurnRateWindow, number | undefined>>;
}

/**
 * The window an objective is judged over at `now`: the last days of a
 * rolling window, or the current calendar month (UTC) up to now.
 *
 * @internal
 */
export function sloWindow(
  window: ResolvedServiceLevelObjective['window'],
  now: number,
): Interval {
  if (window.type === 'rolling') {
    return { from: now - window.durationMs, to: now };
  }
  const date = new Date(now);
  return {
    from: Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1),
    to: now,
  };
}

/**
 * Good and bad of several slices over a range, added up: a system-level
 * objective counts all of its checks' slices in the environment.
 *
 * @internal
 */
export function measureSlices(
  slices: readonly SloSliceHistory[],
  range: Interval,
  objective: SloIndicator,
): GoodAndBad {
  const total: GoodAndBad = { good: 0, bad: 0 };
  for (const slice of slices) {
    const measured = measureSlice(slice, range, objective);
    total.good += measured.good;
    total.bad += measured.bad;
  }
  return total;
}

/**
 * Attainment, error budget and burn rates of an objective over the
 * histories of its slices, at `now`.
 *
 * @internal
 */
export function computeSlo(
  objective: ResolvedServiceLevelObjective,
  slices: readonly SloSliceHistory[],
  now: number,
): SloStatus {
  const window = sloWindow(objective.window, now);
  const { good, bad } = measureSlices(slices, window, objective);
  const allowedBadShare = 1 - objective.target;
  const counted = good + bad;
  const total = allowedBadShare * counted;
  const burnRates = {} as Record<BurnRateWindow, number | undefined>;
  for (const [name, durationMs] of Object.entries(BURN_RATE_WINDOWS)) {
    const measured = measureSlices(
      slices,
      { from: now - durationMs, to: now },
      objective,
    );
    burnRates[name as BurnRateWindow] = burnRate(measured, objective.target);
  }
  return {
    window,
    unit: unitOf(objective),
    good,
    bad,
    attainment: counted > 0 ? good / counted : undefined,
    target: objective.target,
    errorBudget: {
      total,
      spent: bad,
      remaining: total - bad,
      remainingRatio: total > 0 ? (total - bad) / total : undefined,
    },
    burnRates,
  };
}

/**
 * How fast `measured` burns the budget of `target`: its bad share over the
 * allowed bad share; undefined when nothing counted.
 *
 * @internal
 */
export function burnRate(
  measured: GoodAndBad,
  target: number,
): number | undefined {
  const counted = measured.good + measured.bad;
  return counted > 0 ? measured.bad / counted / (1 - target) : undefined;
}

function unitOf(objective: SloIndicator): SloStatus['unit'] {
  if (objective.indicator.type === 'latency') {
    return 'hours';
  }
  return objective.budgetingMethod === 'Occurrences' ? 'runs' : 'seconds';
}
