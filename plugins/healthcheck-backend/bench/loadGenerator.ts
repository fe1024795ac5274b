/*
 * The load generator: autocannon (programmatic API) in a child process of
 * its own, so it shares neither the event loop nor the heap of the server it
 * measures, on a core of its own where the machine allows (see
 * pinnedProcess.ts); each result says how much CPU it used.
 *
 * Runs at a fixed rate use an open loop of their own on undici instead (see
 * runOpenLoop).
 *
 * The parent forks this file and sends one job at a time; the child answers
 * with the result.
 */
import type { ChildProcess } from 'node:child_process';
import { performance } from 'node:perf_hooks';
// A dev dependency on purpose: the bench is never part of the built plugin.
// eslint-disable-next-line @backstage/no-undeclared-imports
import autocannon from 'autocannon';
import { request as httpRequest } from 'node:http';
import { Pool } from 'undici';
import { forkOnCore } from './pinnedProcess';

/** The routes the bench loads. */
export const ENDPOINTS: readonly string[] = [
  'floor',
  'validated-floor',
  'rollup',
  'status-badge',
  'uptime-badge',
];
export type Endpoint =
  | 'rollup'
  | 'status-badge'
  | 'uptime-badge'
  | 'floor'
  | 'validated-floor';

/** Which system each request asks for, of systems 0 .. range-1. */
export type SystemPick = 'random' | 'cycle';

export interface LoadJob {
  url: string;
  /** Before the route's path: where the routers are mounted. */
  prefix: string;
  endpoint: Endpoint;
  pick: SystemPick;
  range: number;
  connections: number;
  seconds: number;
  /**
   * Requests per second offered, evenly spaced, over up to `connections`
   * connections (an open loop: each latency counts from the request's due
   * time, so waiting for a free connection counts too). Unset: autocannon's
   * closed loop, each connection sending as soon as it has its answer.
   */
  rate?: number;
  /**
   * Requests to send in all, closed loop, instead of running for `seconds`
   * (then ignored); with `pick: 'cycle'` and `range` of them, every system
   * once.
   */
  amount?: number;
  /**
   * Every request asks for this path (after `prefix`) instead of the
   * endpoint's: for a server other than the bench's, such as
   * blackbox_exporter's `/probe?module=...&target=...`.
   */
  path?: string;
  /**
   * Probe the URL itself instead of loading a server: each request on a
   * connection of its own, through Node's own HTTP client, its body read
   * and matched against this pattern, as a probe would. The floor of what
   * a prober written in Node pays per probe. Needs `rate`.
   */
  probeBodyPattern?: string;
}

export interface LoadResult {
  /** Responses received. */
  responses: number;
  seconds: number;
  requestsPerSecond: number;
  /** Exact percentiles of every response's time (autocannon's own histogram keeps whole ms). */
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Connection errors (timeouts included). */
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** CPU the load generator used, in cores. */
  cpuCores: number;
}

const CHILD_FLAG = '--vigil-load-generator';
/** Tags the child's answers among other IPC messages. */
const RESULT_KIND = 'vigil-load-result';

/** Where the bench server answers a constant, for the floor. */
export const FLOOR_PATH = '/floor';

/**
 * Where the bench server answers the same constant at the rollup read's
 * path behind the plugin's OpenAPI validation: the stack every route of
 * the API runs on, answering a constant.
 */
export const VALIDATED_FLOOR_PATH = '/validated-floor';

/** The path of a job's next request, for system `index`. */
function requestPath(job: LoadJob, index: number): string {
  return `${job.prefix}${job.path ?? pathOf(job.endpoint, index)}`;
}

/** The path of a request for system `index`. */
export function pathOf(endpoint: Endpoint, index: number): string {
  switch (endpoint) {
    case 'rollup':
      return `/v1/systems/default/system-${index}`;
    case 'status-badge':
      return `/v1/badges/systems/default/system-${index}`;
    case 'uptime-badge':
      return `/v1/badges/systems/default/system-${index}?kind=uptime&window=30d`;
    case 'floor':
      return `${FLOOR_PATH}/default/system-${index}`;
    case 'validated-floor':
      return `${VALIDATED_FLOOR_PATH}/v1/systems/default/system-${index}`;
    default:
      throw new Error(`Unknown endpoint ${endpoint}`);
  }
}

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) {
    return NaN;
  }
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)];
}

function summarize(
  latencies: readonly number[],
  seconds: number,
  counts: Pick<LoadResult, 'errors' | 'timeouts' | 'non2xx' | 'statusCodes'>,
  cpuCores: number,
): LoadResult {
  const sorted = Float64Array.from(latencies).sort();
  return {
    responses: latencies.length,
    seconds,
    requestsPerSecond: latencies.length / seconds,
    p50Ms: percentile(sorted, 0.5),
    p90Ms: percentile(sorted, 0.9),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1] : NaN,
    ...counts,
    cpuCores,
  };
}

/**
 * An open loop at `rate` for `seconds`: autocannon's own rate limit sends
 * each second's quota in a burst at the start of the second, which measures
 * bursts, not a rate. Here request i is due at start + i / rate; latency
 * counts from that due time. `send` makes one request and resolves to its
 * status code.
 */
