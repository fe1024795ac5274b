/* eslint-disable no-console */
import type { LoggerService } from '@backstage/backend-plugin-api';
import { execFileSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { randomSource } from '../randomSource.ts';
import { DueHeap } from '../../src/scheduler/DueHeap.ts';
import { SliceScheduler } from '../../src/scheduler/SliceScheduler.ts';
import {
  gridPointAtOrAfter,
  staggerOffsetMs,
} from '../../src/scheduler/tickGrid.ts';
import type { DueTick } from '../../src/scheduler/types.ts';
import { readBenchArgs, type BenchCommand } from '../benchArgs.ts';
import { renderGrowthTable, type GrowthRow } from '../costGrowthTable.ts';

// ------------------------------------------------------------------ setup

interface BenchSlice {
  id: string;
  intervalMs: number;
  /** Position in the fleet, so recorders index arrays instead of maps. */
  index: number;
  offsetMs: number;
}

interface BenchConfig {
  runs: number;
  coalesceWindowMs: number;
  fleetSlices: number;
  fleetSeconds: number;
  bigSlices: number;
  bigSeconds: number;
  stallSlices: number;
  stallMs: number;
  stallWarmupMs: number;
  stallAfterMs: number;
  heapOps: number;
  heapRuns: number;
  /** Fleet sizes of the cost-growth section. */
  growthSizes: number[];
  /** Fires per second every growth size is offered, so sizes compare. */
  growthRate: number;
  growthSeconds: number;
  sections: Set<string>;
  childBig?: Variant;
  childGrowth?: number;
  /** Print the growth section's rows as JSON, for another bench's table. */
  json: boolean;
}

type Variant = 'heap' | 'setInterval' | 'setTimeout';
const VARIANTS: Variant[] = ['heap', 'setInterval', 'setTimeout'];

const SECTIONS = ['fleet', 'big', 'stall', 'heap', 'growth'];

const COMMAND: BenchCommand = {
  command: 'yarn bench:scheduler',
  flags: {
    quick: {},
    runs: { value: 'N' },
    window: { value: 'MS' },
    only: { value: SECTIONS.join(',') },
    sizes: { value: '10000,50000,...' },
    rate: { value: 'FIRES_PER_S' },
    'growth-seconds': { value: 'S' },
    json: {},
    // Set by the bench itself for the processes it starts.
    'child-big': { value: VARIANTS.join('|') },
    'child-growth': { value: 'N' },
  },
};

function parseConfig(argv: string[]): BenchConfig {
  return readBenchArgs(argv, COMMAND, args => {
    const quick = args.has('quick');
    const childGrowth = args.text('child-growth');
    return {
      runs: args.number('runs', quick ? 1 : 3),
      coalesceWindowMs: args.number('window', 2),
      fleetSlices: 10_000,
      fleetSeconds: quick ? 5 : 20,
      bigSlices: 100_000,
      bigSeconds: 2,
      stallSlices: 1_000,
      stallMs: 5_000,
      stallWarmupMs: 1_200,
      stallAfterMs: 1_800,
      heapOps: quick ? 300_000 : 1_000_000,
      heapRuns: 3,
      growthSizes: args.wholes('sizes', '10000,50000,100000,200000'),
      growthRate: args.number('rate', 2_000),
      growthSeconds: args.number('growth-seconds', quick ? 4 : 10),
      sections: new Set(args.someOf('only', SECTIONS, SECTIONS.slice(0, 4))),
      childBig: args.oneOf('child-big', VARIANTS),
      json: args.has('json'),
      childGrowth:
        childGrowth === undefined ? undefined : args.whole('child-growth', 0),
    };
  });
}

const silentLogger: LoggerService = {
  error: message => console.error(message),
  warn: () => {},
  info: () => {},
  debug: () => {},
  child: () => silentLogger,
};

function makeFleet(
  count: number,
  minIntervalMs: number,
  maxIntervalMs: number,
  seed: number,
): BenchSlice[] {
  const random = randomSource(seed).next;
  return Array.from({ length: count }, (_, index) => {
    const intervalMs =
      minIntervalMs +
      Math.floor(random() * (maxIntervalMs - minIntervalMs + 1));
    // Joined, not templated: a flat string, as a database driver returns.
    const id = [
      'healthcheck:check-',
      index,
      ':system%3Adefault%2Fsystem-',
      index % 97,
      ':production',
    ].join('');
    return { id, intervalMs, index, offsetMs: staggerOffsetMs(id, intervalMs) };
  });
}

function collectGarbage(): void {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    gc();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise(resolve => setTimeout(resolve, ms));
}

function median(values: number[]): number {
  const sorted = values.filter(v => !Number.isNaN(v)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

// --------------------------------------------------------------- recorders

/**
 * Lateness of every fire, plus per slice the times each mechanism schedules
 * from (the heap: `scheduledAt`; setInterval and setTimeout re-base on their
 * callback's start), to measure phase drift over the run.
 */
class FireLog {
  readonly lateness: Float64Array;
  count = 0;
  early = 0;
  readonly firstBase: Float64Array;
  readonly lastBase: Float64Array;
  readonly basedFires: Uint32Array;

  constructor(slices: number, capacity: number) {
    this.lateness = new Float64Array(capacity);
    this.firstBase = new Float64Array(slices).fill(NaN);
    this.lastBase = new Float64Array(slices);
    this.basedFires = new Uint32Array(slices);
  }

  fire(latenessMs: number): void {
    if (this.count < this.lateness.length) {
      this.lateness[this.count] = latenessMs;
    }
    this.count += 1;
    if (latenessMs < 0) this.early += 1;
  }

  base(index: number, at: number): void {
    if (Number.isNaN(this.firstBase[index])) this.firstBase[index] = at;
    this.lastBase[index] = at;
    this.basedFires[index] += 1;
  }

  sortedLateness(): Float64Array {
    return this.lateness
      .slice(0, Math.min(this.count, this.lateness.length))
      .sort();
  }

  maxDriftMs(fleet: BenchSlice[]): number {
    let worst = 0;
    for (const slice of fleet) {
      const fires = this.basedFires[slice.index];
      if (fires < 2) continue;
      const span = this.lastBase[slice.index] - this.firstBase[slice.index];
      worst = Math.max(worst, Math.abs(span - (fires - 1) * slice.intervalMs));
    }
    return worst;
  }
}

interface Mechanism {
  stop(): Promise<void> | void;
}

/** The Vigil scheduler; the first (off-grid) probe is excluded from drift. */
async function startHeap(
  fleet: BenchSlice[],
  log: FireLog,
  coalesceWindowMs: number,
  onFire?: (slice: BenchSlice, at: number, scheduledAt: number) => void,
  firstProbeWindowCapMs?: number,
): Promise<Mechanism & { scheduler: SliceScheduler<BenchSlice> }> {
  const seen = new Uint8Array(fleet.length);
  const scheduler = SliceScheduler.create<BenchSlice>({
    logger: silentLogger,
    options: { coalesceWindowMs, firstProbeWindowCapMs },
    executor: (batch: ReadonlyArray<DueTick<BenchSlice>>) => {
      const now = Date.now();
      for (const tick of batch) {
        const index = tick.slice.index;
        log.fire(now - tick.scheduledAt);
        if (seen[index]) log.base(index, tick.scheduledAt);
        seen[index] = 1;
        onFire?.(tick.slice, now, tick.scheduledAt);
      }
    },
  });
  scheduler.start();
  await scheduler.submit({ type: 'replace', slices: fleet });
  while (scheduler.stats().liveSlices < fleet.length) {
    await nextTurn();
  }
  return { scheduler, stop: () => scheduler.stop({ awaitInFlightMs: 0 }) };
}

/** One setTimeout to the slice's first grid point, then one setInterval. */
function startSetIntervals(
  fleet: BenchSlice[],
  log: FireLog,
  onFire?: (slice: BenchSlice, at: number) => void,
): Mechanism {
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const start = Date.now() + 1;
  for (const slice of fleet) {
    const firstAt = gridPointAtOrAfter(start, slice.intervalMs, slice.offsetMs);
    let k = 0;
    const fire = () => {
      const now = Date.now();
      log.fire(now - (firstAt + k * slice.intervalMs));
      log.base(slice.index, now);
      k += 1;
      onFire?.(slice, now);
    };
    timers[slice.index] = setTimeout(() => {
      fire();
      timers[slice.index] = setInterval(fire, slice.intervalMs);
    }, firstAt - Date.now());
  }
  return { stop: () => timers.forEach(timer => clearTimeout(timer)) };
}

/** A setTimeout that sets the next one from its callback. */
function startTimeoutChains(
  fleet: BenchSlice[],
  log: FireLog,
  onFire?: (slice: BenchSlice, at: number) => void,
): Mechanism {
  const timers: Array<ReturnType<typeof setTimeout>> = [];
  const start = Date.now() + 1;
  for (const slice of fleet) {
    const firstAt = gridPointAtOrAfter(start, slice.intervalMs, slice.offsetMs);
    let k = 0;
    const tick = () => {
      const now = Date.now();
      log.fire(now - (firstAt + k * slice.intervalMs));
      log.base(slice.index, now);
      k += 1;
      onFire?.(slice, now);
      timers[slice.index] = setTimeout(tick, slice.intervalMs);
    };
    timers[slice.index] = setTimeout(tick, firstAt - Date.now());
  }
  return { stop: () => timers.forEach(timer => clearTimeout(timer)) };
}

async function startVariant(
  variant: Variant,
  fleet: BenchSlice[],
  log: FireLog,
  config: BenchConfig,
): Promise<Mechanism> {
  if (variant === 'heap') {
    return startHeap(fleet, log, config.coalesceWindowMs);
  }
  return variant === 'setInterval'
    ? startSetIntervals(fleet, log)
    : startTimeoutChains(fleet, log);
}

// ---------------------------------------------------------------- sections

type Figures = Record<string, number>;
type PerVariant = Record<Variant, Figures[]>;

function emptyPerVariant(): PerVariant {
  return { heap: [], setInterval: [], setTimeout: [] };
}

async function fleetSection(config: BenchConfig): Promise<PerVariant> {
  const results = emptyPerVariant();
  const fleet = makeFleet(config.fleetSlices, 1_000, 5_000, 1);
  const capacity = Math.ceil(config.fleetSlices * (config.fleetSeconds + 2));
  for (let run = 0; run < config.runs; run++) {
    for (const variant of VARIANTS) {
      collectGarbage();
      const log = new FireLog(fleet.length, capacity);
      const cpuBefore = process.cpuUsage();
      const mechanism = await startVariant(variant, fleet, log, config);
      await sleep(config.fleetSeconds * 1000);
      await mechanism.stop();
      const cpu = process.cpuUsage(cpuBefore);
      const sorted = log.sortedLateness();
      results[variant].push({
        p50: percentile(sorted, 0.5),
        p99: percentile(sorted, 0.99),
        max: sorted[sorted.length - 1],
        early: log.early,
        drift: log.maxDriftMs(fleet),
        cpuPerFireUs: (cpu.user + cpu.system) / log.count,
        fires: log.count,
      });
      console.error(
        `  fleet run ${run + 1}/${config.runs} ${variant}: ${
          log.count
        } fires, p99 ${percentile(sorted, 0.99)} ms`,
      );
    }
  }
  return results;
}

function memoryInUse(): number {
  const memory = process.memoryUsage();
  return memory.heapUsed + memory.arrayBuffers;
}

/** One mechanism with 100k slices; run alone in a fresh process. */
async function bigFleetOnce(
  variant: Variant,
  config: BenchConfig,
): Promise<Figures> {
  const fleet = makeFleet(config.bigSlices, 10_000, 30_000, 2);
  // First probes of the heap come within 5 s; grid fires on top.
  const log = new FireLog(fleet.length, config.bigSlices * 2);
  collectGarbage();
  const memoryBefore = memoryInUse();
  const startedAt = performance.now();
  const mechanism = await startVariant(variant, fleet, log, config);
  const scheduleMs = performance.now() - startedAt;
  collectGarbage();
  const bytes = memoryInUse() - memoryBefore;
  const rss = process.memoryUsage().rss;
  await sleep(config.bigSeconds * 1000);
  await mechanism.stop();
  const sorted = log.sortedLateness();

  // Once more with warm code (and another 100k ids): the steady state.
  const again = makeFleet(config.bigSlices, 10_000, 30_000, 5);
  collectGarbage();
  const warmStartedAt = performance.now();
  const warm = await startVariant(variant, again, new FireLog(1, 1), config);
  const warmScheduleMs = performance.now() - warmStartedAt;
  await warm.stop();
  return {
    scheduleUsPerSlice: (scheduleMs * 1000) / fleet.length,
    warmScheduleUsPerSlice: (warmScheduleMs * 1000) / again.length,
    bytesPerSlice: bytes / fleet.length,
    rssMb: rss / 2 ** 20,
    p99: percentile(sorted, 0.99),
    fires: log.count,
  };
}

/**
 * Memory needs a process of its own: timers cleared in one run leave their
 * lists behind until those lists come due, up to 30 s later, and the next run
 * would count their release as its own saving.
 */
function bigFleetSection(config: BenchConfig, args: string[]): PerVariant {
  const results = emptyPerVariant();
  for (let run = 0; run < config.runs; run++) {
    for (const variant of VARIANTS) {
      const output = execFileSync(
        process.execPath,
        [...process.execArgv, process.argv[1], ...args, '--child-big', variant],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const figures = JSON.parse(output) as Figures;
      results[variant].push(figures);
      console.error(
        `  100k run ${run + 1}/${
          config.runs
        } ${variant}: ${figures.scheduleUsPerSlice.toFixed(
          2,
        )} us/slice, ${figures.bytesPerSlice.toFixed(0)} B/slice`,
      );
    }
  }
  return results;
}

/**
 * One size of the cost-growth section, alone in a fresh process: the heap
 * scheduler's resident memory per slice, and its CPU per fired probe at a
 * fire rate that is the same for every size (intervals grow with the
 * fleet), so only the fleet's size differs. First probes land on the grid,
 * not in a start-up burst. One interval for all, their offsets hashed over
 * it, so the offered rate is `growthRate`.
 * @internal
 */
export async function growthOnce(
  size: number,
  config: Pick<
    BenchConfig,
    'growthRate' | 'growthSeconds' | 'coalesceWindowMs'
  >,
): Promise<Figures> {
  const intervalMs = Math.max(
    1_000,
    Math.round((size / config.growthRate) * 1_000),
  );
  const fleet = makeFleet(size, intervalMs, intervalMs, 6);
  const log = new FireLog(
    size,
    Math.ceil(config.growthRate * (config.growthSeconds + 2) * 1.5),
  );
  collectGarbage();
  const rssBefore = process.memoryUsage().rss;
  const memoryBefore = memoryInUse();
  const heap = await startHeap(
    fleet,
    log,
    config.coalesceWindowMs,
    undefined,
    // No first-probe window: every slice first fires on its grid point.
    0,
  );
  collectGarbage();
  const rssPerSlice = (process.memoryUsage().rss - rssBefore) / size;
  const heapPerSlice = (memoryInUse() - memoryBefore) / size;
  const firesBefore = log.count;
  const cpuBefore = process.cpuUsage();
  await sleep(config.growthSeconds * 1_000);
  const cpu = process.cpuUsage(cpuBefore);
  const fires = log.count - firesBefore;
  await heap.stop();
  return {
    rssPerSlice,
    heapPerSlice,
    cpuPerFireUs: (cpu.user + cpu.system) / fires,
    firesPerS: fires / config.growthSeconds,
  };
}

/** The growth section's rows of the cost-growth table. */
export function growthRows(results: Map<number, Figures[]>): GrowthRow[] {
  const rowOf = (measure: string, unit: string, key: string): GrowthRow => ({
    measure,
    where: 'none (scheduler)',
    unit,
    figures: new Map(
      [...results].map(([size, runs]) => [size, runs.map(run => run[key])]),
    ),
    target: { kind: 'growth' },
  });
  return [
    rowOf(
      'scheduler: resident memory per slice (RSS)',
      'B/slice',
      'rssPerSlice',
    ),
    rowOf('scheduler: heap + buffers per slice', 'B/slice', 'heapPerSlice'),
    rowOf('scheduler: CPU per fired probe', 'µs/fire', 'cpuPerFireUs'),
  ];
}

/** Runs `growthOnce` in a fresh process per size and run. */
export function growthSection(
  config: Pick<
    BenchConfig,
    'growthSizes' | 'runs' | 'growthRate' | 'growthSeconds' | 'coalesceWindowMs'
  >,
): Map<number, Figures[]> {
  const results = new Map<number, Figures[]>();
  const script = fileURLToPath(new URL('./benchScheduler.ts', import.meta.url));
  for (let run = 0; run < config.runs; run++) {
    for (const size of config.growthSizes) {
      const output = execFileSync(
        process.execPath,
        [
          '--expose-gc',
          '--disable-warning=MODULE_TYPELESS_PACKAGE_JSON',
          script,
          '--child-growth',
          String(size),
          '--rate',
          String(config.growthRate),
          '--growth-seconds',
          String(config.growthSeconds),
          '--window',
          String(config.coalesceWindowMs),
        ],
        { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] },
      );
      const figures = JSON.parse(output) as Figures;
      results.set(size, [...(results.get(size) ?? []), figures]);
      console.error(
        `  growth run ${run + 1}/${
          config.runs
        } ${size} slices: ${figures.cpuPerFireUs.toFixed(
          1,
        )} us CPU/fire at ${figures.firesPerS.toFixed(
          0,
        )} fires/s, ${figures.rssPerSlice.toFixed(0)} B RSS/slice`,
      );
    }
  }
  return results;
}

/**
 * All three mechanisms run side by side through one blocked event loop: the
 * stall is process-wide, so this is the fairest comparison there is.
 */
async function stallSection(config: BenchConfig): Promise<PerVariant> {
  const results = emptyPerVariant();
  const fleet = makeFleet(config.stallSlices, 1_000, 1_000, 3);
  for (let run = 0; run < config.runs; run++) {
    collectGarbage();
    const fires: Record<Variant, number[][]> = {
      heap: fleet.map(() => []),
      setInterval: fleet.map(() => []),
      setTimeout: fleet.map(() => []),
    };
    const scratch = () => new FireLog(fleet.length, 1);
    const heap = await startHeap(
      fleet,
      scratch(),
      config.coalesceWindowMs,
      (slice, at) => fires.heap[slice.index].push(at),
    );
    const intervals = startSetIntervals(fleet, scratch(), (slice, at) =>
      fires.setInterval[slice.index].push(at),
    );
    const chains = startTimeoutChains(fleet, scratch(), (slice, at) =>
      fires.setTimeout[slice.index].push(at),
    );
    await sleep(config.stallWarmupMs);
    const missedBefore = heap.scheduler.stats().missedTicks;
    const stallStart = Date.now();
    while (Date.now() - stallStart < config.stallMs) {
      // the event loop is blocked: no timer can run
    }
    const stallEnd = Date.now();
    await sleep(config.stallAfterMs);
    const missed = heap.scheduler.stats().missedTicks - missedBefore;
    await heap.stop();
    intervals.stop();
    chains.stop();

    const catchUpMs = 250; // every mechanism's catch-up fires land here
    for (const variant of VARIANTS) {
      const catchUpRuns: number[] = [];
      const phaseErrors: number[] = [];
      for (const slice of fleet) {
        const times = fires[variant][slice.index];
        catchUpRuns.push(
          times.filter(t => t >= stallEnd && t < stallEnd + catchUpMs).length,
        );
        for (const t of times) {
          if (t >= stallEnd + catchUpMs) {
            const phase =
              (((t - slice.offsetMs) % slice.intervalMs) + slice.intervalMs) %
              slice.intervalMs;
            phaseErrors.push(Math.min(phase, slice.intervalMs - phase));
          }
        }
      }
      const sortedErrors = Float64Array.from(phaseErrors).sort();
      results[variant].push({
        catchUpMin: Math.min(...catchUpRuns),
        catchUpMax: Math.max(...catchUpRuns),
        phaseP50: percentile(sortedErrors, 0.5),
        phaseMax: sortedErrors[sortedErrors.length - 1],
        missedPerSlice: variant === 'heap' ? missed / fleet.length : NaN,
      });
    }
    console.error(`  stall run ${run + 1}/${config.runs} done`);
  }
  return results;
}

/** The obvious heap: one object per entry, swapped around. */
class ObjectHeap<T> {
  readonly entries: Array<{ dueAt: number; seq: number; item: T }> = [];

  push(dueAt: number, seq: number, item: T): void {
    const entries = this.entries;
    entries.push({ dueAt, seq, item });
    let i = entries.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(entries[i], entries[parent])) break;
      const swap = entries[i];
      entries[i] = entries[parent];
      entries[parent] = swap;
      i = parent;
    }
  }

  pop(): { dueAt: number; seq: number; item: T } | undefined {
    const entries = this.entries;
    const top = entries[0];
    const last = entries.pop();
    if (entries.length > 0 && last) {
      entries[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (
          left < entries.length &&
          this.less(entries[left], entries[smallest])
        )
          smallest = left;
        if (
          right < entries.length &&
          this.less(entries[right], entries[smallest])
        )
          smallest = right;
        if (smallest === i) break;
        const swap = entries[i];
        entries[i] = entries[smallest];
        entries[smallest] = swap;
        i = smallest;
      }
    }
    return top;
  }

  private less(
    a: { dueAt: number; seq: number },
    b: { dueAt: number; seq: number },
  ): boolean {
    return a.dueAt < b.dueAt || (a.dueAt === b.dueAt && a.seq < b.seq);
  }
}

function heapSection(config: BenchConfig): Record<string, number> {
  const figures: Record<string, number> = {};
  const random = randomSource(4).next;
  const steps = Float64Array.from({ length: 1 << 16 }, () =>
    Math.floor(10_000 + random() * 20_000),
  );
  const mask = steps.length - 1;
  for (const size of [1_000, 10_000, 100_000]) {
    const popPush: number[] = [];
    const replaceTop: number[] = [];
    const objects: number[] = [];
    for (let run = 0; run < config.heapRuns; run++) {
      // Object payloads, as the scheduler stores (its slice records).
      const heap = new DueHeap<{ index: number }>(size);
      const objectHeap = new ObjectHeap<{ index: number }>();
      for (let i = 0; i < size; i++) {
        const dueAt = Math.floor(random() * 30_000);
        heap.push(dueAt, i, { index: i });
        objectHeap.push(dueAt, i, { index: i });
      }
      const ops = config.heapOps;
      let t = performance.now();
      for (let i = 0; i < ops; i++) {
        const dueAt = heap.peekDueAt();
        const seq = heap.peekSeq();
        const item = heap.peekItem()!;
        heap.pop();
        heap.push(dueAt + steps[i & mask], seq, item);
      }
      popPush.push(((performance.now() - t) * 1e6) / ops);
      t = performance.now();
      for (let i = 0; i < ops; i++) {
        const item = heap.peekItem()!;
        heap.replaceTop(
          heap.peekDueAt() + steps[i & mask],
          heap.peekSeq(),
          item,
        );
      }
      replaceTop.push(((performance.now() - t) * 1e6) / ops);
      t = performance.now();
      for (let i = 0; i < ops; i++) {
        const top = objectHeap.pop()!;
        objectHeap.push(top.dueAt + steps[i & mask], top.seq, top.item);
      }
      objects.push(((performance.now() - t) * 1e6) / ops);
    }
    figures[`popPush${size}`] = median(popPush);
    figures[`replaceTop${size}`] = median(replaceTop);
    figures[`objects${size}`] = median(objects);
  }
  return figures;
}

// ------------------------------------------------------------------- table

interface Row {
  measure: string;
  vigil: number;
  naive1: number;
  naive2: number;
  digits: number;
  target: string;
  met?: boolean;
}

function fmt(value: number, digits: number): string {
  if (Number.isNaN(value)) return '-';
  return value.toLocaleString('en-US', {
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
}

function printTable(rows: Row[]): void {
  const header = [
    'Measure',
    'Vigil heap',
    'naive 1',
    'naive 2',
    'Vigil / naive 1',
    'Target',
    'Met',
  ];
  const cells = rows.map(row => {
    const ratio =
      Number.isNaN(row.vigil) || Number.isNaN(row.naive1) || row.naive1 === 0
        ? '-'
        : `${fmt(row.vigil / row.naive1, 2)}x`;
    let met = '';
    if (row.met !== undefined) met = row.met ? 'yes' : 'NO';
    return [
      row.measure,
      fmt(row.vigil, row.digits),
      fmt(row.naive1, row.digits),
      fmt(row.naive2, row.digits),
      ratio,
      row.target,
      met,
    ];
  });
  const widths = header.map((h, i) =>
    Math.max(h.length, ...cells.map(c => c[i].length)),
  );
  const line = (values: string[]) =>
    `| ${values
      .map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i])))
      .join(' | ')} |`;
  console.log(line(header));
  console.log(`|${widths.map(w => '-'.repeat(w + 2)).join('|')}|`);
  cells.forEach(c => console.log(line(c)));
}

function medianOf(results: PerVariant, variant: Variant, key: string): number {
  return median(results[variant].map(figures => figures[key]));
}

export async function main(args: string[]): Promise<void> {
  const config = parseConfig(args);
  if (config.childBig) {
    console.log(JSON.stringify(await bigFleetOnce(config.childBig, config)));
    return;
  }
  if (config.childGrowth !== undefined) {
    console.log(JSON.stringify(await growthOnce(config.childGrowth, config)));
    return;
  }
  if (!(globalThis as { gc?: unknown }).gc) {
    console.error('Run with --expose-gc for stable memory figures.');
  }
  if (config.sections.has('growth')) {
    console.error(
      `growth: ${config.growthSizes.join(', ')} slices at ${
        config.growthRate
      } fires/s, ${config.growthSeconds} s x ${
        config.runs
      } runs, a process each`,
    );
    const growth = growthRows(growthSection(config));
    if (config.json) {
      console.log(
        JSON.stringify(
          growth.map(row => ({ ...row, figures: [...row.figures] })),
        ),
      );
      return;
    }
    console.log(
      `\nScheduler cost growth, Node ${process.version}, ${
        cpus().length
      } CPUs, load average ${loadavg()[0].toFixed(1)}, medians of ${
        config.runs
      } runs; every size offered ${
        config.growthRate
      } fires/s (intervals grow with the fleet), a fresh process each\n`,
    );
    console.log(renderGrowthTable(growth, config.growthSizes).text);
    config.sections.delete('growth');
    if (config.sections.size === 0) {
      return;
    }
  }
  const started = performance.now();
  const loadBefore = loadavg()[0];
  const rows: Row[] = [];
  const row = (
    measure: string,
    results: PerVariant,
    key: string,
    digits: number,
    target = '',
    check?: (vigil: number, naive1: number) => boolean,
  ) => {
    const vigil = medianOf(results, 'heap', key);
    const naive1 = medianOf(results, 'setInterval', key);
    rows.push({
      measure,
      vigil,
      naive1,
      naive2: medianOf(results, 'setTimeout', key),
      digits,
      target,
      met: check?.(vigil, naive1),
    });
  };

  // The micro benchmark first, while the process is small and quiet.
  let heap: Record<string, number> | undefined;
  if (config.sections.has('heap')) {
    console.error(
      `heap pop+push, ${config.heapOps} ops x ${config.heapRuns} runs`,
    );
    heap = heapSection(config);
  }
  if (config.sections.has('fleet')) {
    console.error(
      `10k slices, 1-5 s, ${config.fleetSeconds} s x ${config.runs} runs x 3 mechanisms`,
    );
    const fleet = await fleetSection(config);
    const prefix = `10k slices, 1-5 s, ${config.fleetSeconds} s:`;
    row(`${prefix} lateness p50 (ms)`, fleet, 'p50', 1);
    row(
      `${prefix} lateness p99 (ms)`,
      fleet,
      'p99',
      1,
      '<= 2, <= 0.5x naive 1',
      (v, n) => v <= 2 && v <= 0.5 * n,
    );
    row(`${prefix} lateness max (ms)`, fleet, 'max', 1);
    row(`${prefix} early fires`, fleet, 'early', 0, '0', v => v === 0);
    row(
      `${prefix} phase drift, worst slice (ms)`,
      fleet,
      'drift',
      0,
      '0',
      v => v === 0,
    );
    row(`${prefix} CPU per fired probe (us)`, fleet, 'cpuPerFireUs', 2);
    row(`${prefix} fires`, fleet, 'fires', 0);
  }
  if (config.sections.has('big')) {
    console.error(`100k slices, 10-30 s, ${config.runs} runs x 3 mechanisms`);
    const big = bigFleetSection(config, args);
    row(
      '100k slices, 10-30 s: time to schedule, cold process (us/slice)',
      big,
      'scheduleUsPerSlice',
      2,
    );
    row(
      '100k slices: time to schedule, warm (us/slice)',
      big,
      'warmScheduleUsPerSlice',
      2,
      '<= 2',
      v => v <= 2,
    );
    row(
      '100k slices: heap + buffers per slice (bytes)',
      big,
      'bytesPerSlice',
      0,
      '<= 200',
      v => v <= 200,
    );
    row('100k slices: RSS after scheduling (MB)', big, 'rssMb', 0);
    row(
      `100k slices: lateness p99 over ${config.bigSeconds} s (ms)`,
      big,
      'p99',
      1,
    );
    row(`100k slices: fires in ${config.bigSeconds} s`, big, 'fires', 0);
  }
  if (config.sections.has('stall')) {
    console.error(`5 s stall, 1,000 slices on 1 s, ${config.runs} runs`);
    const stall = await stallSection(config);
    row(
      '5 s stall, 1k slices @ 1 s: catch-up runs per slice, min',
      stall,
      'catchUpMin',
      0,
      '1',
      v => v === 1,
    );
    row(
      '5 s stall: catch-up runs per slice, max',
      stall,
      'catchUpMax',
      0,
      '1',
      v => v === 1,
    );
    row('5 s stall: phase error afterwards, p50 (ms)', stall, 'phaseP50', 1);
    row('5 s stall: phase error afterwards, max (ms)', stall, 'phaseMax', 1);
    row(
      '5 s stall: missed ticks counted per slice',
      stall,
      'missedPerSlice',
      1,
    );
  }
  if (heap) {
    for (const size of [1_000, 10_000, 100_000]) {
      const label = `${size / 1000}k`;
      rows.push({
        measure: `heap pop+push @ ${label} entries (ns)`,
        vigil: heap[`popPush${size}`],
        naive1: heap[`objects${size}`],
        naive2: NaN,
        digits: 0,
        target: size === 100_000 ? '<= 500' : '',
        met: size === 100_000 ? heap[`popPush${size}`] <= 500 : undefined,
      });
      rows.push({
        measure: `heap replaceTop @ ${label} entries (ns)`,
        vigil: heap[`replaceTop${size}`],
        naive1: heap[`objects${size}`],
        naive2: NaN,
        digits: 0,
        target: '',
      });
    }
  }

  console.log('');
  console.log(
    `Scheduler benchmark, Node ${process.version}, ${
      cpus().length
    } CPUs, load average ${loadBefore.toFixed(
      1,
    )} before / ${loadavg()[0].toFixed(1)} after, medians of ${
      config.runs
    } runs (heap: ${config.heapRuns}), coalescing window ${
      config.coalesceWindowMs
    } ms`,
  );
  console.log(
    'naive 1 = one setInterval per slice, naive 2 = one setTimeout chain per slice; heap rows: naive 1 = a heap of one object per entry. 100k rows: each mechanism alone in a fresh process (memory needs isolation); all other rows: one process.',
  );
  console.log('');
  printTable(rows);
  console.log('');
  console.log(
    `Phase drift: (last - first) - (fires - 1) x interval of the times each mechanism schedules from (the heap: scheduledAt, from its second tick; setInterval and setTimeout: their callback's start). Lateness is Date.now() at the callback minus the slice's grid time. Took ${(
      (performance.now() - started) /
      1000
    ).toFixed(0)} s.`,
  );
}
