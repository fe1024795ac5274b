/*
 * The bulkhead scale harness: the seed's table reproduced on this machine
 * with the real scheduler, bulkhead, runner and `http` probe against
 * loopback servers, bulkhead off and on.
 *
 *   node --require @backstage/cli/config/nodeTransform.cjs \
 *     bench/admission/runBulkheadHarness.ts \
 *     [--only seed|outage] [--serial] [--time-scale F]
 *
 * 1. seed: 240 checks, interval 8 s, 20% behind a server that accepts
 *    connections and never answers, concurrency 10, timeout 5 s, 35 s.
 * 2. outage: the same 240 checks; the 48 are healthy for 60 s, then their
 *    server stops answering, for 120 s more. Slot time of the last 60 s.
 *
 * Each mode runs in a child process of its own, off and on side by side
 * (`--serial`: one after the other, ~7 min instead of ~4). Every child is
 * killed if it overruns its scenario by a minute. `--time-scale 0.2` runs
 * everything five times faster, to see that the harness works; its figures
 * say nothing about the targets.
 */
import { fork } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import {
  type HarnessMode,
  type ModeMeasurements,
  runScenario,
  SCENARIOS,
  scaleScenario,
  type ScenarioName,
} from './bulkheadHarness';
import { outageReport, seedReport } from './harnessReport';
import { BenchArgsError, readBenchArgs, type BenchCommand } from '../benchArgs';

const CHILD_FLAG = '--child';
const OVERRUN_MS = 60_000;

function write(text: string): void {
  process.stdout.write(`${text}\n`);
}

const COMMAND: BenchCommand = {
  command: 'yarn harness:bulkhead',
  flags: {
    only: { value: 'seed|outage' },
    serial: {},
    'time-scale': { value: 'F' },
  },
};

interface HarnessOptions {
  names: ScenarioName[];
  timeScale: number;
  serial: boolean;
}

function parseOptions(argv: readonly string[]): HarnessOptions {
  return readBenchArgs(argv, COMMAND, args => {
    const only = args.oneOf('only', ['seed', 'outage'] as const);
    const timeScale = args.number('time-scale', 1, { above: 0 });
    if (timeScale > 1) {
      throw new BenchArgsError(
        `--time-scale wants a number above 0 up to 1, not ${timeScale}`,
      );
    }
    return {
      names: only ? [only] : ['seed', 'outage'],
      timeScale,
      serial: args.has('serial'),
    };
  });
}

/** Runs one mode of one scenario in a child process and returns what it measured. */
function runInChild(
  name: ScenarioName,
  mode: HarnessMode,
  timeScale: number,
): Promise<ModeMeasurements> {
  const scenario = scaleScenario(SCENARIOS[name], timeScale);
  return new Promise((resolve, reject) => {
    const child = fork(
      process.argv[1],
      [CHILD_FLAG, name, mode, String(timeScale)],
      {
        execArgv: process.execArgv,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      },
    );
    let result: ModeMeasurements | undefined;
    const killer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `${name}/${mode} overran ${scenario.durationMs + OVERRUN_MS} ms`,
        ),
      );
    }, scenario.durationMs + OVERRUN_MS);
    child.on('message', message => {
      result = message as ModeMeasurements;
    });
    child.on('error', error => {
      clearTimeout(killer);
      reject(error);
    });
    child.on('exit', code => {
      clearTimeout(killer);
      if (result) {
        resolve(result);
      } else {
        reject(new Error(`${name}/${mode} exited with ${code} and no result`));
      }
    });
  });
}

async function runBothModes(
  name: ScenarioName,
  timeScale: number,
  serial: boolean,
): Promise<[ModeMeasurements, ModeMeasurements]> {
  if (serial) {
    const off = await runInChild(name, 'off', timeScale);
    const on = await runInChild(name, 'on', timeScale);
    return [off, on];
  }
  const [off, on] = await Promise.all([
    runInChild(name, 'off', timeScale),
    runInChild(name, 'on', timeScale),
  ]);
  return [off, on];
}

async function runAsParent(argv: readonly string[]): Promise<void> {
  const { names, timeScale, serial } = parseOptions(argv);

  write(
    `Bulkhead scale harness: node ${process.version}, ${cpus().length} x ${
      cpus()[0]?.model ?? 'cpu'
    }, load ${loadavg()
      .map(l => l.toFixed(2))
      .join(' ')}, modes ${serial ? 'one after the other' : 'side by side'}`,
  );
  if (timeScale !== 1) {
    write(
      `TIME SCALE ${timeScale}: every time shortened; the figures are not comparable with the targets`,
    );
  }

  for (const name of names) {
    const scenario = scaleScenario(SCENARIOS[name], timeScale);
    const [off, on] = await runBothModes(name, timeScale, serial);
    write('');
    if (name === 'seed') {
      write(
        `1. ${scenario.checks} checks, interval ${
          scenario.intervalMs / 1000
        } s, ` +
          `${
            100 / scenario.failingEvery
          }% behind a server that never answers, ` +
          `concurrency ${scenario.concurrency}, timeout ${
            scenario.timeoutMs / 1000
          } s, ` +
          `lane ${scenario.laneCapacity}, ${
            scenario.durationMs / 1000
          } s, cold start`,
      );
      write('');
      write(seedReport(scenario, off, on));
    } else {
      write(
        `2. ${scenario.checks} checks; ${
          scenario.checks / scenario.failingEvery
        } healthy for ` +
          `${
            scenario.failingFromMs / 1000
          } s, then their server stops answering, for ` +
          `${
            (scenario.durationMs - scenario.failingFromMs) / 1000
          } s more; window ` +
          `${scenario.windowMs[0] / 1000}-${scenario.windowMs[1] / 1000} s`,
      );
      write('');
      write(outageReport(scenario, off, on));
    }
  }
}

async function runAsChild(args: readonly string[]): Promise<void> {
  const [name, mode, timeScale] = args.slice(args.indexOf(CHILD_FLAG) + 1);
  const scenario = scaleScenario(
    SCENARIOS[name as ScenarioName],
    Number(timeScale),
  );
  const result = await runScenario(scenario, mode as HarnessMode);
  await new Promise<void>((resolve, reject) =>
    process.send!(result, error => (error ? reject(error) : resolve())),
  );
}

const args = process.argv.slice(2);
(args.includes(CHILD_FLAG) ? runAsChild(args) : runAsParent(args))
  .then(() => {
    // Sockets of probes aborted at the end may linger: do not wait for them.
    process.exit(0);
  })
  .catch(error => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exit(1);
  });
