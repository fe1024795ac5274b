/*
 * The tables of the probe-cost bench (see benchProbeCost.ts): CPU per
 * probe against blackbox_exporter's in the same run, the rates one
 * instance sustains, and how long a failing target takes to be known.
 */
import { percentile } from '../admission/harnessReport';
import { median, renderMarkdownTable } from '../costGrowthTable';

/** Vigil's CPU per probe at most this share of blackbox_exporter's. */
export const COST_RATIO_TARGET = 0.5;
/** A rate is sustained while the queue wait p99 stays at or below this. */
export const QUEUE_WAIT_P99_LIMIT_MS = 250;
/** ... and this share of the ticks due ran. */
export const COMPLETED_SHARE_FLOOR = 0.99;
/** The slack over interval × failure threshold a failure may take to be known. */
export const TIME_TO_KNOW_SLACK_MS = 3_000;

/** One measuring window of one prober: CPU used and probes completed. */
export interface CostWindow {
  /** CPU seconds of the prober's process (user and system). */
  cpuSeconds: number;
  probes: number;
  /** CPU seconds of the PostgreSQL backends serving it, where it has any. */
  postgresCpuSeconds?: number;
  /** PostgreSQL transactions (statements, mostly) it caused. */
  transactions?: number;
  seconds: number;
}

type CpuOf = (window: CostWindow) => number | undefined;
const ownCpu: CpuOf = window => window.cpuSeconds;

/** µs of CPU per probe of one window, or undefined when it completed none. */
function windowCpuPerProbeUs(
  window: CostWindow,
  cpu: CpuOf = ownCpu,
): number | undefined {
  const seconds = cpu(window);
  return seconds === undefined || window.probes === 0
    ? undefined
    : (seconds / window.probes) * 1e6;
}

/** µs of CPU per probe completed, the median over windows. */
export function cpuPerProbeUs(
  windows: readonly CostWindow[],
  cpu: CpuOf = ownCpu,
): number | undefined {
  return median(
    windows.flatMap(window => windowCpuPerProbeUs(window, cpu) ?? []),
  );
}

/**
 * A prober's CPU per probe against the baseline's, as the median of the
 * ratios of windows taken in the same round (the bench measures the
 * probers in turn, round by round, so a machine whose speed drifts over
 * minutes moves both sides of each ratio alike). Windows without a partner
 * fall back to the ratio of the medians.
 */
export function pairedCostRatio(
  windows: readonly CostWindow[],
  baseline: readonly CostWindow[],
  cpu: CpuOf = ownCpu,
): number | undefined {
  if (windows.length === baseline.length) {
    const ratios = windows.flatMap((window, round) => {
      const own = windowCpuPerProbeUs(window, cpu);
      const base = windowCpuPerProbeUs(baseline[round]);
      return own === undefined || !base ? [] : [own / base];
    });
    if (ratios.length > 0) {
      return median(ratios);
    }
  }
  const own = cpuPerProbeUs(windows, cpu);
  const base = cpuPerProbeUs(baseline);
  return own === undefined || !base ? undefined : own / base;
}

function probesPerSecond(windows: readonly CostWindow[]): number | undefined {
  return median(windows.map(w => w.probes / w.seconds));
}

function figure(value: number | undefined, unit = ''): string {
  if (value === undefined || Number.isNaN(value)) {
    return '-';
  }
  let digits = 2;
  if (value >= 100) {
    digits = 0;
  } else if (value >= 10) {
    digits = 1;
  }
  return `${value.toFixed(digits)}${unit}`;
}

function verdict(met: boolean | undefined): string {
  if (met === undefined) {
    return 'not measured';
  }
  return met ? 'PASS' : 'MISS';
}

/**
 * CPU per probe, Vigil against blackbox_exporter at the same offered rate:
 * the judged row (Vigil's process against the exporter's, both opening a
 * connection per probe), and rows for information.
 */
