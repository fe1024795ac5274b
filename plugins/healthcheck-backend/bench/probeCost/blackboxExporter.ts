/*
 * Prometheus' blackbox_exporter, the baseline of the probe-cost bench: the
 * Debian package's binary (installed with apt-get when missing), started on
 * a loopback port with one module that judges a probe as the bench's Vigil
 * check does: status 200 and a body that says the target is up.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const PACKAGE = 'prometheus-blackbox-exporter';
const BINARY = '/usr/bin/prometheus-blackbox-exporter';
/** The exporter answers its first request within a second of starting. */
const READY_TIMEOUT_MS = 15_000;

/** The module the bench drives: what the Vigil check's conditions say. */
export const BLACKBOX_MODULE = 'http_json_up';

/**
 * The exporter's configuration, as JSON (a YAML file may be JSON): an http
 * prober that passes on status 200 and a body matching `"status":"UP"`,
 * over IPv4 as the Vigil check's target is an IPv4 literal.
 */
export function blackboxConfig(bodyPattern: string): string {
  return JSON.stringify(
    {
      modules: {
        [BLACKBOX_MODULE]: {
          prober: 'http',
          timeout: '5s',
          http: {
            valid_status_codes: [200],
            fail_if_body_not_matches_regexp: [bodyPattern],
            preferred_ip_protocol: 'ip4',
            ip_protocol_fallback: false,
          },
        },
      },
    },
    null,
    2,
  );
}

/** The exporter's binary, installed from Debian's archive if it is missing. */
export function ensureBlackboxExporter(log: (line: string) => void): string {
  if (existsSync(BINARY)) {
    return BINARY;
  }
  log(`${PACKAGE} is missing: apt-get install -y ${PACKAGE}`);
  try {
    execFileSync('apt-get', ['install', '-y', PACKAGE], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  } catch (error) {
    throw new Error(
      `Could not install ${PACKAGE} with apt-get (${
        (error as Error).message
      }); install it yourself and run the bench again`,
    );
  }
  if (!existsSync(BINARY)) {
    throw new Error(`${PACKAGE} is installed but ${BINARY} is not there`);
  }
  return BINARY;
}

/** A free TCP port on 127.0.0.1, for a process that takes its port as a flag. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>(resolve => server.close(() => resolve()));
  return port;
}

/** One running exporter, in a process of its own. */
export class BlackboxExporter {
  readonly port: number;
  readonly #child: ChildProcess;
  readonly #dir: string;

  static async start(options: {
    binary: string;
    bodyPattern: string;
  }): Promise<BlackboxExporter> {
    const dir = mkdtempSync(path.join(tmpdir(), 'vigil-blackbox-'));
    const configFile = path.join(dir, 'blackbox.yml');
    writeFileSync(configFile, blackboxConfig(options.bodyPattern));
    const port = await freePort();
    const child = spawn(
      options.binary,
      [
        `--config.file=${configFile}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    const exporter = new BlackboxExporter(port, child, dir);
    await exporter.#ready();
    return exporter;
  }

  private constructor(port: number, child: ChildProcess, dir: string) {
    this.port = port;
    this.#child = child;
    this.#dir = dir;
  }

  get pid(): number {
    return this.#child.pid!;
  }

  /** The path (and query) of a probe of `target` with the bench's module. */
  probePath(target: string): string {
    return `/probe?module=${BLACKBOX_MODULE}&target=${encodeURIComponent(
      target,
    )}`;
  }

  /** One probe, to check that the module passes against the target. */
  async probeOnce(target: string): Promise<boolean> {
    const response = await fetch(
      `http://127.0.0.1:${this.port}${this.probePath(target)}`,
    );
    return /^probe_success 1$/m.test(await response.text());
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) {
      const exited = new Promise(resolve => this.#child.once('exit', resolve));
      this.#child.kill('SIGTERM');
      await exited;
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }

  async #ready(): Promise<void> {
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (this.#child.exitCode !== null) {
        throw new Error(
          `blackbox_exporter exited (${this.#child.exitCode}) on start`,
        );
      }
      try {
        const response = await fetch(`http://127.0.0.1:${this.port}/-/healthy`);
        if (response.ok) {
          return;
        }
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) {
        this.#child.kill('SIGKILL');
        throw new Error(
          `blackbox_exporter did not answer within ${
            READY_TIMEOUT_MS / 1000
          } s`,
        );
      }
      await sleep(100);
    }
  }
}
