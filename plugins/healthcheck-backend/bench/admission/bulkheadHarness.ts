/*
 * One run of the bulkhead scale harness: the real slice scheduler, bulkhead
 * and runner (a RunEngine) probing loopback servers with the real `http`
 * probe, on the wall clock. See runBulkheadHarness.ts for how it is run.
 */
import { ProbeSecrets, type ProbeType } from '@vigil/plugin-healthcheck-node';
import type { MetricsService } from '@backstage/backend-plugin-api/alpha';
import { createServer as createHttpServer } from 'node:http';
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server,
  type Socket,
} from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { DeferReason } from '../../src/admission/admit';
import { RunEngine } from '../../src/runs/RunEngine';
import { createBuiltinProbeTypes } from '../../src/probes/builtinProbeTypes';
import { ProbeTypeRegistry } from '../../src/probes/ProbeTypeRegistry';
import {
  firstDueAt,
  nextTick,
  staggerOffsetMs,
} from '../../src/scheduler/tickGrid';
import { quietLogger } from '../../src/tooling/quietLogger';
import type { RunRecord } from '../../src/model';
import type { RunnableSlice } from '../../src/model';

/** @internal */
export type HarnessMode = 'off' | 'on';

/** @internal */
export type ScenarioName = 'seed' | 'outage';

/**
 * One load pattern. Times are milliseconds after the start of the run.
 *
 * @internal
 */
export interface HarnessScenario {
  readonly name: ScenarioName;
  readonly checks: number;
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly concurrency: number;
  readonly laneCapacity: number;
  readonly durationMs: number;
  /** Every `failingEvery`th check is behind the server that stops answering. */
  readonly failingEvery: number;
  /** When that server stops answering (0: it never answers). */
  readonly failingFromMs: number;
  /** Where slot time is shared out and the late measures are taken, [from, to). */
  readonly windowMs: readonly [number, number];
}

/** @internal */
export const SCENARIOS: Readonly<Record<ScenarioName, HarnessScenario>> = {
  seed: {
    name: 'seed',
    checks: 240,
    intervalMs: 8000,
    timeoutMs: 5000,
    concurrency: 10,
    laneCapacity: 3,
    durationMs: 35_000,
    failingEvery: 5,
    failingFromMs: 0,
    windowMs: [0, 35_000],
  },
  outage: {
    name: 'outage',
    checks: 240,
    intervalMs: 8000,
    timeoutMs: 5000,
    concurrency: 10,
    laneCapacity: 3,
    durationMs: 180_000,
    failingEvery: 5,
    failingFromMs: 60_000,
    windowMs: [120_000, 180_000],
  },
};

/**
 * Every time of a scenario multiplied by `factor`, for a quick look at
 * whether the harness works; the figures then say nothing about the targets.
 *
 * @internal
 */
export function scaleScenario(
  scenario: HarnessScenario,
  factor: number,
): HarnessScenario {
  const scale = (ms: number) => Math.round(ms * factor);
  return {
    ...scenario,
    intervalMs: scale(scenario.intervalMs),
    timeoutMs: scale(scenario.timeoutMs),
    durationMs: scale(scenario.durationMs),
    failingFromMs: scale(scenario.failingFromMs),
    windowMs: [scale(scenario.windowMs[0]), scale(scenario.windowMs[1])],
  };
}

/**
 * What one run measured. Arrays hold one value per healthy run.
 *
 * @internal
 */
