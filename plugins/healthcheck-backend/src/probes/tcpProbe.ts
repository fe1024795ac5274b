/**
 * The `tcp` probe type: connect, optionally send a payload and wait for a
 * pattern in what comes back.
 */
import { connect as netConnect } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { ProbeResult, ProbeType } from '@vigil/plugin-healthcheck-node';
import {
  assertLiteralAddressAllowed,
  createGuardedLookup,
} from './networkGuard';
import { type ProbeProgress, runProbeWithDeadline } from './probeRun';
import type { BuiltinProbeTypeOptions } from './probeTypeOptions';
import { watchProbeSocket } from './probeSocket';
import { parseExpectedPattern, parseHostPort } from './targets';

/**
 * The fields of a `tcp` check. The target is `host:port` or
 * `tcp://host:port`.
 * @public
 */
export interface TcpProbeConfig {
  /** Written once connected; may reference `${secret:NAME}`. */
  send?: string;
  /**
   * What the peer must send back within the timeout: a substring, or a
   * regular expression written `/pattern/flags`.
   */
  expect?: string;
}

/** How much of the peer's answer a probe keeps while waiting for `expect`. */
const MAX_RECEIVED_BYTES = 64 * 1024;

/**
 * JSON schema of {@link TcpProbeConfig}.
 * @public
 */
export const tcpProbeConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    send: { type: 'string' },
    expect: { type: 'string', minLength: 1 },
  },
} as const;

/**
 * Creates the `tcp` probe type.
 * @public
 */
export function createTcpProbeType(
  options: BuiltinProbeTypeOptions,
): ProbeType<TcpProbeConfig> {
  const { networkPolicy, secrets } = options;

  return {
    type: 'tcp',
    configSchema: tcpProbeConfigSchema,
    run: context =>
      runProbeWithDeadline(context, secrets, (signal, progress) =>
        probeTcp(context.target, context.config ?? {}, signal, progress),
      ),
  };

  function probeTcp(
    target: string,
    config: TcpProbeConfig,
    signal: AbortSignal,
    progress: ProbeProgress,
  ): Promise<Omit<ProbeResult, 'durationMs'>> {
    const { host, port } = parseHostPort(target, { scheme: 'tcp' });
    assertLiteralAddressAllowed(host, networkPolicy);
    const payload =
      config.send === undefined
        ? undefined
        : secrets.resolve(config.send, 'send');
    const matches =
      config.expect === undefined
        ? undefined
        : parseExpectedPattern(config.expect);
    const where = `${host}:${port}`;
    const timings = { dns: 0, connect: 0 };

    const started = performance.now();
    const received: Buffer[] = [];
    let receivedBytes = 0;
    progress.phase = `while connecting to ${where}`;
    const socket = netConnect({
      host,
      port,
      lookup: createGuardedLookup({
        policy: networkPolicy,
        resolve: options.resolve,
      }),
      noDelay: true,
    });
    const receivedText = () =>
      Buffer.concat(received, receivedBytes).toString('utf8');
    const connectedResult = (extra: Partial<ProbeResult>) => ({
      ok: true,
      connected: true,
      ip: socket.remoteAddress,
      timings,
      ...extra,
    });

    return watchProbeSocket({
      socket,
      signal,
      progress,
      started,
      timings,
      onConnect: (_connectedAt, settle) => {
        if (matches) {
          progress.phase = `while waiting for ${config.expect} from ${where}`;
          if (payload !== undefined) {
            socket.write(payload);
          }
        } else if (payload !== undefined) {
          progress.phase = `while sending to ${where}`;
          socket.write(payload, error => {
            if (!error) {
              settle(connectedResult({}));
            }
          });
        } else {
          settle(connectedResult({}));
        }
      },
      listen: settle => {
        socket.on('data', (chunk: Buffer) => {
          if (!matches) {
            return;
          }
          received.push(chunk);
          receivedBytes += chunk.length;
          progress.partial.body = receivedText();
          if (matches(progress.partial.body)) {
            settle(connectedResult({ body: progress.partial.body }));
          } else if (receivedBytes >= MAX_RECEIVED_BYTES) {
            settle({
              ...connectedResult({ body: progress.partial.body }),
              ok: false,
              error: {
                kind: 'other',
                message: `${where} sent ${receivedBytes} bytes without ${config.expect}`,
              },
            });
          }
        });
        socket.once('end', () => {
          if (matches) {
            settle({
              ...connectedResult({ body: receivedText() }),
              ok: false,
              error: {
                kind: 'other',
                message: `${where} closed the connection after ${receivedBytes} bytes without sending ${config.expect}`,
              },
            });
          }
        });
      },
    });
  }
}
