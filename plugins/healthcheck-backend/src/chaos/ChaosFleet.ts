import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync } from 'node:fs';
import path from 'node:path';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import type { ChaosInstanceOptions } from './chaosInstanceProcess';

const INSTANCE_PROCESS = resolvePackagePath(
  '@vigil/plugin-healthcheck-backend',
  'src/chaos/chaosInstanceProcess.ts',
);
/** A backend starts in about 5 s on an idle machine; CI machines are not idle. */
const READY_TIMEOUT_MS = 90_000;
/** A clean stop waits for probes in flight; after this it is a kill. */
const STOP_TIMEOUT_MS = 20_000;

/** One running backend instance. @internal */
export interface ChaosInstance {
  readonly name: string;
  readonly pid: number;
  /** Its HTTP port on 127.0.0.1. */
  readonly port: number;
  readonly child: ChildProcess;
}

/**
 * The chaos suite's backend instances: each a process of its own started
 * as the multi-instance test starts them (node with Backstage's transform),
 * its stderr in a log file of its own. Knows every pid any instance had, so
 * that a probe of an instance since restarted is still attributed.
 * @internal
 */
export class ChaosFleet {
  readonly #running = new Map<string, ChaosInstance>();
  readonly #nameOfPid = new Map<number, string>();
  readonly #logDir: string;
  readonly #optionsOf: (
    name: string,
    first: boolean,
  ) => Omit<ChaosInstanceOptions, 'name'>;
  #started = 0;

  constructor(options: {
    logDir: string;
    /** What an instance is told; `first` is the fleet's first start. */
    optionsOf: (
      name: string,
      first: boolean,
    ) => Omit<ChaosInstanceOptions, 'name'>;
  }) {
    this.#logDir = options.logDir;
    this.#optionsOf = options.optionsOf;
  }

  /** Every pid an instance has had, with the instance's name. */
  pidNames(): ReadonlyMap<number, string> {
    return this.#nameOfPid;
  }

  running(): ChaosInstance[] {
    return [...this.#running.values()];
  }

  instance(name: string): ChaosInstance {
    const instance = this.#running.get(name);
    if (!instance) {
      throw new Error(`No instance ${name} is running`);
    }
    return instance;
  }

  /** Starts an instance and resolves once it serves. */
  async start(name: string): Promise<ChaosInstance> {
    const first = this.#started++ === 0;
    const options: ChaosInstanceOptions = {
      name,
      ...this.#optionsOf(name, first),
    };
    const child = spawn(
      process.execPath,
      [
        // For collectGarbage.
        '--expose-gc',
        '--require',
        require.resolve('@backstage/cli/config/nodeTransform.cjs'),
        INSTANCE_PROCESS,
        JSON.stringify(options),
      ],
      // stdin is the instance's lifeline: it exits when the suite does.
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const pid = child.pid!;
    this.#nameOfPid.set(pid, name);
    child.stderr!.pipe(
      createWriteStream(path.join(this.#logDir, `${name}-${pid}.log`)),
    );
    const port = await readyPort(child, name);
    const instance = { name, pid, port, child };
    this.#running.set(name, instance);
    child.once('exit', () => {
      if (this.#running.get(name) === instance) {
        this.#running.delete(name);
      }
    });
    return instance;
  }

  /** SIGTERM: the backend stops cleanly (its shutdown hooks run). */
  async stop(name: string): Promise<void> {
    const { child } = this.instance(name);
    const exited = exitOf(child);
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
  }

  /** SIGKILL: the instance dies with whatever it had in flight. */
  async kill(name: string): Promise<void> {
    const { child } = this.instance(name);
    const exited = exitOf(child);
    child.kill('SIGKILL');
    await exited;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.running().map(({ name }) => this.stop(name)));
  }

  /** SIGKILLs whatever still runs; for a suite that is itself dying. */
  killAllNow(): void {
    for (const { child } of this.running()) {
      child.kill('SIGKILL');
    }
  }

  /** Asks every running instance to collect its garbage now (SIGUSR2). */
  collectGarbage(): void {
    for (const { child } of this.running()) {
      child.kill('SIGUSR2');
    }
  }

  /** Resident memory of a running instance, in KiB (Linux). */
  rssKiB(name: string): number {
    const status = readFileSync(`/proc/${this.instance(name).pid}/status`, {
      encoding: 'utf8',
    });
    const match = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    if (!match) {
      throw new Error(`No VmRSS in /proc/${this.instance(name).pid}/status`);
    }
    return Number(match[1]);
  }
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise(resolve => child.once('exit', () => resolve()));
}

/**
 * Reads the child's stdout until it says `ready <port>`, and keeps reading
 * (and dropping) it after, so that the pipe never fills.
 */
function readyPort(child: ChildProcess, name: string): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), READY_TIMEOUT_MS);
    const onExit = () => {
      clearTimeout(timer);
      reject(
        new Error(
          `Instance ${name} exited before it was ready (exit ${child.exitCode}, signal ${child.signalCode}); see its log`,
        ),
      );
    };
    const onData = (chunk: Buffer) => {
      output += String(chunk);
      const match = /ready (\d+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        child.off('exit', onExit);
        resolve(Number(match[1]));
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
  });
}
