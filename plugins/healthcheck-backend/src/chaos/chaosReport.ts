import { renderTable } from '../tooling/renderTable';
import type { ProbedShare, TickFigures } from './chaosFigures';

/** What one scenario measured, for the table. @internal */
export interface ScenarioResult {
  name: string;
  /** Set when the scenario could not run to its end. */
  error?: string;
  /** Scheduled ticks of the steady and flipping checks. */
  ticks?: TickFigures;
  /** Run-now requests: each asked for one run of each of the check's slices. */
  runNow?: {
    /** Runs asked for: one per slice of the check per request. */
    expected: number;
    probed: number;
    /** Probes beyond one per run asked for. */
    extra: number;
    /** Runs asked for that no target saw. */
    missed: string[];
    /** Runs asked for that have no completed run in the database. */
    lost: string[];
  };
  transitions?: {
    /** Flips of the targets in the scenario: each a real transition. */
    real: number;
    /** Of them, announced by exactly one notification. */
    once: number;
    /** Flips never announced, and environments stored wrong at the end. */
    lost: string[];
    repeats: number;
    spurious: number;
  };
  /** From the database's return (or the kill) to correct rollups; null: not within the watch. */
  rollupsCorrectAfterMs?: number | null;
  rollupWatchMs?: number;
  /**
   * Each instance's memory before and after the churn (the floors of
   * samples after a full collection): resident, and the heap's share.
   */
  memory?: Array<{
    instance: string;
    beforeKiB: number;
    afterKiB: number;
    heapBeforeKiB: number;
    heapAfterKiB: number;
  }>;
  notes: string[];
}

/** The suite's targets, as the table states them. @internal */
export const TARGETS = {
  probedUp: '100%',
  probedFault: '>= 99%',
  runTwice: '0',
  runsLost: '0',
  transitionsLost: '0',
  notifiedOnce: 'each real transition once, nothing else',
  rollupsWithinMs: 10_000,
  /** Growth of resident memory over the churn; shrinking is no leak. */
  memoryGrowth: 0.1,
};

/** One cell: what it shows, and whether it meets its target (undefined: none). */
interface Cell {
  text: string;
  met?: boolean;
  /** The figure, its target and why it missed, for the list under the table. */
  miss?: string;
}

const NONE: Cell = { text: '-' };
const MISS_MARK = ' ✗';
const EXAMPLES = 3;

const percent = (part: number, whole: number) =>
  `${((100 * part) / whole).toFixed(1)}%`;

function examples(list: readonly string[]): string {
  if (list.length === 0) {
    return '';
  }
  const more =
    list.length > EXAMPLES ? `, +${list.length - EXAMPLES} more` : '';
  return `: ${list.slice(0, EXAMPLES).join('; ')}${more}`;
}

function probedCell(
  figure: string,
  probed: ProbedShare | undefined,
  minimum: number,
  target: string,
): Cell {
  if (!probed || probed.due === 0) {
    return NONE;
  }
  const text = `${percent(probed.probed, probed.due)} (${probed.probed}/${
    probed.due
  })`;
  const met = probed.probed >= minimum * probed.due;
  return {
    text,
    met,
    miss: `${figure} ${text}, target ${target}; not probed${examples(
      probed.missed,
    )}`,
  };
}

function countCell(
  figure: string,
  list: readonly string[] | undefined,
  extra = 0,
): Cell {
  if (!list) {
    return NONE;
  }
  const value = list.length + extra;
  return {
    text: String(value),
    met: value === 0,
    miss: `${figure} ${value}, target 0${examples(list)}`,
  };
}