export function renderCostTable(options: {
  rate: number;
  vigil: readonly CostWindow[];
  blackbox: readonly CostWindow[];
  /**
   * A process doing nothing but probe, with Node's own HTTP client: the
   * least any Node prober pays per probe.
   */
  nodeFloor?: readonly CostWindow[];
  /** Why Vigil has no keep-alive row, or its windows. */
  keepAlive: readonly CostWindow[] | string;
}): { text: string; met: boolean | undefined } {
  const base = cpuPerProbeUs(options.blackbox);
  const vigil = cpuPerProbeUs(options.vigil);
  const vigilRatio = pairedCostRatio(options.vigil, options.blackbox);
  const met =
    vigilRatio === undefined ? undefined : vigilRatio <= COST_RATIO_TARGET;
  const withPostgresCpu: CpuOf = w =>
    w.postgresCpuSeconds === undefined
      ? undefined
      : w.cpuSeconds + w.postgresCpuSeconds;
  const withPostgres = cpuPerProbeUs(options.vigil, withPostgresCpu);
  const row = (
    prober: string,
    windows: readonly CostWindow[],
    perProbe: number | undefined,
    ratio: number | undefined,
    target: string,
  ) => [
    prober,
    figure(probesPerSecond(windows)),
    figure(perProbe, ' µs'),
    ratio === undefined ? '-' : `${figure(ratio)}×`,
    target,
  ];
  const floor = options.nodeFloor && cpuPerProbeUs(options.nodeFloor);
  const floorRatio =
    options.nodeFloor && pairedCostRatio(options.nodeFloor, options.blackbox);
  const overFloor =
    options.nodeFloor === undefined
      ? undefined
      : pairedCostRatio(options.vigil, options.nodeFloor);
  const overFloorText =
    overFloor === undefined ? '' : `; ${figure(overFloor)}× the Node floor`;
  const lines = [
    row(
      'blackbox_exporter (baseline)',
      options.blackbox,
      base,
      base === undefined ? undefined : 1,
      'baseline',
    ),
    ...(options.nodeFloor
      ? [
          row(
            'Node floor: node:http alone',
            options.nodeFloor,
            floor,
            floorRatio,
            floorRatio !== undefined && floorRatio > COST_RATIO_TARGET
              ? `information: above ${COST_RATIO_TARGET}× already, so the target is below what a Node prober can pay`
              : 'information: the least a Node prober pays',
          ),
        ]
      : []),
    row(
      'Vigil, a connection per probe',
      options.vigil,
      vigil,
      vigilRatio,
      `≤ ${COST_RATIO_TARGET}×: ${verdict(met)}${overFloorText}`,
    ),
    row(
      'Vigil + its PostgreSQL backends',
      options.vigil,
      withPostgres,
      pairedCostRatio(options.vigil, options.blackbox, withPostgresCpu),
      `information; ${figure(
        median(
          options.vigil.flatMap(w =>
            w.transactions === undefined || w.probes === 0
              ? []
              : [w.transactions / w.probes],
          ),
        ),
      )} PostgreSQL transactions per probe`,
    ),
    typeof options.keepAlive === 'string'
      ? ['Vigil, keep-alive', '-', '-', '-', options.keepAlive]
      : row(
          'Vigil, keep-alive',
          options.keepAlive,
          cpuPerProbeUs(options.keepAlive),
          pairedCostRatio(options.keepAlive, options.blackbox),
          'information',
        ),
  ];
  return {
    text: renderMarkdownTable(
      [
        `prober (offered ${options.rate} probes/s)`,
        'probes/s done',
        'CPU per probe (median)',
        'vs blackbox (median of rounds)',
        'target',
      ],
      lines,
      column => column >= 1 && column <= 3,
    ),
    met,
  };
}

/** One step of the rate ramp: ticks due in the window, and what ran of them. */
export interface RateStep {
  rate: number;
  due: number;
  /** Queue wait (due time to probe start) of each tick that ran. */
  queueWaitsMs: readonly number[];
  /** Cores the instance's process used. */
  vigilCores: number;
  postgresCores: number;
  machineCores: number;
}

