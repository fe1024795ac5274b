import { Bulkhead, type BulkheadResult } from '../../src/admission/Bulkhead';
import type { RunSummary } from '../../src/admission/classifySlice';
import {
  firstDueAt,
  nextTick,
  staggerOffsetMs,
} from '../../src/scheduler/tickGrid';
import { readBenchArgs, type BenchCommand } from '../benchArgs';

/** One load pattern, after the seed's scale harness. */
interface Scenario {
  readonly name: string;
  readonly checks: number;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly laneCapacity: number;
  readonly durationMs: number;
  /** How long a healthy probe holds its slot. */
  readonly healthyProbeMs: number;
  /** From when check `index` stops answering (Infinity: never). */
  failingFrom(index: number): number;
  /** The window whose slot time is shared out, [from, to). */
  readonly shareWindow: readonly [number, number];
}

interface ModeResult {
  readonly finalBacklog: number;
  readonly maxBacklog: number;
  readonly completions: number;
  readonly fullTimeouts: number;
  readonly shrunkTimeouts: number;
  readonly deferrals: number;
  readonly skippedInFlight: number;
  readonly healthyLatencyMs: readonly number[];
  readonly healthyQueueWaitMs: readonly number[];
  readonly healthyDue: number;
  readonly healthyRun: number;
  readonly failingSlotMsInWindow: number;
  readonly allSlotMsInWindow: number;
}

/** A min-heap of timed callbacks, FIFO among equal times. */
class EventQueue {
  #heap: Array<{ at: number; seq: number; fire: () => void }> = [];
  #seq = 0;

  get size(): number {
    return this.#heap.length;
  }

  peekTime(): number {
    return this.#heap[0]?.at ?? Infinity;
  }

  push(at: number, fire: () => void): void {
    const heap = this.#heap;
    heap.push({ at, seq: this.#seq++, fire });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#less(i, parent)) break;
      [heap[i], heap[parent]] = [heap[parent], heap[i]];
      i = parent;
    }
  }

  pop() {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && this.#less(left, smallest)) smallest = left;
        if (right < heap.length && this.#less(right, smallest))
          smallest = right;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest], heap[i]];
        i = smallest;
      }
    }
    return top;
  }

  #less(a: number, b: number): boolean {
    const x = this.#heap[a];
    const y = this.#heap[b];
    return x.at < y.at || (x.at === y.at && x.seq < y.seq);
  }
}

const drainMicrotasks = () => new Promise(resolve => setImmediate(resolve));

function overlapMs(
  start: number,
  end: number,
  [from, to]: readonly [number, number],
) {
  return Math.max(0, Math.min(end, to) - Math.max(start, from));
}

/**
 * Ticks every check on its own offset in the interval; a tick whose slice
 * has not settled is skipped, as the slice scheduler does.
 */
interface Mode {
  readonly gate: boolean;
  readonly laneCapacity?: number;
  /**
   * Start with each slice's recent runs as if loaded from storage: checks
   * failing from the start have timed out three times, after one 4 ms pass.
   */
  readonly primed?: boolean;
  /** Pass each check's endpoint: the failing ones share one dead host. */
  readonly endpoints?: boolean;
  /** Slots one endpoint may always hold (see `AdmissionOptions`). */
  readonly endpointShare?: number;
}

