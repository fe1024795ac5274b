/*
 * The tables `bench:catalog` prints: what each step cost, as medians of its
 * runs, and the targets judged on them, as ratios against the
 * naive read of the same run wherever a ratio is the target.
 */
import { median } from '../costGrowthTable';

/** One run of one step, on both sides of the HTTP connection. */
export interface StepSample {
  wallMs: number;
  /** The bench process (Vigil's side): user + system. */
  vigilCpuMs: number;
  /** The catalog backend's process: user + system, from /proc. */
  catalogCpuMs: number;
  /** PostgreSQL's server processes of the two databases. */
  postgresCpuMs: number;
  requests: number;
  /** Entities in the catalog's answers. */
  entities: number;
  /** Body bytes of the catalog's answers, as decoded. */
  bytes: number;
}

export type StepName =
  | 'unchanged poll'
  | '1%-changed poll'
  | 'full pass'
  | 'naive read';

/** What each row of the cost table is. */
export const STEP_LABELS: Record<StepName, string> = {
  'unchanged poll': 'change poll, nothing changed',
  '1%-changed poll': 'change poll, 1% of entities changed (with its pass)',
  'full pass': 'full pass, nothing changed',
  'naive read': 'naive: read every entity in full',
};

/** The limits. */
export const TARGETS = {
  /** An unchanged poll's CPU against the naive read's, on each side. */
  pollToNaiveCpu: 0.1,
  /** An unchanged poll's CPU averaged over the poll interval, of one core. */
  pollShareOfCore: 0.01,
  /** Beyond the poll interval, until a changed system is probed anew. */
  probeSlackMs: 5_000,
} as const;

type Figure = keyof StepSample;

export function medianOf(
  samples: readonly StepSample[],
  figure: Figure,
): number | undefined {
  return median(samples.map(sample => sample[figure]));
}

export interface TargetVerdict {
  target: string;
  measured: string;
  limit: string;
  met: boolean | undefined;
}

/**
 * The targets on the medians: the unchanged poll against the naive
 * read on each side, its CPU over the poll interval and over the spacing
 * the poll budget gives, on each side, and the slowest time to probe a
 * moved system by the poll alone.
 */
export function judgeCatalogTargets(input: {
  steps: ReadonlyMap<StepName, readonly StepSample[]>;
  pollIntervalMs: number;
  /**
   * Between two polls as catalogPollBudget paces them after the median
   * unchanged poll: the poll interval, or longer on a large catalog.
   */
  pacedSpacingMs: number;
  /** From the catalog showing each move to the first probe in its new environment. */
  timesToProbeMs: readonly number[];
  /**
   * The longest time between two polls while the moves were timed: the
   * pace those polls set, from their own times (the paced spacing when
   * not given).
   */
  moveSpacingMs?: number;
  /**
   * With the catalog module's announcements heard, from the provider
   * handing each move to the catalog to the first probe (not timed: none).
   */
  announcedMovesMs?: readonly number[];
}): TargetVerdict[] {
  const poll = input.steps.get('unchanged poll') ?? [];
  const naive = input.steps.get('naive read') ?? [];
  const verdicts: TargetVerdict[] = [];
  for (const [side, figure] of [
    ['Vigil', 'vigilCpuMs'],
    ['catalog', 'catalogCpuMs'],
  ] as const) {
    const pollCpu = medianOf(poll, figure);
    const naiveCpu = medianOf(naive, figure);
    const ratio =
      pollCpu === undefined || naiveCpu === undefined || naiveCpu === 0
        ? undefined
        : pollCpu / naiveCpu;
    verdicts.push({
      target: `unchanged poll CPU / naive read CPU, ${side} process`,
      measured:
        ratio === undefined
          ? 'not measured'
          : `${ratio.toFixed(3)}× (${formatMs(pollCpu!)} / ${formatMs(
              naiveCpu!,
            )})`,
      limit: `≤ ${TARGETS.pollToNaiveCpu}×`,
      met: ratio === undefined ? undefined : ratio <= TARGETS.pollToNaiveCpu,
    });
  }
  const spacings: Array<[string, number]> = [
    [
      `the ${formatSeconds(input.pollIntervalMs)} poll interval`,
      input.pollIntervalMs,
    ],
    [
      `the ${formatSeconds(input.pacedSpacingMs)} paced spacing`,
      input.pacedSpacingMs,
    ],
  ];
  for (const [over, spacingMs] of spacings) {
    for (const [side, figure] of [
      ['Vigil', 'vigilCpuMs'],
      ['catalog', 'catalogCpuMs'],
    ] as const) {
      const pollCpu = medianOf(poll, figure);
      const share = pollCpu === undefined ? undefined : pollCpu / spacingMs;
      verdicts.push({
        target: `unchanged poll CPU over ${over}, ${side} process`,
        measured:
          share === undefined
            ? 'not measured'
            : `${(share * 100).toFixed(2)}% of a core`,
        limit: `≤ ${TARGETS.pollShareOfCore * 100}% of a core`,
        met: share === undefined ? undefined : share <= TARGETS.pollShareOfCore,
      });
    }
  }
  const slowest =
    input.timesToProbeMs.length === 0
      ? undefined
      : Math.max(...input.timesToProbeMs);
  const spacingMs = input.moveSpacingMs ?? input.pacedSpacingMs;
  const limitMs = spacingMs + TARGETS.probeSlackMs;
  verdicts.push({
    target:
      'a moved system probed in its new environment, by the poll alone (slowest)',
    measured: slowest === undefined ? 'not measured' : formatSeconds(slowest),
    limit: `≤ ${formatSeconds(limitMs)} (${
      input.moveSpacingMs === undefined
        ? 'paced poll spacing'
        : 'longest poll spacing meanwhile'
    } + ${formatSeconds(TARGETS.probeSlackMs)})`,
    met: slowest === undefined ? undefined : slowest <= limitMs,
  });
  if (input.announcedMovesMs) {
    const announced =
      input.announcedMovesMs.length === 0
        ? undefined
        : Math.max(...input.announcedMovesMs);
    const announcedLimitMs = input.pollIntervalMs + TARGETS.probeSlackMs;
    verdicts.push({
      target:
        "a moved system probed in its new environment, with the catalog module's announcements (slowest, from the provider handing it over)",
      measured:
        announced === undefined ? 'not measured' : formatSeconds(announced),
      limit: `≤ ${formatSeconds(
        announcedLimitMs,
      )} (poll interval + ${formatSeconds(TARGETS.probeSlackMs)})`,
      met: announced === undefined ? undefined : announced <= announcedLimitMs,
    });
  }
  return verdicts;
}