export interface ModeMeasurements {
  readonly scenario: ScenarioName;
  readonly mode: HarnessMode;
  /** Normal-lane ticks waiting for a slot, at the end and at most. */
  readonly finalBacklog: number;
  readonly maxBacklog: number;
  /** The backlog sampled every few ms: [ms after the start, ticks queued]. */
  readonly backlogTimeline: ReadonlyArray<readonly [number, number]>;
  /** Ticks the scheduler skipped because the slice's previous tick still waited or ran. */
  readonly skippedInFlight: number;
  readonly completions: number;
  /** Runs that timed out at the full configured timeout: a slot pinned for 5 s. */
  readonly fullTimeouts: number;
  /** Suspect runs that timed out at a shrunk timeout. */
  readonly shrunkTimeouts: number;
  readonly deferrals: Readonly<Record<DeferReason, number>>;
  /** Due time to answer, of healthy ticks that ran. */
  readonly healthyLatencyMs: readonly number[];
  readonly healthyQueueWaitMs: readonly number[];
  readonly healthyProbeMs: readonly number[];
  readonly healthyDue: number;
  readonly healthyRun: number;
  /** Ticks of all checks due in the run: no mode completes more. */
  readonly allDue: number;
  /** The same, for ticks due inside the window. */
  readonly windowHealthyQueueWaitMs: readonly number[];
  readonly windowHealthyDue: number;
  readonly windowHealthyRun: number;
  /** Slot time held inside the window by probes of the failing checks. */
  readonly failingSlotMsInWindow: number;
  /** Slot time inside the window by all probes. */
  readonly allSlotMsInWindow: number;
  /** concurrency × window length. */
  readonly slotCapacityMsInWindow: number;
  readonly failingEndpointSuspectAtEnd: boolean;
  /**
   * Due time to hand-over by the scheduler, of every tick: the part of the
   * queue wait spent before the bulkhead saw the tick (a busy machine).
   */
  readonly schedulerLatenessMs: readonly number[];
  readonly eventLoopDelayP99Ms: number;
  readonly eventLoopDelayMaxMs: number;
}

const BACKLOG_SAMPLE_EVERY_MS = 50;
/** Healthy probes finish in milliseconds; wait this long for the last ones. */
const SETTLE_MS = 1000;

/** Logs only what would be a problem; runs are counted, not logged. */
/** Backstage's metrics service, keeping what histograms record to read back. */
function recordingMetrics(): MetricsService & {
  recorded(name: string): number[];
} {
  const histograms = new Map<string, number[]>();
  const observable = { addCallback() {}, removeCallback() {} };
  return {
    createHistogram(name: string) {
      const values = histograms.get(name) ?? [];
      histograms.set(name, values);
      return { record: (value: number) => values.push(value) };
    },
    createCounter: () => ({ add() {} }),
    createUpDownCounter: () => ({ add() {} }),
    createGauge: () => ({ record() {} }),
    createObservableCounter: () => observable,
    createObservableUpDownCounter: () => observable,
    createObservableGauge: () => observable,
    recorded: name => histograms.get(name) ?? [],
  };
}

const SCHEDULER_LATENESS_METRIC = 'healthcheck.scheduler.tick.lateness';

