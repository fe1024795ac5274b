/* eslint-disable no-console */
/*
 * The read path and the run-write path under load, on PostgreSQL: 10,000
 * systems x 3 environments x 2 checks of state (60,000 slices) and 30 days
 * of hourly aggregates, served by the real routers over HTTP on loopback.
 *
 *   yarn bench:read-path [--systems N] [--history-systems N] [--seconds S]
 *     [--warmup S] [--connections N] [--runs N] [--write-runs N]
 *     [--naive-write-runs N (0: none)] [--batches 100,500,1000]
 *     [--only reads|writes] [--endpoints rollup,status-badge,...]
 *     [--quiet-wait S] [--busy-repeats N]
 *     [--require-postgres] [--postgres URL]
 *
 * which is
 *
 *   node --expose-gc --require @backstage/cli/config/nodeTransform.cjs \
 *     bench/readPath/benchReadPath.ts ...
 *
 * 1. Seeds a scratch database `vigil_bench_<pid>` (dropped at the end); see
 *    benchFixture.ts for what and how. Only the first `--history-systems`
 *    (default 1,000) systems get the 30 days of hourly aggregates (720 rows
 *    a slice, 4.3 million rows); the up-time badge is asked about those.
 * 2. Serves the real `createSystemsRouter` and `createBadgeRouter` on the
 *    real stores and the in-memory read model, in a process of its own
 *    pinned to the first CPU (see benchServerProcess.ts; the catalog and
 *    HttpAuthService are fakes); the fixture stays in this process. The
 *    same routers reading the database instead of the model are mounted
 *    beside them, for comparison rows.
 * 3. Loads each route with autocannon in another process, pinned to the
 *    last CPU (see loadGenerator.ts; both pinned with taskset where the
 *    machine has two CPUs or more): `--connections` (default 50) connections for
 *    `--seconds` (default 10) after one pass over every system (timed: the
 *    rate of a cold cache) and a `--warmup` (default 3 s) run of the same
 *    load, cycling through the systems; then each route at half the
 *    throughput it reached, as an open loop (evenly spaced requests on up to
 *    50 connections, latency from each request's due time); then each route
 *    on one connection, unloaded.
 *    The system of each request is random, or cycles through all systems so
 *    that the rollup cache (2 s) misses on every request.
 *    Before each measured load it waits up to `--quiet-wait` (default 15)
 *    seconds for a second in which the machine is idle: on a shared machine
 *    other work would land in the numbers; a load during which other
 *    processes used, or the hypervisor took (steal), more than 0.3 cores is
 *    measured again, up to `--busy-repeats` (default 1) times. The table
 *    says how much CPU other processes used and how much was stolen during
 *    each load kept.
 * 4. Stores completed runs in batches through the real write path and a
 *    naive one (see benchWrites.ts).
 *
 * Prints one markdown table (medians of `--runs`, default 1), each read
 * route's target a ratio to the floor measured in the same run (the same
 * Express stack, the API's OpenAPI validation included, answering a
 * constant; the bare Express floor is printed too) (issue 17:
 * at 50 connections, rollup read p99 <= 1.2x the floor's, status and warm
 * up-time badge p99 <= 1.1x, each at >= 0.8x the floor's throughput), and
 * then where the time went. PostgreSQL: `--postgres URL`, else
 * BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING, else
 * postgresql://postgres@127.0.0.1:5432. Skipped with a note when it does not
 * answer, unless `--require-postgres`.
 */
import { cpus, loadavg } from 'node:os';
import type { Knex } from 'knex';
import { readBenchArgs, type BenchCommand } from '../benchArgs';
import { DEFAULT_POSTGRES_URL, openPostgres } from '../benchDatabases';
import { startCpuSpan, type CpuSpan } from '../cpuUsage';
import {
  BADGE_TARGET,
  describeFloorTarget,
  judgeAgainstFloor,
  ROLLUP_READ_TARGET,
  type FloorTarget,
} from './floorTargets';
import { seedFixture, type Fixture } from './benchFixture';
import {
  WITHOUT_READ_MODEL,
  WITHOUT_VALIDATOR,
  type ServerSample,
} from './benchServer';
import { BenchServerProcess } from './benchServerProcess';
import { benchCores } from '../pinnedProcess';
import { WriteBench, type WritePath } from './benchWrites';
import {
  ENDPOINTS,
  FLOOR_PATH,
  VALIDATED_FLOOR_PATH,
  LoadGenerator,
  type Endpoint,
  type LoadResult,
  type SystemPick,
} from '../loadGenerator';

const TARGET_RUNS_PER_SECOND = 5_000;