/** The cost table: one row per step, the medians of its runs. */
export function renderCostTable(
  steps: ReadonlyMap<StepName, readonly StepSample[]>,
): string {
  const naive = steps.get('naive read') ?? [];
  const naiveVigil = medianOf(naive, 'vigilCpuMs');
  const naiveCatalog = medianOf(naive, 'catalogCpuMs');
  const header = [
    'step',
    'runs',
    'wall',
    'Vigil CPU',
    'catalog CPU',
    'PostgreSQL CPU',
    'requests',
    'entities read',
    'bytes read',
  ];
  const lines: string[][] = [];
  for (const [step, samples] of steps) {
    const of = (figure: Figure) => medianOf(samples, figure);
    const vs = (value: number | undefined, base: number | undefined) => {
      if (value === undefined) {
        return '-';
      }
      return base && step !== 'naive read'
        ? `${formatMs(value)} (${(value / base).toFixed(2)}×)`
        : formatMs(value);
    };
    lines.push([
      STEP_LABELS[step],
      String(samples.length),
      vs(of('wallMs'), undefined),
      vs(of('vigilCpuMs'), naiveVigil),
      vs(of('catalogCpuMs'), naiveCatalog),
      vs(of('postgresCpuMs'), undefined),
      formatCount(of('requests')),
      formatCount(of('entities')),
      formatBytes(of('bytes')),
    ]);
  }
  return renderMarkdown(header, lines);
}

export function renderTargetTable(verdicts: readonly TargetVerdict[]): string {
  return renderMarkdown(
    ['target', 'measured', 'limit', 'result'],
    verdicts.map(v => [v.target, v.measured, v.limit, verdictText(v.met)]),
  );
}

function verdictText(met: boolean | undefined): string {
  if (met === undefined) {
    return '-';
  }
  return met ? 'PASS' : 'MISS';
}

function renderMarkdown(header: string[], lines: string[][]): string {
  const all = [header, ...lines];
  const widths = header.map((_, column) =>
    all.reduce((widest, line) => Math.max(widest, line[column].length), 0),
  );
  const render = (line: string[]) =>
    `| ${line.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`;
  const rule = `|${widths.map(width => '-'.repeat(width + 2)).join('|')}|`;
  return [render(header), rule, ...lines.map(render)].join('\n');
}

export function formatMs(ms: number): string {
  if (ms >= 10_000) {
    return `${(ms / 1000).toFixed(1)} s`;
  }
  return ms >= 100 ? `${ms.toFixed(0)} ms` : `${ms.toFixed(1)} ms`;
}

function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}

function formatCount(value: number | undefined): string {
  return value === undefined ? '-' : String(Math.round(value));
}

export function formatBytes(value: number | undefined): string {
  if (value === undefined) {
    return '-';
  }
  if (value >= 1024 * 1024) {
    return `${(value / 1024 / 1024).toFixed(1)} MiB`;
  }
  return value >= 1024
    ? `${(value / 1024).toFixed(0)} KiB`
    : `${Math.round(value)} B`;
}
