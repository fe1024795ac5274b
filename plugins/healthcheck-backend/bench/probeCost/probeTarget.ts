/*
 * The loopback target of the probe-cost bench: `GET /<system>/<environment>`
 * answers a small JSON body, `{"status":"UP"}` with 200, or
 * `{"status":"DOWN"}` with 503 while the bench has made that system's
 * environment fail. It records nothing per request (the chaos suite's
 * targets look up each connection's process, which costs more than the
 * probe it measures): the bench counts probes from the runs written.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';

const UP = JSON.stringify({ status: 'UP' });
const DOWN = JSON.stringify({ status: 'DOWN' });

/** What blackbox_exporter's module matches in an answer that is up. */
export const UP_BODY_PATTERN = '"status":\\s*"UP"';

/** The Vigil check's conditions that mean the same as the exporter's module. */
export const UP_CONDITIONS = ['[STATUS] == 200', '[BODY].status == UP'];

export class ProbeTarget {
  readonly #server: Server;
  /** `<system>/<environment>` keys made to fail. */
  readonly #failing = new Set<string>();

  static async start(): Promise<ProbeTarget> {
    const target = new ProbeTarget();
    target.#server.listen(0, '127.0.0.1');
    await once(target.#server, 'listening');
    return target;
  }

  private constructor() {
    this.#server = createServer((req, res) => {
      const failing = this.#failing.has((req.url ?? '').slice(1));
      res
        .writeHead(failing ? 503 : 200, { 'content-type': 'application/json' })
        .end(failing ? DOWN : UP);
    });
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  /** The URL a probe of a system's environment asks for. */
  url(system: string, environment: string): string {
    return `http://127.0.0.1:${this.port}/${system}/${environment}`;
  }

  /** A check's target template: one URL per slice. */
  template(): string {
    return `http://127.0.0.1:${this.port}/{{ system.name }}/{{ environment.name }}`;
  }

  fail(system: string, environment: string): void {
    this.#failing.add(`${system}/${environment}`);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>(resolve => this.#server.close(() => resolve()));
  }
}