interface LoopbackServer {
  readonly port: number;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<LoopbackServer> {
  const sockets = new Set<Socket>();
  server.on('connection', socket => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>(resolve => {
        for (const socket of sockets) {
          socket.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

/** Answers 200 `UP` until `answering()` turns false, then never answers. */
function startHealthServer(answering: () => boolean) {
  return listen(
    createHttpServer((_request, response) => {
      if (answering()) {
        response.end('UP');
      }
      // Otherwise hold the request open: a host that stopped answering.
    }),
  );
}

/** Accepts connections and never sends a byte. */
function startSilentServer() {
  return listen(createTcpServer(() => {}));
}

/** Start and end (epoch ms) of one probe of one check. */
interface ProbeSpan {
  readonly index: number;
  readonly startedAt: number;
  endedAt: number | undefined;
}

function overlapMs(start: number, end: number, from: number, to: number) {
  return Math.max(0, Math.min(end, to) - Math.max(start, from));
}

/**
 * The grid ticks of one slice due in `[from, to)`, as the slice scheduler
 * places them for a slice it took between `from` and `takenBy` (absent
 * stalls). Its first probe is placed from the moment it took the slice,
 * which the harness sees only within those bounds: where the two bounds
 * place it differently, the one it ran is the one that was due.
 */
function dueTicks(
  sliceId: string,
  intervalMs: number,
  from: number,
  takenBy: number,
  to: number,
  ran: ReadonlySet<number>,
): number[] {
  const offset = staggerOffsetMs(sliceId, intervalMs);
  const ticks: number[] = [];
  const later = firstDueAt(intervalMs, offset, takenBy);
  let tick = firstDueAt(intervalMs, offset, from);
  if (!ran.has(tick) && ran.has(later)) {
    tick = later;
  }
  while (tick < to) {
    ticks.push(tick);
    tick = nextTick(tick, intervalMs, offset, tick);
  }
  return ticks;
}

function checkIndexOf(target: string): number {
  const match = /\/check-(\d+)$/.exec(target);
  return match ? Number(match[1]) : -1;
}

/**
 * Runs one scenario in one mode on the wall clock and measures it.
 *
 * @internal
 */
export async function runScenario(
  scenario: HarnessScenario,
  mode: HarnessMode,
): Promise<ModeMeasurements> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();

  let failingAnswers = scenario.failingFromMs > 0;
  const healthyServer = await startHealthServer(() => true);
  const failingServer =
    scenario.failingFromMs > 0
      ? await startHealthServer(() => failingAnswers)
      : await startSilentServer();
  const isFailingCheck = (index: number) => index % scenario.failingEvery === 0;

  // The real http probe, with loopback allowed, timed for slot-time shares.
  const spans: ProbeSpan[] = [];
  const http = createBuiltinProbeTypes({
    networkPolicy: { allowLoopback: true, allowPrivate: false },
    secrets: new ProbeSecrets({}),
  }).find(type => type.type === 'http')!;
  const timedHttp: ProbeType<any> = {
    ...http,
    run: async context => {
      const span: ProbeSpan = {
        index: checkIndexOf(context.target),
        startedAt: Date.now(),
        endedAt: undefined,
      };
      spans.push(span);
      try {
        return await http.run(context);
      } finally {
        span.endedAt = Date.now();
      }
    },
  };
  const probeTypes = new ProbeTypeRegistry();
  probeTypes.add(timedHttp);

  const records: Array<RunRecord & { finishedAt: number }> = [];
  const metrics = recordingMetrics();
  const engine = new RunEngine({
    logger: quietLogger('harness'),
    probeTypes,
    metrics,
    admission: {
      concurrency: scenario.concurrency,
      laneCapacity: scenario.laneCapacity,
      gateSuspectSlices: mode === 'on',
    },
    onRun: record => {
      records.push({ ...record, finishedAt: Date.now() });
    },
  });

  const slices: RunnableSlice[] = Array.from(
    { length: scenario.checks },
    (_, index) => {
      const port = isFailingCheck(index)
        ? failingServer.port
        : healthyServer.port;
      return {
        id: `healthcheck:check-${index}:system%3Adefault%2Fharness:production`,
        intervalMs: scenario.intervalMs,
        checkId: `check-${index}`,
        systemRef: 'system:default/harness',
        environment: 'production',
        type: 'http',
        target: `http://127.0.0.1:${port}/check-${index}`,
        timeoutMs: scenario.timeoutMs,
        config: {},
        conditions: ['[STATUS] == 200'],
      };
    },
  );

  const startedAt = Date.now();
  const endAt = startedAt + scenario.durationMs;
  const failAt = startedAt + scenario.failingFromMs;
  const [windowFrom, windowTo] = scenario.windowMs.map(ms => startedAt + ms);
  const isHealthyTick = (index: number, scheduledAt: number) =>
    !isFailingCheck(index) || scheduledAt < failAt;

  engine.start();
  await engine.scheduler.submit({ type: 'replace', slices });
  while (engine.scheduler.stats().liveSlices < slices.length) {
    await new Promise(resolve => setImmediate(resolve));
  }
  const takenBy = Date.now();

  const backlogTimeline: Array<[number, number]> = [];
  let maxBacklog = 0;
  const sampler = setInterval(() => {
    const backlog = engine.bulkhead.stats().queueLength;
    maxBacklog = Math.max(maxBacklog, backlog);
    backlogTimeline.push([Date.now() - startedAt, backlog]);
  }, BACKLOG_SAMPLE_EVERY_MS);
  const stopAnswering =
    scenario.failingFromMs > 0
      ? setTimeout(() => {
          failingAnswers = false;
        }, failAt - Date.now())
      : undefined;

  await new Promise(resolve => setTimeout(resolve, endAt - Date.now()));
  const atEnd = engine.bulkhead.stats();
  const schedulerAtEnd = engine.scheduler.stats();
  const failingEndpointSuspectAtEnd = engine.bulkhead.endpointClassification(
    `http://127.0.0.1:${failingServer.port}`,
  ).suspect;
  clearInterval(sampler);
  maxBacklog = Math.max(maxBacklog, atEnd.queueLength);
  backlogTimeline.push([scenario.durationMs, atEnd.queueLength]);
  await new Promise(resolve => setTimeout(resolve, SETTLE_MS));
  await engine.stop({ awaitInFlightMs: 0 });
  clearTimeout(stopAnswering);
  await Promise.all([healthyServer.close(), failingServer.close()]);
  delay.disable();

  // Healthy ticks that ran: started before the end, whenever they answered.
  const indexOf = new Map(slices.map((slice, index) => [slice.id, index]));
  const healthyRuns = records.filter(
    record =>
      record.startedAt < endAt &&
      isHealthyTick(indexOf.get(record.sliceId)!, record.scheduledAt),
  );
  const inWindow = (at: number) => at >= windowFrom && at < windowTo;
  const windowHealthyRuns = healthyRuns.filter(record =>
    inWindow(record.scheduledAt),
  );

  let healthyDue = 0;
  let windowHealthyDue = 0;
  let allDue = 0;
  const ranTicks = new Map<string, Set<number>>();
  for (const record of records) {
    const ticks = ranTicks.get(record.sliceId) ?? new Set<number>();
    ticks.add(record.scheduledAt);
    ranTicks.set(record.sliceId, ticks);
  }
  slices.forEach((slice, index) => {
    for (const tick of dueTicks(
      slice.id,
      scenario.intervalMs,
      startedAt,
      takenBy,
      endAt,
      ranTicks.get(slice.id) ?? new Set(),
    )) {
      allDue++;
      if (isHealthyTick(index, tick)) {
        healthyDue++;
        if (inWindow(tick)) {
          windowHealthyDue++;
        }
      }
    }
  });

  let failingSlotMsInWindow = 0;
  let allSlotMsInWindow = 0;
  for (const span of spans) {
    const held = overlapMs(
      span.startedAt,
      span.endedAt ?? windowTo,
      windowFrom,
      windowTo,
    );
    allSlotMsInWindow += held;
    if (isFailingCheck(span.index)) {
      failingSlotMsInWindow += held;
    }
  }

  const finishedByEnd = records.filter(record => record.finishedAt <= endAt);
  const timedOutAt = (full: boolean) =>
    finishedByEnd.filter(
      record =>
        record.error?.kind === 'timeout' &&
        record.timeoutMs >= scenario.timeoutMs === full,
    ).length;

  return {
    scenario: scenario.name,
    mode,
    finalBacklog: atEnd.queueLength,
    maxBacklog,
    backlogTimeline,
    skippedInFlight: schedulerAtEnd.skippedInFlight,
    completions: atEnd.completions.normal + atEnd.completions.suspect,
    fullTimeouts: timedOutAt(true),
    shrunkTimeouts: timedOutAt(false),
    deferrals: atEnd.deferrals,
    healthyLatencyMs: healthyRuns.map(
      record => record.startedAt + record.durationMs - record.scheduledAt,
    ),
    healthyQueueWaitMs: healthyRuns.map(record => record.queueWaitMs),
    healthyProbeMs: healthyRuns.map(record => record.durationMs),
    healthyDue,
    healthyRun: healthyRuns.length,
    allDue,
    windowHealthyQueueWaitMs: windowHealthyRuns.map(
      record => record.queueWaitMs,
    ),
    windowHealthyDue,
    windowHealthyRun: windowHealthyRuns.length,
    failingSlotMsInWindow,
    allSlotMsInWindow,
    slotCapacityMsInWindow: scenario.concurrency * (windowTo - windowFrom),
    failingEndpointSuspectAtEnd,
    schedulerLatenessMs: metrics
      .recorded(SCHEDULER_LATENESS_METRIC)
      .map(seconds => seconds * 1000),
    eventLoopDelayP99Ms: delay.percentile(99) / 1e6,
    eventLoopDelayMaxMs: delay.max / 1e6,
  };
}
