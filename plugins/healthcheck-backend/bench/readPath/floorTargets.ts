/**
 * A read route's targets, as ratios to the floor (the same Express stack
 * answering a constant, loaded the same way in the same run): absolute
 * times on a shared 2-core machine say more about the machine than about
 * the route.
 */
export interface FloorTarget {
  /** The route's p99 may be at most this times the floor's. */
  p99: number;
  /** The route's throughput must be at least this times the floor's. */
  rate: number;
}

/** Issue 17: rollup reads (a system with its matrix) at 50 connections. */
export const ROLLUP_READ_TARGET: FloorTarget = { p99: 1.2, rate: 0.8 };
/** Issue 17: status badges and warm up-time badges at 50 connections. */
export const BADGE_TARGET: FloorTarget = { p99: 1.1, rate: 0.8 };

/** What a load measured: medians over its runs. */
export interface LoadFigures {
  p99Ms: number;
  requestsPerSecond: number;
}

export interface FloorVerdict {
  p99Ratio: number;
  rateRatio: number;
  met: boolean;
  /** `1.07× p99, 0.93× req/s: PASS`, or what missed. */
  text: string;
}

/** A route's figures against the floor's, by the target's two ratios. */
export function judgeAgainstFloor(
  route: LoadFigures,
  floor: LoadFigures,
  target: FloorTarget,
): FloorVerdict {
  const p99Ratio = route.p99Ms / floor.p99Ms;
  const rateRatio = route.requestsPerSecond / floor.requestsPerSecond;
  const p99Met = p99Ratio <= target.p99;
  const rateMet = rateRatio >= target.rate;
  const met = p99Met && rateMet;
  const missed = [
    ...(p99Met ? [] : ['p99']),
    ...(rateMet ? [] : ['throughput']),
  ];
  return {
    p99Ratio,
    rateRatio,
    met,
    text: `${p99Ratio.toFixed(2)}× p99, ${rateRatio.toFixed(2)}× req/s: ${
      met ? 'PASS' : `MISS (${missed.join(', ')})`
    }`,
  };
}

/** How a floor target reads in the table. */
export function describeFloorTarget(target: FloorTarget): string {
  return `p99 ≤ ${target.p99}× floor, req/s ≥ ${target.rate}× floor`;
}