async function simulate(scenario: Scenario, mode: Mode): Promise<ModeResult> {
  const clock = { nowMs: 0, now: () => clock.nowMs };
  const bulkhead = new Bulkhead(
    {
      concurrency: scenario.concurrency,
      laneCapacity: mode.laneCapacity ?? scenario.laneCapacity,
      endpointShare: mode.endpointShare,
      gateSuspectSlices: mode.gate,
    },
    { clock },
  );
  if (mode.primed) {
    const full = { timeoutMsUsed: scenario.timeoutMs, fullTimeoutProbe: true };
    const timedOut = {
      ...full,
      outcome: 'fail' as const,
      durationMs: scenario.timeoutMs,
      errorKind: 'timeout' as const,
    };
    const passed = {
      ...full,
      outcome: 'pass' as const,
      durationMs: scenario.healthyProbeMs,
    };
    for (let index = 0; index < scenario.checks; index++) {
      bulkhead.prime(
        `check-${index}`,
        scenario.failingFrom(index) <= 0
          ? [timedOut, timedOut, timedOut, passed]
          : [passed],
      );
    }
  }
  const events = new EventQueue();
  const busy = new Set<number>();
  const result = {
    maxBacklog: 0,
    fullTimeouts: 0,
    shrunkTimeouts: 0,
    skippedInFlight: 0,
    healthyLatencyMs: [] as number[],
    healthyQueueWaitMs: [] as number[],
    healthyDue: 0,
    healthyRun: 0,
    failingSlotMsInWindow: 0,
    allSlotMsInWindow: 0,
  };

  const probe = (index: number) => (timeoutMs: number) =>
    new Promise<RunSummary>(resolve => {
      const startedAt = clock.nowMs;
      const failing = startedAt >= scenario.failingFrom(index);
      const heldMs = failing ? timeoutMs : scenario.healthyProbeMs;
      if (!failing && startedAt < scenario.durationMs) {
        result.healthyRun++;
      }
      events.push(startedAt + heldMs, () => {
        const slotMs = overlapMs(startedAt, clock.nowMs, scenario.shareWindow);
        result.allSlotMsInWindow += slotMs;
        if (scenario.failingFrom(index) <= scenario.shareWindow[0]) {
          result.failingSlotMsInWindow += slotMs;
        }
        resolve(
          failing
            ? { outcome: 'fail', durationMs: heldMs, errorKind: 'timeout' }
            : { outcome: 'pass', durationMs: heldMs },
        );
      });
    });

  // On the slice scheduler's grid: a first probe inside min(5 s, I / 2),
  // then a hashed offset in the interval.
  const offsets = Array.from({ length: scenario.checks }, (_, index) =>
    staggerOffsetMs(`check-${index}`, scenario.intervalMs),
  );
  const tick = (index: number, dueAt: number) => {
    const next = nextTick(dueAt, scenario.intervalMs, offsets[index], dueAt);
    events.push(next, () => tick(index, next));
    const healthy = dueAt < scenario.failingFrom(index);
    if (healthy) result.healthyDue++;
    if (busy.has(index)) {
      result.skippedInFlight++;
      return;
    }
    busy.add(index);
    bulkhead
      .run(
        {
          sliceId: `check-${index}`,
          dueAt,
          timeoutMs: scenario.timeoutMs,
          ...(mode.endpoints && {
            endpointKey:
              scenario.failingFrom(index) < Infinity
                ? 'http://127.0.0.1:9001'
                : 'http://127.0.0.1:9000',
          }),
        },
        probe(index),
      )
      .then((outcome: BulkheadResult) => {
        busy.delete(index);
        if (outcome.deferred) return;
        if (outcome.run.errorKind === 'timeout') {
          if (outcome.timeoutMs >= scenario.timeoutMs) result.fullTimeouts++;
          else result.shrunkTimeouts++;
        }
        if (healthy && outcome.run.outcome === 'pass') {
          result.healthyQueueWaitMs.push(outcome.queueWaitMs);
          result.healthyLatencyMs.push(clock.nowMs - dueAt);
        }
      });
  };

  for (let index = 0; index < scenario.checks; index++) {
    const first = firstDueAt(scenario.intervalMs, offsets[index], 0);
    events.push(first, () => tick(index, first));
  }

  while (events.peekTime() < scenario.durationMs) {
    const event = events.pop()!;
    clock.nowMs = event.at;
    event.fire();
    await drainMicrotasks();
    result.maxBacklog = Math.max(
      result.maxBacklog,
      bulkhead.stats().queueLength,
    );
  }
  clock.nowMs = scenario.durationMs;

  const stats = bulkhead.stats();
  return {
    ...result,
    finalBacklog: stats.queueLength,
    completions: stats.completions.normal + stats.completions.suspect,
    deferrals:
      stats.deferrals.in_flight +
      stats.deferrals.lane_full +
      stats.deferrals.no_slot,
  };
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(1, Math.ceil((p / 100) * sorted.length)) - 1];
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, column) =>
    Math.max(...rows.map(row => row[column].length)),
  );
  return rows
    .map(row =>
      row.map((cell, column) => cell.padEnd(widths[column])).join('  '),
    )
    .join('\n');
}

const ms = (value: number) => `${Math.round(value)}ms`;
const pct = (value: number) => `${(100 * value).toFixed(1)}%`;

const SEED_LOAD: Scenario = {
  name: '240 checks, 20% unreachable, interval 8 s, timeout 5 s, concurrency 10, 35 s',
  checks: 240,
  intervalMs: 8000,
  timeoutMs: 5000,
  concurrency: 10,
  laneCapacity: 3,
  durationMs: 35_000,
  healthyProbeMs: 4,
  failingFrom: index => (index % 5 === 0 ? 0 : Infinity),
  shareWindow: [0, 35_000],
};

