import type { ProbeResult } from '@vigil/plugin-healthcheck-node';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ProbeProgress } from './probeRun';

type SocketProbeResult = Omit<ProbeResult, 'durationMs'>;

/**
 * What the socket probes (tcp, tls) share once their socket is opened: it
 * is destroyed when the probe is aborted or settles, the DNS and connect
 * times come from its `lookup` and `connect` events, and on connecting the
 * progress says connected (so a timeout after it reports what was seen).
 * The returned promise settles through `settle`, or rejects on a socket
 * error.
 * @internal
 */
export function watchProbeSocket(options: {
  socket: Socket;
  signal: AbortSignal;
  progress: ProbeProgress;
  /** When the probe began connecting (performance.now()). */
  started: number;
  /** Filled in as the events come. */
  timings: { dns: number; connect: number };
  /** Called after `connect` is recorded, with the time it came. */
  onConnect(
    connectedAt: number,
    settle: (result: SocketProbeResult) => void,
  ): void;
  /** Registers the probe's own listeners; `settle` ends the probe. */
  listen?(settle: (result: SocketProbeResult) => void): void;
}): Promise<SocketProbeResult> {
  const { socket, signal, progress, started, timings } = options;
  return new Promise((resolve, reject) => {
    let lookedUpAt: number | undefined;
    const onAbort = () => socket.destroy();
    signal.addEventListener('abort', onAbort, { once: true });
    const end = () => {
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
    };
    const settle = (result: SocketProbeResult) => {
      end();
      resolve(result);
    };

    socket.once('lookup', () => {
      lookedUpAt = performance.now();
      timings.dns = lookedUpAt - started;
    });
    socket.once('connect', () => {
      const connectedAt = performance.now();
      timings.connect = connectedAt - (lookedUpAt ?? started);
      progress.partial.connected = true;
      progress.partial.ip = socket.remoteAddress;
      options.onConnect(connectedAt, settle);
    });
    options.listen?.(settle);
    socket.once('error', error => {
      end();
      reject(error);
    });
  });
}