/** Whether a step was sustained: queue wait p99 and the share that ran. */
export function isSustained(step: RateStep): boolean {
  return (
    step.due > 0 &&
    step.queueWaitsMs.length / step.due >= COMPLETED_SHARE_FLOOR &&
    percentile(step.queueWaitsMs, 99) <= QUEUE_WAIT_P99_LIMIT_MS
  );
}

/**
 * The highest rate sustained with every lower step sustained too (a ramp
 * that fails once and passes higher up was lucky, not capable).
 */
export function highestSustainedRate(
  steps: readonly RateStep[],
): number | undefined {
  let highest: number | undefined;
  for (const step of [...steps].sort((a, b) => a.rate - b.rate)) {
    if (!isSustained(step)) {
      break;
    }
    highest = step.rate;
  }
  return highest;
}

export function renderRateTable(steps: readonly RateStep[]): string {
  const lines = steps.map(step => [
    `${step.rate}`,
    `${((step.queueWaitsMs.length / step.due) * 100).toFixed(1)}%`,
    figure(percentile(step.queueWaitsMs, 50), ' ms'),
    figure(percentile(step.queueWaitsMs, 99), ' ms'),
    figure(step.vigilCores),
    figure(step.postgresCores),
    figure(step.machineCores),
    `p99 ≤ ${QUEUE_WAIT_P99_LIMIT_MS} ms, ≥ ${
      COMPLETED_SHARE_FLOOR * 100
    }% ran: ${isSustained(step) ? 'PASS' : 'MISS'}`,
  ]);
  const highest = highestSustainedRate(steps);
  return `${renderMarkdownTable(
    [
      'offered probes/s',
      'ticks ran / due',
      'queue wait p50',
      'queue wait p99',
      'Vigil cores',
      'PostgreSQL cores',
      'machine cores',
      'target',
    ],
    lines,
    column => column >= 1 && column <= 6,
  )}\n\nHighest rate sustained: ${
    highest === undefined ? 'none of the steps' : `${highest} probes/s`
  }`;
}

/** One target made to fail, and when each sign of it came. */
export interface FailureTiming {
  failedAt: number;
  /** When the systems route first said the environment is unhealthy. */
  shownAt?: number;
  /** When its notification was sent. */
  notifiedAt?: number;
}

/**
 * p50, p90 and max of the time to be shown unhealthy and to be notified,
 * against interval × failure threshold + 3 s. A failure never shown or
 * never notified within the wait counts as a miss.
 */
export function renderTimeToKnowTable(options: {
  timings: readonly FailureTiming[];
  intervalMs: number;
  failureThreshold: number;
}): { text: string; met: boolean } {
  const boundMs =
    options.intervalMs * options.failureThreshold + TIME_TO_KNOW_SLACK_MS;
  let met = true;
  const row = (
    measure: string,
    at: (t: FailureTiming) => number | undefined,
  ) => {
    const known = options.timings.flatMap(timing => {
      const when = at(timing);
      return when === undefined ? [] : [when - timing.failedAt];
    });
    const missing = options.timings.length - known.length;
    const max = known.length ? Math.max(...known) : NaN;
    const rowMet = missing === 0 && known.length > 0 && max <= boundMs;
    met &&= rowMet;
    return [
      measure,
      `${known.length}/${options.timings.length}`,
      figure(percentile(known, 50) / 1000, ' s'),
      figure(percentile(known, 90) / 1000, ' s'),
      figure(max / 1000, ' s'),
      `max ≤ ${boundMs / 1000} s: ${rowMet ? 'PASS' : 'MISS'}`,
    ];
  };
  const text = renderMarkdownTable(
    ['from the target failing to', 'seen', 'p50', 'p90', 'max', 'target'],
    [
      row('shown unhealthy by the API', t => t.shownAt),
      row('notification sent', t => t.notifiedAt),
    ],
    column => column >= 1 && column <= 4,
  );
  return { text, met };
}
