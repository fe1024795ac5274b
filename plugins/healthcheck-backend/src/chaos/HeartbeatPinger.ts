import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosInstance } from './ChaosFleet';
import type { ChaosApi } from './chaosScenarios';
import type { PingAnswer } from './heartbeatFigures';

/** Answers kept at most: hours of a few slices pinged every second. */
const MAX_ANSWERS = 100_000;

/** How long a ping may take before the pinger records it as failed. */
const PING_TIMEOUT_MS = 10_000;

/** The request that makes a heartbeat check of the systems through the API. @internal */
export function heartbeatCheckRequest(
  id: string,
  systems: string[],
  timing: { period: string; grace: string },
) {
  return { id, spec: { type: 'heartbeat', ...timing, systems } };
}

/**
 * A job behind a load balancer: pings each slice of a heartbeat check every
 * `everyMs`, each ping to the next running instance in turn, as `curl -m
 * 10` would (no retry: a refused ping is recorded as refused).
 * @internal
 */
export class HeartbeatPinger {
  readonly #answers: PingAnswer[] = [];
  #running = true;
  #loop: Promise<void> = Promise.resolve();

  /**
   * Makes the check's ping URLs (waiting for its slices to run) and starts
   * pinging them.
   */
  static async start(options: {
    api: ChaosApi;
    instances: () => ChaosInstance[];
    checkId: string;
    everyMs: number;
  }): Promise<HeartbeatPinger> {
    const tokens = await issueTokens(options);
    const pinger = new HeartbeatPinger();
    pinger.#loop = pinger.#pingEvery(
      options.instances,
      tokens,
      options.everyMs,
    );
    return pinger;
  }

  /** What each ping was answered, in the order they were sent. */
  get answers(): readonly PingAnswer[] {
    return this.#answers;
  }

  async stop(): Promise<void> {
    this.#running = false;
    await this.#loop;
  }

  async #pingEvery(
    instances: () => ChaosInstance[],
    tokens: Array<{ environment: string; token: string }>,
    everyMs: number,
  ): Promise<void> {
    for (let round = 0; this.#running; round++) {
      const started = Date.now();
      const running = instances();
      await Promise.all(
        tokens.map(({ environment, token }, i) =>
          this.#ping(
            running[(round * tokens.length + i) % running.length],
            token,
            environment,
            started,
          ),
        ),
      );
      await sleep(Math.max(0, started + everyMs - Date.now()));
    }
  }

  async #ping(
    instance: ChaosInstance,
    token: string,
    environment: string,
    at: number,
  ): Promise<void> {
    const status = await ping(instance, token);
    this.#answers.push({ at, environment, instance: instance.name, status });
    if (this.#answers.length > MAX_ANSWERS) {
      this.#answers.shift();
    }
  }
}

/** The status a ping was answered with; 0 when it had no answer. */
async function ping(instance: ChaosInstance, token: string): Promise<number> {
  try {
    const response = await fetch(
      `http://127.0.0.1:${instance.port}/api/healthcheck/v1/ping/${token}`,
      { method: 'POST', signal: AbortSignal.timeout(PING_TIMEOUT_MS) },
    );
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

/** The ping URLs of every slice of the check, once its slices run. */
async function issueTokens(options: {
  api: ChaosApi;
  instances: () => ChaosInstance[];
  checkId: string;
}): Promise<Array<{ environment: string; token: string }>> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const issued = await options.api.request(
      options.instances()[0],
      'POST',
      `/checks/${encodeURIComponent(options.checkId)}/heartbeat/tokens`,
    );
    if (issued.status === 201) {
      return issued.body.items.map(
        (item: { environment: string; token: string }) => ({
          environment: item.environment,
          token: item.token,
        }),
      );
    }
    if (Date.now() > deadline) {
      throw new Error(
        `No ping URLs for ${options.checkId} within 60 s: ${
          issued.status
        } ${JSON.stringify(issued.body)}`,
      );
    }
    await sleep(500);
  }
}
