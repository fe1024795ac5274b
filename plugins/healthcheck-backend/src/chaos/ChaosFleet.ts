import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import type {
  ChaosInstanceOptions,
  MemoryReport,
} from './chaosInstanceProcess';
import { TRANSITION_LINE } from './chaosRootLogger';
import {
  REFUSAL_CONTROL_PATH,
  type RefusalState,
} from './notificationsRefusal';

const INSTANCE_PROCESS = resolvePackagePath(
  '@vigil/plugin-healthcheck-backend',
  'src/chaos/chaosInstanceProcess.ts',
);
/** Longer options go through a file: one argument may hold 128 KiB. */
const MAX_INLINE_OPTIONS_LENGTH = 64 * 1024;
/** A backend starts in about 5 s on an idle machine; CI machines are not idle. */
const READY_TIMEOUT_MS = 90_000;
/** A clean stop waits for probes in flight; after this it is a kill. */
const STOP_TIMEOUT_MS = 20_000;
/** A full collection of a backend's heap takes well under a second. */
const MEMORY_REPORT_TIMEOUT_MS = 10_000;

/** How a clean stop went: a stop that did not end in time was a kill. @internal */
export interface StopOutcome {
  tookMs: number;
  killed: boolean;
}

/** A transition an instance logged once it stored it. @internal */
export interface LoggedTransition {
  instance: string;
  /** The process: an instance started again has another. */
  pid: number;
  /** `system:default/alpha in production: healthy -> unhealthy` */
  message: string;
  /** When the suite read the line. */
  at: number;
}

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
 * its stderr in a log file of its own, its stdout the lines it tells the
 * suite (`ready <port>`, `memory <json>`). Knows every pid any instance
 * had, so that a probe of an instance since restarted is still attributed.
 * @internal
 */