interface Options {
  systems: number;
  historySystems: number;
  seconds: number;
  warmup: number;
  connections: number;
  runs: number;
  writeRuns: number;
  naiveWriteRuns: number;
  batches: number[];
  only?: 'reads' | 'writes';
  /** The endpoints whose loads run (all when unset). */
  endpoints?: Endpoint[];
  /** Seconds to wait for a quiet machine before each measured load. */
  quietWait: number;
  /** How often a load is measured again when other work took CPU. */
  busyRepeats: number;
  requirePostgres: boolean;
  postgresUrl: string;
}

const COMMAND: BenchCommand = {
  command: 'yarn bench:read-path',
  flags: {
    systems: { value: 'N' },
    'history-systems': { value: 'N' },
    seconds: { value: 'S' },
    warmup: { value: 'S' },
    connections: { value: 'N' },
    runs: { value: 'N' },
    'write-runs': { value: 'N' },
    'naive-write-runs': { value: 'N' },
    batches: { value: '100,500,1000' },
    only: { value: 'reads|writes' },
    endpoints: { value: ENDPOINTS.join(',') },
    'quiet-wait': { value: 'S' },
    'busy-repeats': { value: 'N' },
    'require-postgres': {},
    postgres: { value: 'URL' },
  },
};

function parseOptions(argv: readonly string[]): Options {
  return readBenchArgs(argv, COMMAND, args => {
    const systems = args.whole('systems', 10_000);
    const endpoints = args.text('endpoints');
    return {
      systems,
      historySystems: Math.min(systems, args.whole('history-systems', 1_000)),
      seconds: args.whole('seconds', 10),
      warmup: args.whole('warmup', 3, 0),
      connections: args.whole('connections', 50),
      runs: args.whole('runs', 1),
      writeRuns: args.whole('write-runs', 20_000),
      naiveWriteRuns: args.whole('naive-write-runs', 5_000, 0),
      batches: args.wholes('batches', '100,500,1000'),
      only: args.oneOf('only', ['reads', 'writes'] as const),
      endpoints:
        endpoints === undefined
          ? undefined
          : (args.someOf('endpoints', ENDPOINTS, []) as Endpoint[]),
      quietWait: args.whole('quiet-wait', 15, 0),
      busyRepeats: args.whole('busy-repeats', 1, 0),
      requirePostgres: args.has('require-postgres'),
      postgresUrl: args.text('postgres', DEFAULT_POSTGRES_URL),
    };
  });
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) {
    return NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function ms(value: number): string {
  if (!Number.isFinite(value)) return '—';
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

function whole(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** One line of the result table. */
interface Row {
  measurement: string;
  /** Said instead of a target, for a reference row. */
  reference?: string;
  load: string;
  p50: number[];
  p99: number[];
  /** Requests or runs per second. */
  rate: number[];
  unit: 'req/s' | 'runs/s';
  errors: number;
  non2xx: number;
  target?:
    | { kind: 'floor'; ratios: FloorTarget }
    | { kind: 'rate ≥'; value: number };
  /** The floor loaded just before each run of a row with a floor target. */
  floorP99: number[];
  floorRate: number[];
  /** Compared with this row's rate instead of a target. */
  versus?: Row;
  note: string[];
}

interface Scenario {
  measurement: string;
  /** Said instead of a target, for a reference row. */
  reference?: string;
  endpoint: Endpoint;
  pick: SystemPick;
  range: number;
  connections: number;
  load: string;
  /** Ratios to the floor's closed loop at the same connections. */
  target?: FloorTarget;
  /** Where the routers are mounted; default behind the validator. */
  prefix?: string;
  /** Names this scenario for `halfOf`. */
  key?: string;
  /**
   * Offers half the throughput the scenario `halfOf` reached, evenly
   * spaced (an open loop on up to `connections` connections): latency
   * below saturation rather than at it.
   */
  halfOf?: string;
}

function scenarios(options: Options): Scenario[] {
  const s = whole(options.systems);
  const h = whole(options.historySystems);
  const c = options.connections;
  const rollup = 'GET /v1/systems/default/system-N (rollup read)';
  const status = 'GET /v1/badges/systems/default/system-N (status badge)';
  const uptime =
    'GET /v1/badges/systems/default/system-N?kind=uptime&window=30d';
  return [
    {
      measurement: `GET ${FLOOR_PATH}/default/system-N (a constant, the floor)`,
      reference: 'the floor: express answering a stored object, nothing else',
      endpoint: 'floor',
      pick: 'random',
      range: options.systems,
      connections: c,
      load: `${c} conns, random of ${s} systems`,
      key: 'floor',
    },
    {
      measurement: `GET ${VALIDATED_FLOOR_PATH}/v1/systems/default/system-N (a constant behind the API's validation, the floor routes are judged against)`,
      reference:
        "the same Express stack as the API's routes (its OpenAPI validation) answering the floor's stored object",
      endpoint: 'validated-floor',
      pick: 'random',
      range: options.systems,
      connections: c,
      load: `${c} conns, random of ${s} systems`,
      key: 'validated-floor',
    },
    {
      measurement: rollup,
      endpoint: 'rollup',
      pick: 'random',
      range: options.systems,
      connections: c,
      load: `${c} conns, random of ${s} systems`,
      target: ROLLUP_READ_TARGET,
      key: 'rollup',
    },
    {
      measurement: rollup,
      endpoint: 'rollup',
      pick: 'cycle',
      range: options.systems,
      connections: c,
      load: `${c} conns, cycling ${s} systems (no system twice in a row)`,
      target: ROLLUP_READ_TARGET,
    },
    {
      measurement: rollup,
      endpoint: 'rollup',
      pick: 'cycle',
      range: 100,
      connections: c,
      load: `${c} conns, cycling 100 systems`,
      target: ROLLUP_READ_TARGET,
    },
    {
      measurement: status,
      endpoint: 'status-badge',
      pick: 'random',
      range: options.systems,
      connections: c,
      load: `${c} conns, random of ${s} systems`,
      target: BADGE_TARGET,
      key: 'status',
    },
    {
      measurement: status,
      endpoint: 'status-badge',
      pick: 'cycle',
      range: options.systems,
      connections: c,
      load: `${c} conns, cycling ${s} systems (no system twice in a row)`,
      target: BADGE_TARGET,
    },
    {
      measurement: `${rollup}, reading the database`,
      reference:
        'without the read model: the rollup cache (2 s) and a matrix read per request',
      endpoint: 'rollup',
      pick: 'random',
      range: options.systems,
      connections: c,
      load: `${c} conns, random of ${s} systems`,
      prefix: WITHOUT_READ_MODEL,
    },
    {
      measurement: `${status}, reading the database`,
      reference: 'without the read model: the rollup cache (2 s)',
      endpoint: 'status-badge',
      pick: 'random',
      range: options.systems,
      connections: c,
      load: `${c} conns, random of ${s} systems`,
      prefix: WITHOUT_READ_MODEL,
    },
    {
      measurement: uptime,
      endpoint: 'uptime-badge',
      pick: 'random',
      range: options.historySystems,
      connections: c,
      load: `${c} conns, random of the ${h} systems with 30 days of hours`,
      target: BADGE_TARGET,
      key: 'uptime',
    },
    {
      measurement: rollup,
      endpoint: 'rollup',
      pick: 'random',
      range: options.systems,
      connections: c,
      load: `${c} conns, random of ${s} systems, open loop at half the saturated rate`,
      halfOf: 'rollup',
    },
    {
      measurement: status,
      endpoint: 'status-badge',
      pick: 'random',
      range: options.systems,
      connections: c,
      load: `${c} conns, random of ${s} systems, open loop at half the saturated rate`,
      halfOf: 'status',
    },
    {
      measurement: uptime,
      endpoint: 'uptime-badge',
      pick: 'random',
      range: options.historySystems,
      connections: c,
      load: `${c} conns, random of ${h} systems, open loop at half the saturated rate`,
      halfOf: 'uptime',
    },
    {
      measurement: rollup,
      endpoint: 'rollup',
      pick: 'cycle',
      range: options.systems,
      connections: 1,
      load: `1 conn, cycling ${s} systems (unloaded)`,
    },
    {
      measurement: status,
      endpoint: 'status-badge',
      pick: 'cycle',
      range: options.systems,
      connections: 1,
      load: `1 conn, cycling ${s} systems (unloaded)`,
    },
    {
      measurement: uptime,
      endpoint: 'uptime-badge',
      pick: 'cycle',
      range: options.historySystems,
      connections: 1,
      load: `1 conn, cycling ${h} systems (unloaded)`,
    },
    {
      measurement: `${rollup}, without the OpenAPI validator`,
      endpoint: 'rollup',
      pick: 'cycle',
      range: options.systems,
      connections: 1,
      load: `1 conn, cycling ${s} systems (unloaded)`,
      prefix: WITHOUT_VALIDATOR,
    },
    {
      measurement: `${status}, without the OpenAPI validator`,
      endpoint: 'status-badge',
      pick: 'cycle',
      range: options.systems,
      connections: 1,
      load: `1 conn, cycling ${s} systems (unloaded)`,
      prefix: WITHOUT_VALIDATOR,
    },
  ];
}

/** Where a scenario's time went, from its last run. */
interface Diagnosis {
  scenario: Scenario;
  load: LoadResult;
  server: ServerSample;
  cpu: CpuSpan;
}

/**
 * Waits (up to `seconds`) for a second in which the machine, the bench
 * idle, uses less than a quarter of a core: other work on a shared machine
 * would otherwise land in the measurement. False when it never was.
 */
async function waitForQuiet(seconds: number): Promise<boolean> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const span = startCpuSpan();
    await new Promise(resolve => setTimeout(resolve, 1000));
    const { machineCores, stolenCores } = span();
    if (!(machineCores + stolenCores >= 0.25)) {
      return true;
    }
    if (Date.now() >= deadline) {
      return false;
    }
  }
}

/**
 * Cores other processes may use, or the hypervisor may take, during a load
 * before it is measured again.
 */
const BUSY_CORES = 0.3;

/** Measured loads kept although others took more than BUSY_CORES. */
let busyRuns = 0;

async function benchReads(
  server: BenchServerProcess,
  generator: LoadGenerator,
  options: Options,
  list: readonly Scenario[],
  rows: Row[],
  diagnoses: Diagnosis[],
  /** The pids of the bench database's backends, for PostgreSQL's CPU. */
  backendPids: () => Promise<Set<string>>,
) {
  const byKey = new Map<string, Row>();
  for (const listed of list) {
    let scenario = listed;
    let rate: number | undefined;
    if (scenario.halfOf !== undefined) {
      const saturated = byKey.get(scenario.halfOf);
      if (!saturated) {
        continue;
      }
      rate = Math.max(1, Math.round(median(saturated.rate) / 2));
      scenario = {
        ...scenario,
        load: `${scenario.load}, ${whole(rate)} req/s`,
      };
    }
    const job = {
      url: server.url,
      prefix: scenario.prefix ?? '',
      endpoint: scenario.endpoint,
      pick: scenario.pick,
      range: scenario.range,
      connections: scenario.connections,
      rate,
    };
    const row: Row = {
      measurement: scenario.measurement,
      reference: scenario.reference,
      load: scenario.load,
      p50: [],
      p99: [],
      rate: [],
      unit: 'req/s',
      errors: 0,
      non2xx: 0,
      target:
        scenario.target === undefined
          ? undefined
          : { kind: 'floor', ratios: scenario.target },
      floorP99: [],
      floorRate: [],
      note: [],
    };
    rows.push(row);
    if (scenario.key !== undefined) {
      byKey.set(scenario.key, row);
    }
    let firstPass: LoadResult | undefined;
    if (options.warmup > 0) {
      await server.idle();
      // Every system once, then cycling on: badges are polled steadily, and
      // their figures are cached. The first pass may be slow (each figure
      // read from the history); it is timed, not measured.
      firstPass = await generator.run({
        ...job,
        rate: undefined,
        connections: options.connections,
        pick: 'cycle',
        amount: scenario.range,
        seconds: 0,
      });
      await generator.run({ ...job, pick: 'cycle', seconds: options.warmup });
    }
    let hits: number[] = [];
    const others: number[] = [];
    const stolen: number[] = [];
    let repeats = 0;
    for (let run = 0; run < options.runs; run++) {
      (globalThis as { gc?: () => void }).gc?.();
      await server.idle();
      const quiet = await waitForQuiet(options.quietWait);
      // A row judged against the floor gets a floor of its own, loaded
      // just before it: other work on a shared machine comes and goes
      // within minutes, and the first floor row would then judge a later
      // row by another machine. The floor is the same Express stack as the
      // route's, its OpenAPI validation included, answering a constant.
      const pairedFloor =
        row.target?.kind === 'floor'
          ? await generator.run({
              ...job,
              prefix: '',
              endpoint: 'validated-floor',
              seconds: options.seconds,
            })
          : undefined;
      await server.idle();
      const pidsBefore = await backendPids();
      const stop = await server.record();
      const span = startCpuSpan(pidsBefore);
      const load = await generator.run({ ...job, seconds: options.seconds });
      // The requests in flight when the load stopped are part of it.
      await server.idle();
      const sample = await stop();
      const cpu = span(await backendPids());
      const other =
        cpu.machineCores - sample.cpuCores - load.cpuCores - cpu.postgresCores;
      process.stdout.write(
        `  ${scenario.endpoint} ${scenario.load}: p50 ${ms(
          load.p50Ms,
        )} ms, p99 ${ms(load.p99Ms)} ms, ${whole(
          load.requestsPerSecond,
        )} req/s; other processes ${other.toFixed(
          2,
        )} cores, stolen ${cpu.stolenCores.toFixed(2)} cores${
          quiet ? '' : ' (machine was busy before)'
        }\n`,
      );
      // Other work took CPU from the bench: measure again, a few times.
      const busy = other + cpu.stolenCores > BUSY_CORES;
      if (busy && repeats < options.busyRepeats) {
        repeats += 1;
        run -= 1;
        continue;
      }
      if (busy) {
        busyRuns += 1;
      }
      row.p50.push(load.p50Ms);
      row.p99.push(load.p99Ms);
      row.rate.push(load.requestsPerSecond);
      if (pairedFloor) {
        row.floorP99.push(pairedFloor.p99Ms);
        row.floorRate.push(pairedFloor.requestsPerSecond);
      }
      row.errors += load.errors;
      row.non2xx += load.non2xx;
      hits.push(1 - sample.rollupReads / Math.max(1, sample.requests));
      others.push(other);
      stolen.push(cpu.stolenCores);
      if (run === options.runs - 1) {
        diagnoses.push({ scenario, load, server: sample, cpu });
      }
    }
    hits = hits.sort((a, b) => a - b);
    // What the route costs above express itself, on this machine in this
    // run: the same closed loop against the floor.
    const floor = byKey.get('floor');
    if (
      floor &&
      floor !== row &&
      row.target === undefined &&
      rate === undefined &&
      scenario.connections === options.connections
    ) {
      row.note.push(
        `p99 ${(median(row.p99) / median(floor.p99)).toFixed(2)}× the floor's`,
      );
    }
    if (row.floorP99.length > 0) {
      row.note.push(
        `the validated floor just before: p99 ${ms(
          median(row.floorP99),
        )} ms, ${whole(median(row.floorRate))} req/s`,
      );
    }
    row.note.push(
      scenario.endpoint === 'floor' || scenario.endpoint === 'validated-floor'
        ? 'no rollup read'
        : `rollups read from memory or cache ${(median(hits) * 100).toFixed(
            0,
          )}%`,
      `max ${ms(diagnoses[diagnoses.length - 1].load.maxMs)} ms`,
      ...(firstPass
        ? [
            `first pass over the ${whole(
              scenario.range,
            )} systems ${firstPass.seconds.toFixed(1)} s`,
          ]
        : []),
      `other processes ${median(others).toFixed(2)} cores`,
      `stolen ${median(stolen).toFixed(2)} cores`,
    );
  }
}

const WRITE_PATHS: Array<{ path: WritePath; label: string }> = [
  {
    path: 'claim + complete',
    label: 'runs stored: claimTicks + writeRuns',
  },
  {
    path: 'claim + complete + slice states',
    label: 'runs stored: claimTicks + writeRuns + createRunFollowUp',
  },
  {
    path: 'createTickClaims',
    label:
      'runs stored: createTickClaims (TickClaimer, complete() per run, coalesced) + follow-up',
  },
];

async function benchWrites(
  knex: Knex,
  fixture: Fixture,
  options: Options,
  rows: Row[],
) {
  const bench = new WriteBench(knex, fixture.slices, fixture.now);
  const byKey = new Map<string, Row>();
  for (const { path, label } of WRITE_PATHS) {
    for (const batch of options.batches) {
      const row: Row = {
        measurement: label,
        load: `batches of ${whole(batch)}, ${whole(options.writeRuns)} runs`,
        p50: [],
        p99: [],
        rate: [],
        unit: 'runs/s',
        errors: 0,
        non2xx: 0,
        floorP99: [],
        floorRate: [],
        target: { kind: 'rate ≥', value: TARGET_RUNS_PER_SECOND },
        note: ['p50/p99: ms per batch'],
      };
      rows.push(row);
      byKey.set(`${path}@${batch}`, row);
      for (let run = 0; run < options.runs; run++) {
        const m = await bench.measure(path, batch, options.writeRuns);
        row.p50.push(percentile(m.batchMs, 0.5));
        row.p99.push(percentile(m.batchMs, 0.99));
        row.rate.push(m.runs / (m.ms / 1000));
        process.stdout.write(
          `  ${path}, batches of ${batch}: ${whole(
            m.runs / (m.ms / 1000),
          )} runs/s\n`,
        );
      }
    }
  }
  if (options.naiveWriteRuns > 0) {
    const batch = Math.max(...options.batches);
    const row: Row = {
      measurement:
        'naive: claimTicks, then one UPDATE per run (10 at once, the pool)',
      load: `batches of ${whole(batch)}, ${whole(options.naiveWriteRuns)} runs`,
      p50: [],
      p99: [],
      rate: [],
      unit: 'runs/s',
      errors: 0,
      non2xx: 0,
      floorP99: [],
      floorRate: [],
      versus: byKey.get(`claim + complete@${batch}`),
      note: ['p50/p99: ms per batch'],
    };
    rows.push(row);
    for (let run = 0; run < options.runs; run++) {
      const m = await bench.measure('naive', batch, options.naiveWriteRuns);
      row.p50.push(percentile(m.batchMs, 0.5));
      row.p99.push(percentile(m.batchMs, 0.99));
      row.rate.push(m.runs / (m.ms / 1000));
      process.stdout.write(
        `  naive, batches of ${batch}: ${whole(
          m.runs / (m.ms / 1000),
        )} runs/s\n`,
      );
    }
  }
}

function printTable(header: string[], lines: string[][], numeric: number[]) {
  const all = [header, ...lines];
  const widths = header.map((_, column) =>
    Math.max(...all.map(line => line[column].length)),
  );
  const right = new Set(numeric);
  const render = (line: string[]) =>
    `| ${line
      .map((cell, column) =>
        right.has(column)
          ? cell.padStart(widths[column])
          : cell.padEnd(widths[column]),
      )
      .join(' | ')} |`;
  console.log(render(header));
  console.log(
    `|${widths
      .map((width, column) =>
        right.has(column) ? `${'-'.repeat(width + 1)}:` : '-'.repeat(width + 2),
      )
      .join('|')}|`,
  );
  for (const line of lines) {
    console.log(render(line));
  }
}

/** A row with a floor target against its floor's figures of the same run. */
function floorVerdict(row: Row) {
  if (row.target?.kind !== 'floor' || row.floorP99.length === 0) {
    return undefined;
  }
  return judgeAgainstFloor(
    { p99Ms: median(row.p99), requestsPerSecond: median(row.rate) },
    {
      p99Ms: median(row.floorP99),
      requestsPerSecond: median(row.floorRate),
    },
    row.target.ratios,
  );
}

function printResults(rows: Row[]) {
  const lines = rows.map(row => {
    const p50 = median(row.p50);
    const p99 = median(row.p99);
    const rate = median(row.rate);
    let target = '—';
    let result = '';
    if (row.target?.kind === 'floor') {
      target = describeFloorTarget(row.target.ratios);
      result = floorVerdict(row)?.text ?? 'no floor measured: —';
    } else if (row.target?.kind === 'rate ≥') {
      target = `≥ ${whole(row.target.value)} runs/s`;
      result = `${(rate / row.target.value).toFixed(2)}× ${
        rate >= row.target.value ? 'PASS' : 'MISS'
      }`;
    } else if (row.versus) {
      result = `${(rate / median(row.versus.rate)).toFixed(
        2,
      )}× the rate of ${row.versus.measurement.replace('runs stored: ', '')}, ${
        row.versus.load
      }`;
    } else {
      result = row.reference ?? 'no target (unloaded)';
    }
    return [
      row.measurement,
      row.load,
      ms(p50),
      ms(p99),
      `${whole(rate)} ${row.unit}`,
      row.unit === 'req/s' ? `${row.errors} · ${row.non2xx}` : '—',
      target,
      result,
      row.note.join('; '),
    ];
  });
  printTable(
    [
      'measurement',
      'load',
      'p50 ms',
      'p99 ms',
      'throughput',
      'errors · non-2xx',
      'target',
      'result',
      'notes',
    ],
    lines,
    [2, 3, 4],
  );
}

function printDiagnoses(diagnoses: Diagnosis[]) {
  const lines = diagnoses.map(({ scenario, load, server, cpu }) => {
    const requests = Math.max(1, server.requests);
    let statements = 0;
    let dbMs = 0;
    const parts: string[] = [];
    const byTotal = [...server.statements].sort(
      (a, b) =>
        b[1].reduce((x, y) => x + y, 0) - a[1].reduce((x, y) => x + y, 0),
    );
    for (const [name, times] of byTotal) {
      const total = times.reduce((x, y) => x + y, 0);
      statements += times.length;
      dbMs += total;
      parts.push(
        `${name} ${(times.length / requests).toFixed(2)}× ${ms(
          total / times.length,
        )}/${ms(percentile(times, 0.99))}`,
      );
    }
    const other =
      cpu.machineCores - server.cpuCores - load.cpuCores - cpu.postgresCores;
    const perRequest = (cores: number) =>
      (cores * server.seconds * 1000) / requests;
    const cost = [
      perRequest(server.cpuCores),
      perRequest(cpu.postgresCores),
      perRequest(load.cpuCores),
    ];
    const capacity = (cpus().length * 1000) / cost.reduce((a, b) => a + b, 0);
    return [
      `${scenario.endpoint}${
        {
          [WITHOUT_VALIDATOR]: ' without the validator',
          [WITHOUT_READ_MODEL]: ' reading the database',
        }[scenario.prefix ?? ''] ?? ''
      }, ${scenario.load}`,
      `${ms(percentile(server.requestMs, 0.5))} / ${ms(
        percentile(server.requestMs, 0.99),
      )}`,
      (statements / requests).toFixed(1),
      ms(dbMs / requests),
      `${server.poolUsed.toFixed(1)} / ${server.poolWaiting.toFixed(1)}`,
      ms(server.eventLoopP99Ms),
      [
        server.cpuCores,
        load.cpuCores,
        cpu.postgresCores,
        other,
        cpu.stolenCores,
        cpus().length - cpu.machineCores - cpu.stolenCores,
      ]
        .map(cores => cores.toFixed(2))
        .join(' · '),
      `${cost.map(value => value.toFixed(2)).join(' · ')} → ${whole(capacity)}`,
      parts.join('; '),
    ];
  });
  printTable(
    [
      'scenario',
      'server-side p50 / p99 ms',
      'SQL / req',
      'SQL ms / req',
      'pool busy / waiting',
      'event-loop p99 ms',
      'CPU cores: server · load gen · PostgreSQL · other · stolen · idle',
      "CPU ms / req: server · PostgreSQL · load gen → req/s the machine's cores allow",
      'per statement: count/req × mean/p99 ms on its connection',
    ],
    lines,
    [2, 3, 5],
  );
}

/** EXPLAIN (ANALYZE, BUFFERS) of the last statement of each name. */
async function explainStatements(
  knex: Knex,
  server: BenchServerProcess,
  names: readonly string[],
) {
  const client = knex.client as {
    acquireConnection(): Promise<{
      query(
        sql: string,
        values: unknown[],
      ): Promise<{ rows: Array<Record<string, string>> }>;
    }>;
    releaseConnection(connection: unknown): Promise<void>;
  };
  const connection = await client.acquireConnection();
  try {
    for (const name of names) {
      const statement = await server.lastStatement(name);
      if (!statement) continue;
      const { rows } = await connection.query(
        `EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`,
        statement.bindings,
      );
      const plan = rows.map(r => r['QUERY PLAN']);
      console.log(`\n${name}:`);
      for (const line of plan) {
        if (
          /Scan|Heap Fetches|Buffers|Execution Time|Aggregate|Nested Loop|Join/.test(
            line,
          )
        ) {
          console.log(`    ${line.trim().slice(0, 150)}`);
        }
      }
    }
  } finally {
    await client.releaseConnection(connection);
  }
}

async function postgresSettings(knex: Knex): Promise<string> {
  const show = async (name: string) =>
    Object.values((await knex.raw(`SHOW ${name}`)).rows[0])[0] as string;
  const pool = (knex.client as { pool: { max: number } }).pool;
  return `shared_buffers ${await show(
    'shared_buffers',
  )}, synchronous_commit ${await show(
    'synchronous_commit',
  )}, fsync ${await show('fsync')}; knex pool max ${pool.max}`;
}

/** How a knex instance connects, for another process (JSON). */
function connectionOf(knex: Knex): Knex.Config['connection'] {
  return (knex.client as { config: Knex.Config }).config.connection;
}

function loadAverage(): string {
  return loadavg()[0].toFixed(2);
}

async function main(args: string[]) {
  const options = parseOptions(args);
  const loadBefore = loadAverage();
  const db = await openPostgres(options.postgresUrl);
  if ('unreachable' in db) {
    if (options.requirePostgres) {
      throw new Error(`PostgreSQL is not reachable: ${db.unreachable}`);
    }
    console.log(
      `Note: read-path bench skipped, PostgreSQL not reachable: ${db.unreachable}`,
    );
    return;
  }
  const rows: Row[] = [];
  const diagnoses: Diagnosis[] = [];
  let fixture: Fixture;
  let settings: string;
  let seedSeconds: number;
  let generatorNote = '';
  let readModelInfo = { ms: NaN, systems: 0, slices: 0, heapBytes: NaN };
  try {
    settings = await postgresSettings(db.knex);
    console.log(`Seeding ${db.description}`);
    const seedStart = Date.now();
    fixture = await seedFixture(db.knex, {
      systems: options.systems,
      historySystems: options.historySystems,
      log: line => console.log(line),
    });
    seedSeconds = (Date.now() - seedStart) / 1000;
    console.log(`Seeded in ${seedSeconds.toFixed(1)} s`);

    if (options.only !== 'writes') {
      const backendPids = async () =>
        new Set<string>(
          (
            await db.knex.raw(
              'SELECT pid FROM pg_stat_activity WHERE datname = current_database()',
            )
          ).rows.map((row: { pid: number }) => String(row.pid)),
        );
      const cores = benchCores();
      const server = await BenchServerProcess.start(
        {
          connection: connectionOf(db.knex),
          systems: options.systems,
          now: fixture.now,
        },
        'why' in cores ? undefined : cores.server,
      );
      readModelInfo = server.readModel;
      const generator = LoadGenerator.start(
        'why' in cores ? undefined : cores.load,
      );
      generatorNote =
        'why' in cores
          ? `The server (pid ${server.pid}) and autocannon (pid ${generator.pid}) ran in processes of their own, unpinned (${cores.why})`
          : `The server (pid ${server.pid}) ran in a process of its own pinned to CPU ${cores.server}, autocannon (pid ${generator.pid}) in another pinned to CPU ${cores.load} (taskset); PostgreSQL and the bench process, which holds the fixture, unpinned`;
      try {
        console.log(`Loading ${server.url}`);
        await benchReads(
          server,
          generator,
          options,
          scenarios(options).filter(
            s => !options.endpoints || options.endpoints.includes(s.endpoint),
          ),
          rows,
          diagnoses,
          backendPids,
        );
        console.log(
          '\nPlans of the last statements (EXPLAIN ANALYZE, BUFFERS):',
        );
        await explainStatements(db.knex, server, [
          'readEnvironmentSlices',
          'readRollup',
          'hours: whole hours',
          'raw: runs in window',
        ]);
      } finally {
        await generator.stop();
        await server.close();
      }
    }
    if (options.only !== 'reads') {
      console.log('Writing runs');
      await benchWrites(db.knex, fixture, options, rows);
    }
  } finally {
    await db.close();
  }

  const slices = fixture.slices.length;
  console.log(
    `\nRead-path bench: ${whole(
      options.systems,
    )} systems x 3 environments x 2 checks = ${whole(slices)} slices, ${whole(
      fixture.historySystems,
    )} systems with 30 days of hourly aggregates; ` +
      `median of ${options.runs} run(s), ${options.seconds} s each after a ${options.warmup} s warm-up; ` +
      `Node ${process.version}, ${cpus().length} CPUs (${
        cpus()[0]?.model.trim() ?? 'unknown'
      })`,
  );
  console.log(
    `${db.description}; ${settings}; seeded in ${seedSeconds.toFixed(
      1,
    )} s (${fixture.steps
      .map(s => `${s.step.replace(/ \(.*$/, '')} ${(s.ms / 1000).toFixed(1)} s`)
      .join(', ')}); ${
      fixture.sizes
    }; load average ${loadBefore} before, ${loadAverage()} after\n`,
  );
  printResults(rows);
  console.log(
    `\nNotes: fake catalog (in-memory map, O(1) getEntityByRef returning the stored entity; the real one is an HTTP call to the catalog backend) ` +
      `and fake HttpAuthService (every request is a user, no token verified); no Backstage root router middleware (helmet, cors, compression, request logging); ` +
      `Backstage's error middleware is mounted. ${generatorNote}. Latency percentiles are exact, from autocannon's per-response times (open-loop rows: undici, from each request's due time). ` +
      `History reads use a fixed clock at half past the hour (aggregated_until on the hour): 719 whole hours, one prorated hour and 30 min of raw runs. ` +
      'Rollups read from memory or cache: 1 - (rollup reads that reached the database / requests). ' +
      `The read model (every system's rollup and slices with states, kept current from PostgreSQL's notifications) read ${whole(
        readModelInfo.systems,
      )} systems and ${whole(readModelInfo.slices)} slices in ${(
        readModelInfo.ms / 1000
      ).toFixed(1)} s on start and holds ${(
        readModelInfo.heapBytes /
        2 ** 20
      ).toFixed(0)} MiB of heap (${whole(
        readModelInfo.heapBytes / Math.max(1, readModelInfo.slices),
      )} bytes a slice).`,
  );
  if (busyRuns > 0) {
    console.log(
      `${busyRuns} measured load(s) kept although other processes and other virtual machines (stolen) took more than ${BUSY_CORES} cores during them, after ${options.busyRepeats} repeat(s) (see "other processes" and "stolen").`,
    );
  }
  if (diagnoses.length > 0) {
    console.log('\nWhere the time went (last run of each load):\n');
    printDiagnoses(diagnoses);
    console.log(
      '\nserver-side: from express receiving the request to the last byte written; SQL ms / req: sum of statement times on their connections ' +
        '(pool waits not included); pool: mean connections in use / callers waiting for one (max 10); CPU: cores used, from process.cpuUsage and /proc (PostgreSQL: the backends of the bench database only; other: every other process, such as other work on the machine or other databases of the same server; stolen: time the hypervisor gave the CPUs of this virtual machine to other machines, the steal of /proc/stat); req/s the cores allow: all CPUs divided by the CPU ms one request costs in server, PostgreSQL and load generator together, with nothing else running.',
    );
  }
  const missed = rows.filter(row => {
    if (row.target?.kind === 'floor') return floorVerdict(row)?.met === false;
    if (row.target?.kind === 'rate ≥') {
      return median(row.rate) < row.target.value;
    }
    return false;
  });
  if (missed.length > 0) {
    console.log(
      `\nTargets missed: ${missed
        .map(row => `${row.measurement} (${row.load})`)
        .join('; ')}`,
    );
  }
}

main(process.argv.slice(2)).catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exitCode = 1;
});
