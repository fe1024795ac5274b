import type { HarnessScenario, ModeMeasurements } from './bulkheadHarness';
import { renderTable } from '../../src/tooling/renderTable';

/**
 * The `p`th percentile of some values by nearest rank (p99 of 200 values is
 * the 198th smallest); NaN without values.
 *
 * @internal
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) {
    return NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * One target of the issue, judged on the bulkhead-on figures.
 *
 * @internal
 */
export interface TargetCheck {
  readonly target: string;
  readonly met: boolean;
}

/** @internal */
export interface SeedTargets {
  readonly finalBacklog: TargetCheck;
  readonly maxBacklog: TargetCheck;
  readonly completions: TargetCheck;
  readonly healthyRun: TargetCheck;
  readonly healthyQueueWait: TargetCheck;
}

/** Ticks of every check once: what one interval brings. */
function intervalWorthOfTicks(scenario: HarnessScenario): number {
  return scenario.checks;
}

/**
 * The targets of the first scenario: backlog bounded by one interval's worth
 * of ticks and 0 at the end, completions at least 3× bulkhead off, healthy
 * ticks run at least 99% of due, healthy queue wait p99 at most 250 ms.
 *
 * @internal
 */
export function seedTargets(
  scenario: HarnessScenario,
  off: ModeMeasurements,
  on: ModeMeasurements,
): SeedTargets {
  const bound = intervalWorthOfTicks(scenario);
  return {
    finalBacklog: { target: '0', met: on.finalBacklog === 0 },
    maxBacklog: { target: `<= ${bound}`, met: on.maxBacklog <= bound },
    completions: {
      target: `>= 3x off (${3 * off.completions})`,
      met: on.completions >= 3 * off.completions,
    },
    healthyRun: {
      target: '>= 99%',
      met: on.healthyDue > 0 && on.healthyRun >= 0.99 * on.healthyDue,
    },
    healthyQueueWait: {
      target: 'p99 <= 250ms',
      met: percentile(on.healthyQueueWaitMs, 99) <= 250,
    },
  };
}

/**
 * The target of the second scenario: in the window, the failing checks hold
 * at most 25% of the slot time they hold with the bulkhead off.
 *
 * @internal
 */
export function outageTarget(
  off: ModeMeasurements,
  on: ModeMeasurements,
): TargetCheck & { readonly ratio: number } {
  const ratio = on.failingSlotMsInWindow / off.failingSlotMsInWindow;
  return { target: '<= 25% of off', met: ratio <= 0.25, ratio };
}

const ms = (value: number) =>
  Number.isNaN(value) ? '-' : `${Math.round(value)}ms`;
const pct = (value: number) =>
  Number.isFinite(value) ? `${(100 * value).toFixed(1)}%` : '-';
const p50p99 = (values: readonly number[]) =>
  `${ms(percentile(values, 50))} / ${ms(percentile(values, 99))}`;
const p99max = (values: readonly number[]) =>
  `${ms(percentile(values, 99))} / ${ms(percentile(values, 100))}`;
const verdict = (check: TargetCheck) => (check.met ? 'met' : 'NOT MET');

/**
 * The backlog at every `everyMs` up to `untilMs`: the last sample at or
 * before each mark.
 *
 * @internal
 */
export function backlogEvery(
  timeline: ModeMeasurements['backlogTimeline'],
  everyMs: number,
  untilMs: number,
): string {
  const values: string[] = [];
  let sample = 0;
  for (let mark = everyMs; mark <= untilMs + 1e-6; mark += everyMs) {
    while (sample + 1 < timeline.length && timeline[sample + 1][0] <= mark) {
      sample++;
    }
    const latest = timeline[sample];
    values.push(latest && latest[0] <= mark ? String(latest[1]) : '-');
  }
  return values.join(' ');
}

function deferralsOf(run: ModeMeasurements): string {
  const { in_flight, lane_full, no_slot } = run.deferrals;
  return `${
    in_flight + lane_full + no_slot
  } (${in_flight} / ${lane_full} / ${no_slot})`;
}

function runShare(run: number, due: number): string {
  return `${run} / ${due} (${pct(run / due)})`;
}

const SEED_NOTES = [
  'The scheduler never hands over a tick of a slice whose previous tick still waits',
  'or runs: it skips it. So the backlog cannot pass one tick per check in either mode,',
  "and the ticks skipped are where the seed's climbing backlog went. Completions",
  "cannot pass the ticks due, and the failing checks' ticks cannot complete quickly.",
].join('\n');

/**
 * The first scenario's table: both modes side by side, the targets beside.
 *
 * @internal
 */