export class ChaosFleet {
  readonly #running = new Map<string, ChaosInstance>();
  readonly #nameOfPid = new Map<number, string>();
  /** Who waits for each instance's next memory report, by pid. */
  readonly #memoryWaiters = new Map<number, Array<(r: MemoryReport) => void>>();
  /** Who waits for a transition line, from any instance. */
  readonly #transitionWaiters = new Set<(t: LoggedTransition) => void>();
  /** Every transition line read, in order. */
  readonly #transitions: LoggedTransition[] = [];
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
        // For the full collection before each memory report.
        '--expose-gc',
        // Node's own flags for every instance, to profile one
        // (`--cpu-prof --cpu-prof-dir=...`) in the chaos suite or a bench.
        ...(process.env.VIGIL_INSTANCE_NODE_ARGS ?? '')
          .split(' ')
          .filter(Boolean),
        '--require',
        require.resolve('@backstage/cli/config/nodeTransform.cjs'),
        INSTANCE_PROCESS,
        this.#optionsArgument(options),
      ],
      // stdin is the instance's lifeline: it exits when the suite does.
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const pid = child.pid!;
    this.#nameOfPid.set(pid, name);
    this.#memoryWaiters.set(pid, []);
    child.stderr!.pipe(
      createWriteStream(path.join(this.#logDir, `${name}-${pid}.log`)),
    );
    const port = await this.#listen(child, name);
    const instance = { name, pid, port, child };
    this.#running.set(name, instance);
    child.once('exit', () => {
      if (this.#running.get(name) === instance) {
        this.#running.delete(name);
      }
    });
    return instance;
  }

  /**
   * The options as JSON, or `@<file>` holding them when they are too long
   * for one argument (Linux takes 128 KiB): a catalog of a thousand systems.
   */
  #optionsArgument(options: ChaosInstanceOptions): string {
    const json = JSON.stringify(options);
    if (json.length <= MAX_INLINE_OPTIONS_LENGTH) {
      return json;
    }
    const file = path.join(this.#logDir, `${options.name}-options.json`);
    writeFileSync(file, json);
    return `@${file}`;
  }

  /** SIGTERM: the backend stops cleanly (its shutdown hooks run). */
  async stop(name: string): Promise<StopOutcome> {
    const { child } = this.instance(name);
    const exited = exitOf(child);
    const startedAt = Date.now();
    let killed = false;
    child.kill('SIGTERM');
    const timer = setTimeout(() => {
      killed = true;
      child.kill('SIGKILL');
    }, STOP_TIMEOUT_MS);
    await exited;
    clearTimeout(timer);
    return { tookMs: Date.now() - startedAt, killed };
  }

  /** Every transition the instances logged, in the order the suite read them. */
  transitions(): readonly LoggedTransition[] {
    return this.#transitions;
  }

  /**
   * The next transition logged whose message `matches`, from whichever
   * instance stores it; rejects after `timeoutMs`. Ask before making the
   * change that causes it.
   */
  nextTransition(
    matches: (message: string) => boolean,
    timeoutMs: number,
  ): Promise<LoggedTransition> {
    return new Promise((resolve, reject) => {
      const waiters = this.#transitionWaiters;
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(
          new Error(
            `No instance logged the transition looked for within ${
              timeoutMs / 1000
            } s`,
          ),
        );
      }, timeoutMs);
      function waiter(transition: LoggedTransition) {
        if (matches(transition.message)) {
          clearTimeout(timer);
          waiters.delete(waiter);
          resolve(transition);
        }
      }
      waiters.add(waiter);
    });
  }

  /**
   * Makes the instance's notifications backend answer 503 to everything
   * (`refusing`), or serve again; says how many requests it refused since
   * it began refusing.
   */
  async refuseNotifications(
    name: string,
    refusing: boolean,
  ): Promise<RefusalState> {
    const { port } = this.instance(name);
    const response = await fetch(
      `http://127.0.0.1:${port}${REFUSAL_CONTROL_PATH}/${
        refusing ? 'refuse' : 'accept'
      }`,
      { method: 'POST' },
    );
    if (!response.ok) {
      throw new Error(
        `${name} answered ${response.status} when told to ${
          refusing ? 'refuse' : 'accept'
        } notifications`,
      );
    }
    return (await response.json()) as RefusalState;
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

  /**
   * Each running instance's memory right after a full collection of its
   * heap (SIGUSR2 asks; it answers on stdout).
   */
  async measureMemory(): Promise<Map<string, MemoryReport>> {
    return new Map(
      await Promise.all(
        this.running().map(
          async instance =>
            [instance.name, await this.#memoryOf(instance)] as const,
        ),
      ),
    );
  }

  /**
   * Each running instance's resident memory as it is, in KiB, read from
   * /proc: no collection, so the instances are not paused while their
   * ticks are being judged.
   */
  residentKiB(): Map<string, number> {
    const resident = new Map<string, number>();
    for (const { name, pid } of this.running()) {
      try {
        const status = readFileSync(`/proc/${pid}/status`, 'utf8');
        const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
        if (kib) {
          resident.set(name, Number(kib));
        }
      } catch {
        // It exited meanwhile: no sample.
      }
    }
    return resident;
  }

  #memoryOf(instance: ChaosInstance): Promise<MemoryReport> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          reject(
            new Error(
              `${instance.name} did not report its memory within ${
                MEMORY_REPORT_TIMEOUT_MS / 1000
              } s`,
            ),
          ),
        MEMORY_REPORT_TIMEOUT_MS,
      );
      this.#memoryWaiters.get(instance.pid)!.push(report => {
        clearTimeout(timer);
        resolve(report);
      });
      instance.child.kill('SIGUSR2');
    });
  }

  /**
   * Reads the child's stdout by lines, for as long as it runs (so that the
   * pipe never fills): resolves with the port of `ready <port>`, then hands
   * each `memory <json>` and each transition to whoever waits for one.
   */
  #listen(child: ChildProcess, name: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => child.kill('SIGKILL'), READY_TIMEOUT_MS);
      const onExit = () => {
        clearTimeout(timer);
        reject(
          new Error(
            `Instance ${name} exited before it was ready (exit ${child.exitCode}, signal ${child.signalCode}); see its log`,
          ),
        );
      };
      child.once('exit', onExit);
      createInterface({ input: child.stdout! }).on('line', line => {
        const [word, rest] = [
          line.split(' ', 1)[0],
          line.slice(line.indexOf(' ') + 1),
        ];
        if (word === 'ready') {
          clearTimeout(timer);
          child.off('exit', onExit);
          resolve(Number(rest));
        } else if (word === 'memory') {
          this.#memoryWaiters.get(child.pid!)?.shift()?.(JSON.parse(rest));
        } else if (word === TRANSITION_LINE) {
          const transition = {
            instance: name,
            pid: child.pid!,
            message: rest,
            at: Date.now(),
          };
          this.#transitions.push(transition);
          for (const waiter of [...this.#transitionWaiters]) {
            waiter(transition);
          }
        }
      });
    });
  }
}

function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve();
  }
  return new Promise(resolve => child.once('exit', () => resolve()));
}