async function runAtRate(
  seconds: number,
  rate: number,
  send: () => Promise<number>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  const counts = {
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    statusCodes: {} as Record<string, number>,
  };
  const inFlight = new Set<Promise<void>>();
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  const end = start + seconds * 1000;
  const intervalMs = 1000 / rate;
  for (let i = 0; ; i++) {
    const due = start + i * intervalMs;
    if (due >= end) {
      break;
    }
    const wait = due - performance.now();
    if (wait > 1) {
      await new Promise(resolve => setTimeout(resolve, wait));
    }
    const request = send()
      .then(status => {
        latencies.push(performance.now() - due);
        counts.statusCodes[status] = (counts.statusCodes[status] ?? 0) + 1;
        if (status < 200 || status > 299) {
          counts.non2xx += 1;
        }
      })
      .catch(() => {
        counts.errors += 1;
      })
      .finally(() => inFlight.delete(request));
    inFlight.add(request);
  }
  await Promise.all(inFlight);
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  return summarize(
    latencies,
    seconds,
    counts,
    (cpu.user + cpu.system) / 1000 / wall,
  );
}

/** A load at `rate` over a pool of up to `job.connections` connections. */
async function runOpenLoop(job: LoadJob, rate: number): Promise<LoadResult> {
  let next = 0;
  const choose =
    job.pick === 'cycle'
      ? () => next++ % job.range
      : () => Math.floor(Math.random() * job.range);
  const pool = new Pool(job.url, {
    connections: job.connections,
    pipelining: 1,
  });
  try {
    return await runAtRate(job.seconds, rate, async () => {
      const response = await pool.request({
        method: 'GET',
        path: requestPath(job, choose()),
      });
      await response.body.dump();
      return response.statusCode;
    });
  } finally {
    await pool.close();
  }
}

/**
 * A GET on a connection of its own (`agent: false`), the body read whole
 * and matched: what a probe does, with nothing around it. Resolves to the
 * status code, or 0 when the body did not match.
 */
function probeOnce(url: string, bodyPattern: RegExp): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, { agent: false }, response => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve(
          bodyPattern.test(Buffer.concat(chunks).toString('utf8'))
            ? response.statusCode ?? 0
            : 0,
        ),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

async function runJob(job: LoadJob): Promise<LoadResult> {
  if (job.probeBodyPattern !== undefined) {
    if (job.rate === undefined) {
      throw new Error('A probing job needs a rate');
    }
    const url = `${job.url}${job.prefix}${job.path ?? ''}`;
    const pattern = new RegExp(job.probeBodyPattern);
    return runAtRate(job.seconds, job.rate, () => probeOnce(url, pattern));
  }
  if (job.rate !== undefined) {
    return runOpenLoop(job, job.rate);
  }
  let next = 0;
  const choose =
    job.pick === 'cycle'
      ? () => next++ % job.range
      : () => Math.floor(Math.random() * job.range);
  const latencies: number[] = [];
  const statusCodes: Record<string, number> = {};
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  let lastResponseAt = start;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: job.url,
        connections: job.connections,
        ...(job.amount === undefined
          ? { duration: job.seconds }
          : { amount: job.amount }),
        timeout: 10,
        requests: [
          {
            method: 'GET',
            setupRequest: request => ({
              ...request,
              path: requestPath(job, choose()),
            }),
          },
        ],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      lastResponseAt = performance.now();
      statusCodes[statusCode] = (statusCodes[statusCode] ?? 0) + 1;
    });
  });
  const wall = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  return summarize(
    latencies,
    // After `amount`, autocannon stops on its next one-second tick.
    job.amount === undefined
      ? result.duration
      : (lastResponseAt - start) / 1000,
    {
      errors: result.errors,
      timeouts: result.timeouts,
      non2xx: result.non2xx,
      statusCodes,
    },
    (cpu.user + cpu.system) / 1000 / wall,
  );
}

/** A forked load generator; `run` sends it one job at a time. */
export class LoadGenerator {
  readonly #child: ChildProcess;
  /** The job waiting for its result; one at a time. */
  #pending?: {
    resolve: (result: LoadResult) => void;
    reject: (error: Error) => void;
  };

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on(
      'message',
      (message: { kind?: string; result?: LoadResult; error?: string }) => {
        // The TypeScript transform sends messages of its own ('watch').
        if (message?.kind !== RESULT_KIND || !this.#pending) {
          return;
        }
        const { resolve, reject } = this.#pending;
        this.#pending = undefined;
        if (message.error !== undefined) {
          reject(new Error(`Load generator: ${message.error}`));
        } else {
          resolve(message.result!);
        }
      },
    );
    child.on('exit', code => {
      this.#pending?.reject(
        new Error(`Load generator exited (${code}) during a job`),
      );
      this.#pending = undefined;
    });
  }

  /** Forks the load generator, pinned to `core` when given. */
  static start(core?: number): LoadGenerator {
    return new LoadGenerator(forkOnCore(__filename, [CHILD_FLAG], core));
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  run(job: LoadJob): Promise<LoadResult> {
    if (this.#pending) {
      return Promise.reject(new Error('The load generator is busy'));
    }
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      this.#child.send(job);
    });
  }

  /** Ends the child (this one process, by its handle). */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) {
      return;
    }
    const exited = new Promise<void>(resolve =>
      this.#child.once('exit', () => resolve()),
    );
    this.#child.disconnect();
    const timer = setTimeout(() => this.#child.kill(), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

// The child: answers jobs until the parent disconnects.
if (process.argv.includes(CHILD_FLAG) && process.send) {
  process.on('message', (job: LoadJob) => {
    runJob(job).then(
      result => process.send!({ kind: RESULT_KIND, result }),
      error =>
        process.send!({
          kind: RESULT_KIND,
          error: String(error?.stack ?? error),
        }),
    );
  });
  process.on('disconnect', () => process.exit(0));
}
