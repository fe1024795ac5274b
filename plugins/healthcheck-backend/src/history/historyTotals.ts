import type { ResponseTimeSummary, UptimeSummary } from '../model';
import { uptimeRatio } from './timeWeightedUptime';

/*
 * Sums of up-time and response time over a system's slices, and the
 * summaries the history store gives from them.
 */

/** Sums over a system's slices; latency sums are weighted by run count. */
export interface Totals {
  up: number;
  down: number;
  unknown: number;
  paused: number;
  runCount: number;
  latencyRuns: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Whether a read adds up all of a system's slices or each slice apart. */
export type Grouping = 'system' | 'slice';

/** The key of the totals of a read grouped by {@link Grouping} `system`. */
export const WHOLE_SYSTEM = '';

/** Totals by slice id, or one under {@link WHOLE_SYSTEM}. */
export type GroupedTotals = Map<string, Totals>;

export function emptyTotals(): Totals {
  return {
    up: 0,
    down: 0,
    unknown: 0,
    paused: 0,
    runCount: 0,
    latencyRuns: 0,
    p50: 0,
    p95: 0,
    p99: 0,
  };
}

export function totalsOf(grouped: GroupedTotals, group: string): Totals {
  let totals = grouped.get(group);
  if (!totals) {
    totals = emptyTotals();
    grouped.set(group, totals);
  }
  return totals;
}

export function addGroupedTotals(
  into: GroupedTotals,
  from: GroupedTotals,
): void {
  for (const [group, totals] of from) {
    const target = totalsOf(into, group);
    for (const key of Object.keys(totals) as Array<keyof Totals>) {
      target[key] += totals[key];
    }
  }
}

/**
 * The percentiles are exact over one hour of one slice. Over a longer range
 * they are the run-count-weighted mean of the hourly percentiles of each
 * slice (and of the exact percentiles of the runs not aggregated yet): an
 * approximation, since a mean of percentiles is not the percentile of all
 * runs; it smooths a short spike that the true p95 would show.
 */
export function responseTimeSummaryOf(totals: Totals): ResponseTimeSummary {
  const mean = (sum: number) =>
    totals.latencyRuns > 0 ? Math.round(sum / totals.latencyRuns) : undefined;
  return {
    runCount: Math.round(totals.runCount),
    p50Ms: mean(totals.p50),
    p95Ms: mean(totals.p95),
    p99Ms: mean(totals.p99),
  };
}

export function uptimeSummaryOf(totals: Totals): UptimeSummary {
  return {
    uptime: uptimeRatio(totals.up, totals.down),
    upSeconds: totals.up,
    downSeconds: totals.down,
    unknownSeconds: totals.unknown,
    pausedSeconds: totals.paused,
  };
}

export function addTotals(
  totals: Totals,
  row: Record<string, unknown> | undefined,
  weight: number,
): void {
  if (!row) {
    return;
  }
  const value = (key: string) => Number(row[key] ?? 0) * weight;
  totals.up += value('up');
  totals.down += value('down');
  totals.unknown += value('unknown');
  totals.paused += value('paused');
  totals.runCount += value('run_count');
  totals.latencyRuns += value('latency_runs');
  totals.p50 += value('p50');
  totals.p95 += value('p95');
  totals.p99 += value('p99');
}
