import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { createSocketOwnerLookup } from './socketOwners';

/** One request a probe made, as the target saw it. @internal */
export interface Hit {
  /** When the request arrived, epoch ms. */
  at: number;
  /** The first path segment: which check's probe (`steady`, `flipper`). */
  check: string;
  /** The system's name, as the check's target rendered it. */
  system: string;
  environment: string;
  /** The instance whose process made the connection, when known. */
  instance?: string;
}

/** A target made to fail or heal, and when. @internal */
export interface Flip {
  at: number;
  system: string;
  environment: string;
  failing: boolean;
}

/** The path segment of the targets whose health the suite flips. */
export const FLIPPING_CHECK = 'flipper';

/**
 * The loopback HTTP targets of the chaos suite, on one port: a probe of
 * `/<check>/<system>/<environment>` is recorded with its time and the
 * instance that sent it (found from the connection's client port, see
 * `socketOwners`), and answered 200, or 503 while the suite has made that
 * system's environment fail (for the `flipper` check only), after a delay
 * while the suite has made it slow.
 * @internal
 */
export class ChaosTargets {
  readonly hits: Hit[] = [];
  readonly flips: Flip[] = [];
  readonly #server: Server;
  readonly #failing = new Set<string>();
  /** Delays of the `flipper` answers, by `<system>/<environment>`. */
  readonly #slow = new Map<string, number>();
  readonly #instanceOfSocket = new WeakMap<Socket, string | undefined>();

  /**
   * `instances` lists the processes that may probe, by pid; it is read at
   * every connection, so restarted instances are found too.
   */
  static async start(
    instances: () => ReadonlyMap<number, string>,
  ): Promise<ChaosTargets> {
    const targets = new ChaosTargets(instances);
    targets.#server.listen(0, '127.0.0.1');
    await once(targets.#server, 'listening');
    return targets;
  }

  private constructor(instances: () => ReadonlyMap<number, string>) {
    const ownerOf = createSocketOwnerLookup();
    this.#server = createServer((req, res) => {
      const [check, system, environment] = (req.url ?? '')
        .split('/')
        .slice(1)
        .map(decodeURIComponent);
      if (!check || !system || !environment) {
        res.writeHead(404).end();
        return;
      }
      this.hits.push({
        at: Date.now(),
        check,
        system,
        environment,
        instance: this.#instanceOfSocket.get(req.socket),
      });
      const flipping = check === FLIPPING_CHECK;
      const failing = flipping && this.isFailing(system, environment);
      const answer = () =>
        res.writeHead(failing ? 503 : 200).end(failing ? 'DOWN' : 'UP');
      const delayMs = flipping
        ? this.#slow.get(`${system}/${environment}`)
        : undefined;
      if (delayMs) {
        setTimeout(answer, delayMs);
      } else {
        answer();
      }
    });
    // Looked up while the connection is open: its client end is still in
    // the prober's table of open files. Probes open a connection each.
    this.#server.on('connection', (socket: Socket) => {
      const byPid = instances();
      const pid = ownerOf(
        { clientPort: socket.remotePort!, serverPort: socket.localPort! },
        [...byPid.keys()],
      );
      this.#instanceOfSocket.set(
        socket,
        pid === undefined ? undefined : byPid.get(pid),
      );
    });
  }

  get port(): number {
    return (this.#server.address() as { port: number }).port;
  }

  isFailing(system: string, environment: string): boolean {
    return this.#failing.has(`${system}/${environment}`);
  }

  /** Makes the `flipper` target of a system's environment fail, or heal. */
  flip(system: string, environment: string, failing: boolean): void {
    if (this.isFailing(system, environment) === failing) {
      return;
    }
    const key = `${system}/${environment}`;
    if (failing) {
      this.#failing.add(key);
    } else {
      this.#failing.delete(key);
    }
    this.flips.push({ at: Date.now(), system, environment, failing });
  }

  /**
   * Makes the `flipper` target of a system's environment answer `delayMs`
   * late (0: at once), so that its probes are under way that long.
   */
  slow(system: string, environment: string, delayMs: number): void {
    if (delayMs > 0) {
      this.#slow.set(`${system}/${environment}`, delayMs);
    } else {
      this.#slow.delete(`${system}/${environment}`);
    }
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>(resolve => this.#server.close(() => resolve()));
  }
}
