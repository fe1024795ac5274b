/*
 * The cost-growth table the scale benches print: one row per measure, one
 * column per fleet size, each figure with its ratio to the smallest size of
 * the same run (these machines are shared: a ratio within one run is the
 * target, an absolute figure is information).
 *
 * Erasable TypeScript only: the scheduler bench runs it on Node's own
 * TypeScript support.
 */

/** How far a per-slice cost (or a flat one) may grow from the smallest size. */
export const GROWTH_LIMIT = 1.5;

/**
 * What a row is judged on:
 * - `growth`: the figure (a cost per slice, per fire, or one that must not
 *   depend on the fleet at all) at the largest size is within
 *   {@link GROWTH_LIMIT} of the smallest size's;
 * - `at most`: the figure stays at or below `limit` at every size.
 */
export type GrowthTarget =
  | { kind: 'growth' }
  | { kind: 'at most'; limit: number };

export interface GrowthRow {
  measure: string;
  /** The database, or what else the row ran on. */
  where: string;
  /** The unit of the figures: `µs/slice`, `ms`, `B/slice`, `×`. */
  unit: string;
  /** Per fleet size (slices), the figure of each run. */
  figures: Map<number, number[]>;
  target: GrowthTarget;
}

export interface GrowthVerdict {
  /** Per size, in the sizes' order: the median, or undefined when not measured. */
  medians: Array<number | undefined>;
  /** Per size, the median against the smallest size's. */
  ratios: Array<number | undefined>;
  met: boolean | undefined;
  /** The judged figure against its target, as printed. */
  text: string;
}

export function median(values: readonly number[]): number | undefined {
  const sorted = values.filter(v => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) {
    return undefined;
  }
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** The medians of a row over `sizes`, their ratios, and its target's verdict. */
export function judgeGrowth(
  row: GrowthRow,
  sizes: readonly number[],
): GrowthVerdict {
  const medians = sizes.map(size => median(row.figures.get(size) ?? []));
  const base = medians[0];
  const ratios = medians.map(value =>
    value === undefined || base === undefined || base === 0
      ? undefined
      : value / base,
  );
  if (row.target.kind === 'at most') {
    const { limit } = row.target;
    const measured = medians.filter((m): m is number => m !== undefined);
    if (measured.length === 0) {
      return { medians, ratios, met: undefined, text: 'not measured' };
    }
    const worst = measured.reduce((a, b) => Math.max(a, b));
    const met = worst <= limit;
    return {
      medians,
      ratios,
      met,
      text: `worst ${formatFigure(worst)}${row.unit} ≤ ${limit}${row.unit}: ${
        met ? 'met' : 'MISSED'
      }`,
    };
  }
  const last = ratios[ratios.length - 1];
  if (last === undefined || sizes.length < 2) {
    return { medians, ratios, met: undefined, text: 'not measured' };
  }
  const met = last <= GROWTH_LIMIT;
  return {
    medians,
    ratios,
    met,
    text: `${sizeLabel(sizes[sizes.length - 1])}/${sizeLabel(
      sizes[0],
    )} ${last.toFixed(2)}× ≤ ${GROWTH_LIMIT}×: ${met ? 'met' : 'MISSED'}`,
  };
}

/** The table, in Markdown, with a line per missed target after it. */
export function renderGrowthTable(
  rows: readonly GrowthRow[],
  sizes: readonly number[],
): { text: string; missed: string[] } {
  const header = [
    'measure',
    'on',
    ...sizes.map(size => `${sizeLabel(size)} slices`),
    'target',
  ];
  const missed: string[] = [];
  const lines = rows.map(row => {
    const verdict = judgeGrowth(row, sizes);
    if (verdict.met === false) {
      missed.push(`${row.measure} on ${row.where}: ${verdict.text}`);
    }
    return [
      row.measure,
      row.where,
      ...verdict.medians.map((value, i) => {
        if (value === undefined) {
          return '-';
        }
        const ratio = verdict.ratios[i];
        return row.target.kind === 'at most' || ratio === undefined
          ? `${formatFigure(value)}${row.unit}`
          : `${formatFigure(value)} ${row.unit} (${ratio.toFixed(2)}×)`;
      }),
      verdict.text,
    ];
  });
  return {
    text: renderMarkdownTable(
      header,
      lines,
      column => column >= 2 && column < header.length - 1,
    ),
    missed,
  };
}

/**
 * A Markdown table with its columns padded to one width, the columns for
 * which `isFigure` holds aligned right (and marked so in the rule).
 */
export function renderMarkdownTable(
  header: readonly string[],
  lines: ReadonlyArray<readonly string[]>,
  isFigure: (column: number) => boolean,
): string {
  const all = [header, ...lines];
  const widths = header.map((_, column) =>
    all.reduce((widest, line) => Math.max(widest, line[column].length), 0),
  );
  const render = (line: readonly string[]) =>
    `| ${line
      .map((cell, column) =>
        isFigure(column)
          ? cell.padStart(widths[column])
          : cell.padEnd(widths[column]),
      )
      .join(' | ')} |`;
  const rule = `|${widths
    .map(
      (width, column) =>
        `${'-'.repeat(width + 1)}${isFigure(column) ? ':' : '-'}`,
    )
    .join('|')}|`;
  return [render(header), rule, ...lines.map(render)].join('\n');
}

/** 10000 → 10k, 1500 → 1.5k. */
export function sizeLabel(size: number): string {
  return size >= 1_000 ? `${Number((size / 1_000).toFixed(1))}k` : `${size}`;
}

function formatFigure(value: number): string {
  if (value >= 100) {
    return value.toFixed(0);
  }
  return value >= 10 ? value.toFixed(1) : value.toFixed(2);
}