const OUTAGE: Scenario = {
  ...SEED_LOAD,
  name: '240 checks, 48 stop answering at 60 s',
  durationMs: 180_000,
  failingFrom: index => (index % 5 === 0 ? 60_000 : Infinity),
  shareWindow: [120_000, 180_000],
};

const COMMAND: BenchCommand = {
  command:
    'node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON bench/admission/simulateBulkhead.ts',
  flags: {},
};

/** @internal */
export async function main(argv: readonly string[]): Promise<void> {
  readBenchArgs(argv, COMMAND, () => undefined);
  const seedModes: Array<[string, Mode]> = [
    ['bulkhead off', { gate: false }],
    ['on, per slice', { gate: true }],
    [
      'on, + endpoint',
      { gate: true, endpoints: true, endpointShare: SEED_LOAD.concurrency },
    ],
    ['on, + endpoint share', { gate: true, endpoints: true }],
    ['on, per slice, primed', { gate: true, primed: true }],
  ];
  const seed: ModeResult[] = [];
  for (const [, mode] of seedModes) {
    seed.push(await simulate(SEED_LOAD, mode));
  }
  const row = (name: string, read: (r: ModeResult) => string) => [
    name,
    ...seed.map(read),
  ];
  const p50p99 = (values: readonly number[]) =>
    `${ms(percentile(values, 50))} / ${ms(percentile(values, 99))}`;
  process.stdout.write(
    `${SEED_LOAD.name}, lane 3, cold start unless primed\n` +
      'per slice: suspicion from the slice own runs only (endpointKey not passed)\n' +
      '+ endpoint: and from its endpoint, single-flight per suspect endpoint\n' +
      '+ endpoint share: and no endpoint takes the last 3 slots beyond its first 3\n' +
      'primed: per slice, each slice starting with its stored runs (the seed table)\n\n',
  );
  process.stdout.write(
    `${table([
      ['', ...seedModes.map(([name]) => name)],
      row('final backlog', r => String(r.finalBacklog)),
      row('max backlog', r => String(r.maxBacklog)),
      row('completions', r => String(r.completions)),
      row('slot-pinning timeouts (full 5 s)', r => String(r.fullTimeouts)),
      row('shrunk timeouts', r => String(r.shrunkTimeouts)),
      row('deferrals', r => String(r.deferrals)),
      row('ticks skipped (slice in flight)', r => String(r.skippedInFlight)),
      row('healthy latency p50 / p99', r => p50p99(r.healthyLatencyMs)),
      row('healthy queue wait p50 / p99', r => p50p99(r.healthyQueueWaitMs)),
      row(
        'healthy ticks run / due',
        r =>
          `${r.healthyRun} / ${r.healthyDue} (${pct(
            r.healthyRun / r.healthyDue,
          )})`,
      ),
    ])}\n\n`,
  );

  const outageRows: string[][] = [
    [
      'end of run',
      'lane',
      'failing held, off',
      'failing held, on',
      'on / off',
      'healthy run/due, on',
    ],
  ];
  for (const endMs of [180_000, 600_000]) {
    const scenario: Scenario = {
      ...OUTAGE,
      durationMs: endMs,
      shareWindow: [endMs - 60_000, endMs],
    };
    const capacityMs = scenario.concurrency * 60_000;
    const off = await simulate(scenario, { gate: false });
    for (const [laneCapacity, endpoints] of [
      [3, false],
      [1, false],
      [3, true],
    ] as const) {
      const on = await simulate(scenario, {
        gate: true,
        laneCapacity,
        endpoints,
      });
      outageRows.push([
        `${endMs / 1000} s`,
        `${laneCapacity}${endpoints ? ', endpoints' : ''}`,
        pct(off.failingSlotMsInWindow / capacityMs),
        pct(on.failingSlotMsInWindow / capacityMs),
        pct(on.failingSlotMsInWindow / off.failingSlotMsInWindow),
        pct(on.healthyRun / on.healthyDue),
      ]);
    }
  }
  process.stdout.write(`${OUTAGE.name}\n`);
  process.stdout.write(
    'failing held = share of the slot capacity of the last 60 s\n\n',
  );
  process.stdout.write(`${table(outageRows)}\n`);
}