export function seedReport(
  scenario: HarnessScenario,
  off: ModeMeasurements,
  on: ModeMeasurements,
): string {
  const targets = seedTargets(scenario, off, on);
  const timelineEveryMs = scenario.durationMs / 7;
  const rows: string[][] = [
    ['', 'bulkhead off', 'bulkhead on', 'target (on)', ''],
    [
      'final backlog (ticks queued for a slot)',
      String(off.finalBacklog),
      String(on.finalBacklog),
      targets.finalBacklog.target,
      verdict(targets.finalBacklog),
    ],
    [
      'max backlog',
      String(off.maxBacklog),
      String(on.maxBacklog),
      targets.maxBacklog.target,
      verdict(targets.maxBacklog),
    ],
    [
      `backlog every ${(timelineEveryMs / 1000).toFixed(0)} s`,
      backlogEvery(off.backlogTimeline, timelineEveryMs, scenario.durationMs),
      backlogEvery(on.backlogTimeline, timelineEveryMs, scenario.durationMs),
    ],
    [
      'ticks skipped, slice still waiting/running',
      String(off.skippedInFlight),
      String(on.skippedInFlight),
    ],
    [
      'completions',
      String(off.completions),
      `${on.completions} (${(on.completions / off.completions).toFixed(2)}x)`,
      targets.completions.target,
      verdict(targets.completions),
    ],
    ['ticks due, all checks', String(off.allDue), String(on.allDue)],
    [
      `slot-pinning timeouts (full ${scenario.timeoutMs / 1000} s)`,
      String(off.fullTimeouts),
      String(on.fullTimeouts),
    ],
    [
      'timeouts at a shrunk timeout',
      String(off.shrunkTimeouts),
      String(on.shrunkTimeouts),
    ],
    [
      'deferrals (in_flight / lane_full / no_slot)',
      deferralsOf(off),
      deferralsOf(on),
    ],
    [
      'healthy latency p50 / p99 (due -> answer)',
      p50p99(off.healthyLatencyMs),
      p50p99(on.healthyLatencyMs),
    ],
    [
      'healthy probe duration p50 / p99',
      p50p99(off.healthyProbeMs),
      p50p99(on.healthyProbeMs),
    ],
    [
      'healthy queue wait p50 / p99',
      p50p99(off.healthyQueueWaitMs),
      p50p99(on.healthyQueueWaitMs),
      targets.healthyQueueWait.target,
      verdict(targets.healthyQueueWait),
    ],
    [
      'healthy ticks run / due',
      runShare(off.healthyRun, off.healthyDue),
      runShare(on.healthyRun, on.healthyDue),
      targets.healthyRun.target,
      verdict(targets.healthyRun),
    ],
    [
      'scheduler tick lateness p99 / max',
      p99max(off.schedulerLatenessMs),
      p99max(on.schedulerLatenessMs),
    ],
    [
      'event loop delay p99 / max',
      `${ms(off.eventLoopDelayP99Ms)} / ${ms(off.eventLoopDelayMaxMs)}`,
      `${ms(on.eventLoopDelayP99Ms)} / ${ms(on.eventLoopDelayMaxMs)}`,
    ],
  ];
  return `${renderTable(rows)}\n\n${SEED_NOTES}`;
}

/**
 * The second scenario's table.
 *
 * @internal
 */
export function outageReport(
  scenario: HarnessScenario,
  off: ModeMeasurements,
  on: ModeMeasurements,
): string {
  const target = outageTarget(off, on);
  const share = (run: ModeMeasurements) =>
    pct(run.failingSlotMsInWindow / run.slotCapacityMsInWindow);
  const used = (run: ModeMeasurements) =>
    pct(run.failingSlotMsInWindow / run.allSlotMsInWindow);
  const timelineEveryMs = scenario.durationMs / 6;
  const rows: string[][] = [
    ['', 'bulkhead off', 'bulkhead on', 'target (on)', ''],
    ['failing checks slot time in window, of capacity', share(off), share(on)],
    ['... of the slot time used', used(off), used(on)],
    ['... on / off', '', pct(target.ratio), target.target, verdict(target)],
    [
      'failing endpoint suspect at the end',
      off.failingEndpointSuspectAtEnd ? 'yes' : 'no',
      on.failingEndpointSuspectAtEnd ? 'yes' : 'no',
    ],
    [
      'healthy queue wait p50 / p99 in window',
      p50p99(off.windowHealthyQueueWaitMs),
      p50p99(on.windowHealthyQueueWaitMs),
    ],
    [
      'healthy ticks run / due in window',
      runShare(off.windowHealthyRun, off.windowHealthyDue),
      runShare(on.windowHealthyRun, on.windowHealthyDue),
    ],
    [
      'final / max backlog',
      `${off.finalBacklog} / ${off.maxBacklog}`,
      `${on.finalBacklog} / ${on.maxBacklog}`,
    ],
    [
      `backlog every ${(timelineEveryMs / 1000).toFixed(0)} s`,
      backlogEvery(off.backlogTimeline, timelineEveryMs, scenario.durationMs),
      backlogEvery(on.backlogTimeline, timelineEveryMs, scenario.durationMs),
    ],
    ['completions', String(off.completions), String(on.completions)],
    ['ticks due, all checks', String(off.allDue), String(on.allDue)],
    [
      `slot-pinning timeouts (full ${scenario.timeoutMs / 1000} s)`,
      String(off.fullTimeouts),
      String(on.fullTimeouts),
    ],
    [
      'timeouts at a shrunk timeout',
      String(off.shrunkTimeouts),
      String(on.shrunkTimeouts),
    ],
    [
      'deferrals (in_flight / lane_full / no_slot)',
      deferralsOf(off),
      deferralsOf(on),
    ],
    [
      'scheduler tick lateness p99 / max',
      p99max(off.schedulerLatenessMs),
      p99max(on.schedulerLatenessMs),
    ],
    [
      'event loop delay p99 / max',
      `${ms(off.eventLoopDelayP99Ms)} / ${ms(off.eventLoopDelayMaxMs)}`,
      `${ms(on.eventLoopDelayP99Ms)} / ${ms(on.eventLoopDelayMaxMs)}`,
    ],
  ];
  return renderTable(rows);
}