/** The cells of a scenario's row, in the table's order after its name. */
function cellsOf(result: ScenarioResult): Cell[] {
  const { ticks, runNow, transitions } = result;
  const probedUp = runNow
    ? probedCell(
        'run-now runs probed',
        {
          due: runNow.expected,
          probed: runNow.probed,
          missed: runNow.missed,
        },
        1,
        TARGETS.probedUp,
      )
    : probedCell(
        'due ticks probed (database up)',
        ticks?.up,
        1,
        TARGETS.probedUp,
      );
  const probedFault = probedCell(
    'due ticks probed (database away or slow)',
    ticks?.fault,
    0.99,
    TARGETS.probedFault,
  );
  const runTwice = runNow
    ? countCell('probes beyond one per run asked for', [], runNow.extra)
    : countCell('ticks run twice', ticks?.runTwice);
  const runsLost = runNow
    ? countCell('run-now runs lost', runNow.lost)
    : countCell('runs lost', ticks?.lost);

  const transitionsLost = countCell('transitions lost', transitions?.lost);
  let notified: Cell = NONE;
  if (transitions) {
    const text = `${transitions.once}/${transitions.real}${
      transitions.repeats > 0 ? ` +${transitions.repeats} repeated` : ''
    }${transitions.spurious > 0 ? ` +${transitions.spurious} spurious` : ''}`;
    notified = {
      text,
      met:
        transitions.once === transitions.real &&
        transitions.repeats === 0 &&
        transitions.spurious === 0,
      miss: `notified once per real transition ${text}, target ${TARGETS.notifiedOnce}`,
    };
  }

  let rollups: Cell = NONE;
  if (result.rollupsCorrectAfterMs !== undefined) {
    const text =
      result.rollupsCorrectAfterMs === null
        ? `never (> ${Math.round((result.rollupWatchMs ?? 0) / 1000)} s)`
        : `${(result.rollupsCorrectAfterMs / 1000).toFixed(1)} s`;
    rollups = {
      text,
      met:
        result.rollupsCorrectAfterMs !== null &&
        result.rollupsCorrectAfterMs <= TARGETS.rollupsWithinMs,
      miss: `rollups correct after ${text}, target <= ${
        TARGETS.rollupsWithinMs / 1000
      } s`,
    };
  }

  let memory: Cell = NONE;
  if (result.memory && result.memory.length > 0) {
    const grown = result.memory.map(m => ({
      ...m,
      growth: (m.afterKiB - m.beforeKiB) / m.beforeKiB,
    }));
    const worst = grown.reduce((a, b) => (b.growth > a.growth ? b : a));
    const text = `${worst.growth >= 0 ? '+' : ''}${(100 * worst.growth).toFixed(
      1,
    )}% (${worst.instance})`;
    const mib = (kib: number) => Math.round(kib / 1024);
    memory = {
      text,
      met: grown.every(m => m.growth <= TARGETS.memoryGrowth),
      miss: `resident memory ${grown
        .map(
          m =>
            `${m.instance} ${mib(m.beforeKiB)} -> ${mib(
              m.afterKiB,
            )} MiB (heap ${mib(m.heapBeforeKiB)} -> ${mib(m.heapAfterKiB)})`,
        )
        .join(', ')}, target at most +${100 * TARGETS.memoryGrowth}%`,
    };
  }
  return [
    probedUp,
    probedFault,
    runTwice,
    runsLost,
    transitionsLost,
    notified,
    rollups,
    memory,
  ];
}

const HEADER = [
  'scenario',
  'due probed (db up)',
  'due probed (db away/slow)',
  'run twice',
  'runs lost',
  'transitions lost',
  'notified once/real',
  'rollups right after',
  'memory after churn',
  'verdict',
];

const TARGET_ROW = [
  'target',
  TARGETS.probedUp,
  TARGETS.probedFault,
  TARGETS.runTwice,
  TARGETS.runsLost,
  TARGETS.transitionsLost,
  'all once',
  `<= ${TARGETS.rollupsWithinMs / 1000} s`,
  `<= +${100 * TARGETS.memoryGrowth}%`,
  '',
];

/**
 * The suite's table (one row per scenario, a ✗ beside each figure that
 * misses its target), the list of misses with examples, and whether every
 * target was met.
 * @internal
 */
export function chaosReport(results: readonly ScenarioResult[]): {
  table: string;
  misses: string[];
  passed: boolean;
} {
  const misses: string[] = [];
  const rows = results.map(result => {
    if (result.error) {
      misses.push(`${result.name}: did not finish: ${result.error}`);
      return [result.name, `ERROR ✗ (see below)`];
    }
    const cells = cellsOf(result);
    const missed = cells.filter(cell => cell.met === false);
    misses.push(...missed.map(cell => `${result.name}: ${cell.miss}`));
    return [
      result.name,
      ...cells.map(cell => cell.text + (cell.met === false ? MISS_MARK : '')),
      missed.length === 0 ? 'ok' : `FAILED (${missed.length})`,
    ];
  });
  return {
    table: renderTable([HEADER, TARGET_ROW, ...rows]),
    misses,
    passed: misses.length === 0,
  };
}
