import { once } from 'node:events';
import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * What a {@link FaultProxy} does to the connections through it: forward
 * them as they are, refuse them all, or forward every chunk late.
 * @internal
 */
export type FaultMode =
  | { kind: 'pass' }
  | { kind: 'drop' }
  | { kind: 'delay'; ms: number };

/** Counters of a {@link FaultProxy}, cumulative since start. @internal */
export interface FaultProxyStats {
  /** Connections forwarded to the target. */
  accepted: number;
  /** Connections reset at once because the proxy was dropping. */
  refused: number;
  /** Open connections reset by `drop()`. */
  dropped: number;
  /** Connections open now. */
  open: number;
}

/** One client connection and the proxy's connection to the target for it. */
interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
}

/**
 * A TCP proxy on 127.0.0.1 whose faults a test switches: every connection
 * to its port is forwarded to one target (a database) unless the test has
 * made the proxy drop them, or late.
 *
 * - `drop()` resets every open connection at once and refuses new ones
 *   until `reopen()`. Refused means accepted and reset at once: the port
 *   stays the proxy's throughout, so nothing else can take it while the
 *   clients that were told to use it try again.
 * - `delay(ms)` forwards every chunk (what one read gives, a packet or a
 *   few) in either direction `ms` later than it arrived, in order;
 *   `delay(0)` is `pass()` again.
 * - When the target closes or refuses a connection, the client's is closed
 *   too, as a client of the target itself would see it.
 *
 * @internal
 */
export class FaultProxy {
  readonly #server: Server;
  readonly #target: { host: string; port: number };
  readonly #pairs = new Set<Pair>();
  readonly #stats = { accepted: 0, refused: 0, dropped: 0 };
  #mode: FaultMode = { kind: 'pass' };

  static async start(target: {
    host: string;
    port: number;
  }): Promise<FaultProxy> {
    const proxy = new FaultProxy(target);
    proxy.#server.listen(0, '127.0.0.1');
    await once(proxy.#server, 'listening');
    return proxy;
  }

  private constructor(target: { host: string; port: number }) {
    this.#target = target;
    // Half-open, so that one side's end reaches the other after the data
    // before it, as it would without a proxy between them.
    this.#server = createServer({ allowHalfOpen: true }, client =>
      this.#accept(client),
    );
  }

  /** The port clients connect to instead of the target's. */
  get port(): number {
    const address = this.#server.address();
    if (!address || typeof address === 'string') {
      throw new Error('The fault proxy is not listening');
    }
    return address.port;
  }

  get mode(): FaultMode {
    return this.#mode;
  }

  stats(): FaultProxyStats {
    return { ...this.#stats, open: this.#pairs.size };
  }

  /** Resets every open connection and refuses new ones until `reopen()`. */
  drop(): void {
    this.#mode = { kind: 'drop' };
    for (const pair of this.#pairs) {
      this.#stats.dropped++;
      this.#reset(pair);
    }
  }

  /** Accepts and forwards connections again, without delay. */
  reopen(): void {
    this.#mode = { kind: 'pass' };
  }

  /** Forwards every chunk `ms` late; 0 forwards at once again. */
  delay(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) {
      throw new Error(`A delay is a number of milliseconds >= 0, got ${ms}`);
    }
    if (this.#mode.kind === 'drop') {
      throw new Error('The proxy is dropping connections; reopen it first');
    }
    this.#mode = ms === 0 ? { kind: 'pass' } : { kind: 'delay', ms };
  }

  /** Forwards as is: no delay. */
  pass(): void {
    this.delay(0);
  }

  /** Stops listening and resets every connection. */
  async close(): Promise<void> {
    for (const pair of this.#pairs) {
      this.#reset(pair);
    }
    await new Promise<void>(resolve => this.#server.close(() => resolve()));
  }

  #delayMs(): number {
    return this.#mode.kind === 'delay' ? this.#mode.ms : 0;
  }

  #accept(client: Socket): void {
    if (this.#mode.kind === 'drop') {
      this.#stats.refused++;
      client.on('error', () => {});
      client.resetAndDestroy();
      return;
    }
    this.#stats.accepted++;
    const upstream = connect({
      host: this.#target.host,
      port: this.#target.port,
      allowHalfOpen: true,
    });
    const pair: Pair = { client, upstream };
    this.#pairs.add(pair);
    // An error on either side, or a side that closes without ending its
    // stream, ends both at once; an orderly end reaches the other side
    // after the data before it.
    for (const socket of [client, upstream]) {
      socket.on('error', () => this.#reset(pair));
      socket.on('close', () => {
        if (!socket.readableEnded) {
          this.#reset(pair);
        } else if (client.destroyed && upstream.destroyed) {
          this.#pairs.delete(pair);
        }
      });
    }
    this.#forward(client, upstream);
    this.#forward(upstream, client);
  }

  /**
   * Copies `from` to `to`, each chunk after the delay in force when it
   * arrived, and never before a chunk that arrived earlier: a delay
   * switched off mid-stream does not reorder the bytes.
   */
  #forward(from: Socket, to: Socket): void {
    const queue: Array<{ dueAt: number; chunk: Buffer | 'end' }> = [];
    let timer: NodeJS.Timeout | undefined;
    let lastDueAt = 0;
    let waitingForDrain = false;

    // Backpressure: read no more until the other side drains.
    const waitForDrain = () => {
      if (!waitingForDrain) {
        waitingForDrain = true;
        from.pause();
        to.once('drain', () => {
          waitingForDrain = false;
          from.resume();
        });
      }
    };

    const flush = () => {
      timer = undefined;
      const now = Date.now();
      while (queue.length > 0 && queue[0].dueAt <= now) {
        const { chunk } = queue.shift()!;
        if (to.destroyed) {
          return;
        }
        if (chunk === 'end') {
          to.end();
        } else if (!to.write(chunk)) {
          waitForDrain();
        }
      }
      if (queue.length > 0) {
        timer = setTimeout(flush, queue[0].dueAt - now);
      }
    };

    const enqueue = (chunk: Buffer | 'end') => {
      const dueAt = Math.max(Date.now() + this.#delayMs(), lastDueAt);
      lastDueAt = dueAt;
      queue.push({ dueAt, chunk });
      if (timer === undefined) {
        if (dueAt <= Date.now()) {
          flush();
        } else {
          timer = setTimeout(flush, dueAt - Date.now());
        }
      }
    };

    from.on('data', chunk => enqueue(chunk as Buffer));
    from.on('end', () => enqueue('end'));
    from.on('close', () => {
      if (timer !== undefined) {
        clearTimeout(timer);
      }
    });
  }

  /** Resets the client's connection (the client sees ECONNRESET) and the target's. */
  #reset(pair: Pair): void {
    this.#pairs.delete(pair);
    if (!pair.client.destroyed) {
      pair.client.resetAndDestroy();
    }
    pair.upstream.destroy();
  }
}
