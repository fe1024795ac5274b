/*
 * bench:probe-cost — what a probe costs, against Prometheus'
 * blackbox_exporter, and what one instance carries (issue 17, sections 3
 * and 5). Linux only: CPU is read from /proc.
 *
 *   yarn bench:probe-cost [--only cost|max-rate|time-to-know] [--rate 500]
 *     [--systems 1000] [--environments 10] [--windows 5] [--window 15]
 *
 * One Vigil backend runs in a process of its own on a PostgreSQL database
 * made for the run, with `systems × environments` slices (10k by default)
 * probing a loopback target that answers a small JSON body, at an interval
 * chosen so that they offer `rate` probes per second. Each probe goes the
 * whole run path: scheduler, claim, bulkhead, http probe, conditions, judge,
 * batched writes, follow-up.
 *
 * - cost: the instance's CPU per completed probe against blackbox_exporter's,
 *   driven by a load generator in a process of its own at the same rate
 *   against the same target with an equivalent module (Vigil's checks
 *   paused meanwhile), in `windows` rounds of one window each, the ratio
 *   judged being the median of the rounds' ratios. Both open a connection
 *   per probe.
 * - time-to-know: with that load running, 50 targets start failing one after
 *   another; how long until the systems route shows each environment
 *   unhealthy and its notification is sent.
 * - max-rate: the interval is shortened step by step; the highest rate with
 *   queue wait p99 ≤ 250 ms and ≥ 99% of the ticks run.
 */
import { mkdtempSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { readBenchArgs, type BenchCommand } from '../benchArgs';
import { DEFAULT_POSTGRES_URL, openPostgres } from '../benchDatabases';
import { DEFAULT_STATUS_THRESHOLDS } from '../../src/judge/sliceStatus';
import { BlackboxExporter, ensureBlackboxExporter } from './blackboxExporter';
import { processCpuSeconds, startCpuSpan } from '../cpuUsage';
import { LoadGenerator, type LoadResult } from '../loadGenerator';
import {
  environmentName,
  ProbeCostInstance,
  systemName,
} from './probeCostInstance';
import {
  type CostWindow,
  type FailureTiming,
  highestSustainedRate,
  type RateStep,
  renderCostTable,
  renderRateTable,
  renderTimeToKnowTable,
} from './probeCostReport';
import { ProbeTarget, UP_BODY_PATTERN } from './probeTarget';

const MODES = ['cost', 'time-to-know', 'max-rate'] as const;
type Mode = (typeof MODES)[number];

interface Settings {
  modes: Mode[];
  rate: number;
  systems: number;
  environments: number;
  windows: number;
  windowSeconds: number;
  failures: number;
  /** Offered rates of the ramp, as multiples of `rate`. */
  rampFactors: number[];
}

/** Before measuring: the newest result written started at most this long ago. */
const CURRENT_RESULTS_LAG_MS = 2_000;
/** Runs written behind their probes have landed this long after. */
const WRITE_SETTLE_MS = 3_000;
/** After the slices' first runs, before measuring: a new slice's first probe comes within 5 s. */
const SETTLE_MS = 5_000;
/** A paused instance is quiet when it uses under this share of a core ... */
const QUIET_CORES = 0.1;
/** ... and is waited for this long at most. */
const QUIET_TIMEOUT_MS = 60_000;
/** Between two failures of the time-to-know mode. */
const FAILURE_SPACING_MS = 1_000;
/** How often the systems route is asked about a failing environment. */
const STATUS_POLL_MS = 500;
/** blackbox_exporter's driver: enough connections that none waits. */
const DRIVER_CONNECTIONS = 32;

function log(line: string): void {
  process.stderr.write(`[probe-cost] ${line}\n`);
}

const COMMAND: BenchCommand = {
  command: 'yarn bench:probe-cost',
  flags: {
    only: { value: MODES.join('|') },
    rate: { value: 'PER_S' },
    systems: { value: 'N' },
    environments: { value: 'N' },
    windows: { value: 'N' },
    window: { value: 'S' },
    failures: { value: 'N' },
  },
};

function parseSettings(argv: readonly string[]): Settings {
  return readBenchArgs(argv, COMMAND, args => {
    const only = args.oneOf('only', MODES);
    return {
      modes: only ? [only] : [...MODES],
      rate: args.number('rate', 500, { above: 0 }),
      systems: args.whole('systems', 1000),
      environments: args.whole('environments', 10),
      windows: args.whole('windows', 5),
      windowSeconds: args.number('window', 15, { above: 0 }),
      failures: args.whole('failures', 50),
      rampFactors: [1, 2, 3, 4, 5, 6],
    };
  });
}

/** The interval at which `slices` slices offer `rate` probes per second. */
function intervalFor(slices: number, rate: number): number {
  return Math.round((slices / rate) * 1000);
}

/** CPU of one process over a window of `seconds`, and what it did meanwhile. */
async function measureProcess(
  pid: number,
  seconds: number,
  postgresPids?: () => Promise<Set<string>>,
): Promise<{
  from: number;
  to: number;
  cpuSeconds: number;
  postgresCpuSeconds?: number;
  machineCores: number;
}> {
  const pgPids = await postgresPids?.();
  const span = startCpuSpan(pgPids);
  const cpuBefore = processCpuSeconds(pid);
  const from = Date.now();
  await sleep(seconds * 1000);
  const to = Date.now();
  const cpuSeconds = processCpuSeconds(pid) - cpuBefore;
  const cores = span(await postgresPids?.());
  return {
    from,
    to,
    cpuSeconds,
    postgresCpuSeconds: postgresPids
      ? (cores.postgresCores * (to - from)) / 1000
      : undefined,
    machineCores: cores.machineCores,
  };
}

/**
 * Waits until a process uses under a tenth of a core over a second, or
 * says so after a while (the window after it then shares the machine).
 */
async function waitForQuietProcess(pid: number): Promise<void> {
  const deadline = Date.now() + QUIET_TIMEOUT_MS;
  let before = processCpuSeconds(pid);
  while (Date.now() < deadline) {
    await sleep(1_000);
    const now = processCpuSeconds(pid);
    if (now - before < QUIET_CORES) {
      return;
    }
    before = now;
  }
  log(
    `WARNING: Vigil's process still busy ${
      QUIET_TIMEOUT_MS / 1000
    } s after its checks were paused`,
  );
}

async function measureVigilWindow(
  vigil: ProbeCostInstance,
  settings: Settings,
  databaseName: string,
  round: number,
): Promise<CostWindow> {
  const transactionsBefore = await vigil.transactions(databaseName);
  const span = await measureProcess(vigil.pid, settings.windowSeconds, () =>
    vigil.postgresPids(databaseName),
  );
  // PostgreSQL flushes its statistics about once a second, at both ends.
  const transactions =
    (await vigil.transactions(databaseName)) - transactionsBefore;
  await sleep(WRITE_SETTLE_MS);
  const runs = await vigil.runsStartedIn(span.from, span.to);
  log(
    `  round ${round}, Vigil: ${runs.length} probes, ${span.cpuSeconds.toFixed(
      2,
    )} CPU s, PostgreSQL ${span.postgresCpuSeconds?.toFixed(
      2,
    )} CPU s, ${transactions} transactions`,
  );
  return {
    cpuSeconds: span.cpuSeconds,
    postgresCpuSeconds: span.postgresCpuSeconds,
    transactions,
    probes: runs.length,
    seconds: (span.to - span.from) / 1000,
  };
}

/**
 * One window of a process driven by `run` at the offered rate: its CPU per
 * probe, where a probe counts when it answered 200.
 */
async function measureDrivenWindow(
  name: string,
  pid: number,
  run: () => Promise<LoadResult>,
  round: number,
): Promise<CostWindow> {
  const cpuBefore = processCpuSeconds(pid);
  const result = await run();
  const cpuSeconds = processCpuSeconds(pid) - cpuBefore;
  const probes = result.statusCodes['200'] ?? 0;
  log(
    `  round ${round}, ${name}: ${probes} probes (${
      result.errors + result.non2xx
    } failed), ${cpuSeconds.toFixed(2)} CPU s, p99 ${result.p99Ms.toFixed(
      1,
    )} ms`,
  );
  return { cpuSeconds, probes, seconds: result.seconds };
}

/**
 * CPU per probe of Vigil, blackbox_exporter and the Node floor, measured
 * in turn, round by round: a window of Vigil probing, then (its checks
 * paused) a window of each of the others driven at the same rate against
 * the same target. Taken in blocks, one prober after another, the ratio
 * moved with the machine's speed over the minutes between the blocks
 * (0.40× to 0.60× on the same code); in rounds, each round's ratio is of
 * windows a minute apart.
 *
 * The Node floor is a process that does nothing but probe the target with
 * Node's own HTTP client, a connection per probe, the body matched as
 * blackbox_exporter's module matches it: what any Node prober pays at least.
 */
async function measureCost(
  vigil: ProbeCostInstance,
  target: ProbeTarget,
  settings: Settings,
  databaseName: string,
  intervalMs: number,
): Promise<{
  vigil: CostWindow[];
  blackbox: CostWindow[];
  nodeFloor: CostWindow[];
}> {
  const slices = settings.systems * settings.environments;
  const probed = target.url(systemName(0), environmentName(0));
  const exporter = await BlackboxExporter.start({
    binary: ensureBlackboxExporter(log),
    bodyPattern: UP_BODY_PATTERN,
  });
  const exporterLoad = LoadGenerator.start();
  const nodeProber = LoadGenerator.start();
  const windows = {
    vigil: [] as CostWindow[],
    blackbox: [] as CostWindow[],
    nodeFloor: [] as CostWindow[],
  };
  const driven = {
    pick: 'cycle',
    range: 1,
    connections: DRIVER_CONNECTIONS,
    seconds: settings.windowSeconds,
    rate: settings.rate,
    prefix: '',
    endpoint: 'floor',
  } as const;
  try {
    if (!(await exporter.probeOnce(probed))) {
      throw new Error(`blackbox_exporter's module fails against ${probed}`);
    }
    for (let round = 1; round <= settings.windows; round++) {
      if (round > 1) {
        // Resuming turns every slice from paused to healthy, with the
        // transitions the first runs made: one more interval for their
        // follow-ups, as before the first round.
        const resumedAt = Date.now();
        await vigil.writeChecks(intervalMs);
        await waitForEverySlice(vigil, slices, resumedAt);
        await sleep(SETTLE_MS + intervalMs);
      }
      windows.vigil.push(
        await measureVigilWindow(vigil, settings, databaseName, round),
      );
      await vigil.writeChecks(intervalMs, true);
      // Pausing makes transitions too; the others are measured once the
      // instance has worked them off, not beside it.
      await waitForQuietProcess(vigil.pid);
      windows.blackbox.push(
        await measureDrivenWindow(
          'blackbox_exporter',
          exporter.pid,
          () =>
            exporterLoad.run({
              ...driven,
              url: `http://127.0.0.1:${exporter.port}`,
              path: exporter.probePath(probed),
            }),
          round,
        ),
      );
      windows.nodeFloor.push(
        await measureDrivenWindow(
          'Node floor',
          nodeProber.pid!,
          () =>
            nodeProber.run({
              ...driven,
              url: probed,
              probeBodyPattern: UP_BODY_PATTERN,
            }),
          round,
        ),
      );
    }
    return windows;
  } finally {
    await nodeProber.stop();
    await exporterLoad.stop();
    await exporter.stop();
  }
}

async function timeToKnow(
  vigil: ProbeCostInstance,
  target: ProbeTarget,
  settings: Settings,
): Promise<FailureTiming[]> {
  const timings = new Map<string, FailureTiming>();
  const pending = new Set<string>();
  let failing = true;
  // One poller for every failure shown so far: it asks about each failing
  // environment not yet shown unhealthy.
  const poller = (async () => {
    while (failing || pending.size > 0) {
      await Promise.all(
        [...pending].map(async key => {
          const [system, environment] = key.split('/');
          if (
            (await vigil.environmentStatus(system, environment)) === 'unhealthy'
          ) {
            timings.get(key)!.shownAt ??= Date.now();
            pending.delete(key);
          }
        }),
      );
      await sleep(STATUS_POLL_MS);
    }
  })();
  const step = Math.max(
    1,
    Math.floor((settings.systems * settings.environments) / settings.failures),
  );
  const deadlineAfterLast =
    intervalFor(settings.systems * settings.environments, settings.rate) *
      DEFAULT_STATUS_THRESHOLDS.failure +
    30_000;
  for (let i = 0; i < settings.failures; i++) {
    // Spread over systems and environments: slice i·step.
    const slice = i * step;
    const system = systemName(
      Math.floor(slice / settings.environments) % settings.systems,
    );
    const environment = environmentName(slice % settings.environments);
    const key = `${system}/${environment}`;
    target.fail(system, environment);
    timings.set(key, { failedAt: Date.now() });
    pending.add(key);
    await sleep(FAILURE_SPACING_MS);
  }
  const deadline = Date.now() + deadlineAfterLast;
  while (pending.size > 0 && Date.now() < deadline) {
    await sleep(500);
  }
  failing = false;
  pending.clear();
  await poller;
  // Notifications are appended as they are sent; one more write settles.
  await sleep(WRITE_SETTLE_MS);
  const notified = vigil.unhealthyNotifications();
  return [...timings].map(([key, timing]) => ({
    ...timing,
    notifiedAt: notified.get(key),
  }));
}

async function rampRate(
  vigil: ProbeCostInstance,
  settings: Settings,
  databaseName: string,
): Promise<RateStep[]> {
  const slices = settings.systems * settings.environments;
  const steps: RateStep[] = [];
  for (const factor of settings.rampFactors) {
    const rate = settings.rate * factor;
    const intervalMs = intervalFor(slices, rate);
    // The checks are rewritten over one new interval; a few more seconds
    // for the last ones' slices to settle on its grid.
    await vigil.writeChecks(intervalMs);
    await sleep(intervalMs + SETTLE_MS);
    // Whole intervals: every slice is due the same number of times in it.
    const periods = Math.max(
      1,
      Math.round((settings.windowSeconds * 1000) / intervalMs),
    );
    const span = await measureProcess(
      vigil.pid,
      (periods * intervalMs) / 1000,
      () => vigil.postgresPids(databaseName),
    );
    await sleep(WRITE_SETTLE_MS);
    const runs = await vigil.runsDueIn(span.from, span.to);
    const seconds = (span.to - span.from) / 1000;
    const step: RateStep = {
      rate,
      due: Math.round((slices * (span.to - span.from)) / intervalMs),
      queueWaitsMs: runs.map(run => run.startedAt - run.scheduledAt),
      vigilCores: span.cpuSeconds / seconds,
      postgresCores: (span.postgresCpuSeconds ?? NaN) / seconds,
      machineCores: span.machineCores,
    };
    steps.push(step);
    log(`  ${rate} probes/s: ${runs.length} of ${step.due} due ticks ran`);
    if (highestSustainedRate(steps) !== rate) {
      break;
    }
  }
  return steps;
}

/** Every slice's first run, or a warning that the machine is too busy. */
async function waitForEverySlice(
  vigil: ProbeCostInstance,
  slices: number,
  since: number,
): Promise<void> {
  const ran = await vigil.waitForRuns(slices, since);
  const current = await vigil.waitForCurrentResults(CURRENT_RESULTS_LAG_MS);
  if (!current) {
    log(
      `WARNING: results still land more than ${CURRENT_RESULTS_LAG_MS} ms behind their probes; the figures below are of a backlog`,
    );
  }
  if (ran < slices) {
    log(
      `WARNING: only ${ran} of ${slices} slices ran within the wait (load average ${loadavg()
        .map(load => load.toFixed(1))
        .join(', ')} on ${
        cpus().length
      } cores); the figures below are of an overloaded machine`,
    );
  }
}

async function main(settings: Settings): Promise<number> {
  const outputDir = mkdtempSync(path.join(tmpdir(), 'vigil-probe-cost-'));
  const slices = settings.systems * settings.environments;
  const intervalMs = intervalFor(slices, settings.rate);
  const database = await openPostgres(DEFAULT_POSTGRES_URL);
  if ('unreachable' in database) {
    throw new Error(`PostgreSQL is needed: ${database.unreachable}`);
  }
  const target = await ProbeTarget.start();
  let vigil: ProbeCostInstance | undefined;
  const stopNow = () => {
    vigil?.killNow();
    process.exit(130);
  };
  process.once('SIGINT', stopNow);
  process.once('SIGTERM', stopNow);
  const out: string[] = [];
  let met = true;
  try {
    log(
      `${database.description}; ${cpus().length} cores; logs in ${outputDir}`,
    );
    vigil = await ProbeCostInstance.start({
      outputDir,
      postgresUrl: DEFAULT_POSTGRES_URL,
      databaseName: database.databaseName!,
      knex: database.knex,
      target,
      systems: settings.systems,
      environments: settings.environments,
    });
    const madeAt = Date.now();
    await vigil.writeChecks(intervalMs);
    log(
      `${slices} slices every ${intervalMs} ms (${settings.rate} probes/s); waiting for every slice's first run`,
    );
    await waitForEverySlice(vigil, slices, madeAt);
    await sleep(SETTLE_MS);

    if (settings.modes.includes('cost')) {
      // The first runs turned every slice from unknown to healthy: 10k
      // environment transitions, rollups and notifications, still being
      // worked off for a while. One more interval, so every slice runs once
      // after its first run and what is measured is steady probing.
      log(
        `cost: ${settings.windows} rounds of Vigil, blackbox_exporter and the Node floor, after one interval (${intervalMs} ms) for the first runs' follow-ups`,
      );
      await sleep(intervalMs);
      const cost = await measureCost(
        vigil,
        target,
        settings,
        database.databaseName!,
        intervalMs,
      );
      // Resumed only for the modes after this one.
      if (settings.modes.some(mode => mode !== 'cost')) {
        const resumedAt = Date.now();
        await vigil.writeChecks(intervalMs);
        await waitForEverySlice(vigil, slices, resumedAt);
        await sleep(SETTLE_MS);
      }
      const table = renderCostTable({
        rate: settings.rate,
        vigil: cost.vigil,
        blackbox: cost.blackbox,
        nodeFloor: cost.nodeFloor,
        keepAlive:
          'not applicable: the http probe opens a connection per probe by design',
      });
      met &&= table.met !== false;
      out.push(
        `### CPU per probe, ${slices} slices on PostgreSQL, ${settings.windows} rounds of a ${settings.windowSeconds} s window each\n\n${table.text}`,
      );
    }
    if (settings.modes.includes('time-to-know')) {
      log(`time-to-know: ${settings.failures} targets start failing`);
      const timings = await timeToKnow(vigil, target, settings);
      const table = renderTimeToKnowTable({
        timings,
        intervalMs,
        failureThreshold: DEFAULT_STATUS_THRESHOLDS.failure,
      });
      met &&= table.met;
      out.push(
        `### Time to know, ${slices} slices at ${
          settings.rate
        } probes/s (interval ${intervalMs / 1000} s, failure threshold ${
          DEFAULT_STATUS_THRESHOLDS.failure
        }), ${settings.failures} failures\n\n${table.text}`,
      );
    }
    if (settings.modes.includes('max-rate')) {
      log('max-rate: shortening the interval');
      const steps = await rampRate(vigil, settings, database.databaseName!);
      out.push(
        `### Rates one instance sustains, ${slices} slices on PostgreSQL, windows of whole intervals (about ${
          settings.windowSeconds
        } s)\n\n${renderRateTable(steps)}`,
      );
    }
  } finally {
    await vigil?.stop();
    await target.close();
    await database.close();
  }
  process.stdout.write(`${out.join('\n\n')}\n`);
  return met ? 0 : 1;
}

main(parseSettings(process.argv.slice(2))).then(
  code => process.exit(code),
  error => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exit(2);
  },
);
