/**
 * The `tcp` probe type: connect, optionally send a payload and wait for a
 * pattern in what comes back.
 */
import {
  ExpectedPatternWatcher,
  parseExpectedPattern,
  parseHostPort,
  ProbeConfigError,
  type ProbeResult,
  type ProbeType,
  targetOrigin,
  TCP_MAX_SEND_BYTES,
  type TcpProbeConfig,
  tcpProbeConfigSchema,
  validateTcpProbeConfig,
} from '@vigil/plugin-healthcheck-node';
import { connect as netConnect } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { performance } from 'node:perf_hooks';
import {
  assertLiteralAddressAllowed,
  createGuardedLookup,
} from './networkGuard';
import { type ProbeProgress, runProbeWithDeadline } from './probeRun';
import type { BuiltinProbeTypeOptions } from './probeTypeOptions';
import { watchProbeSocket } from './probeSocket';

/** How much of the peer's answer a probe keeps while waiting for `expect`. */
const MAX_RECEIVED_BYTES = 64 * 1024;

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
    validateConfig: validateTcpProbeConfig,
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
        : secrets.resolve(config.send, {
            path: 'send',
            origin: targetOrigin('tcp', target),
          });
    if (
      payload !== undefined &&
      Buffer.byteLength(payload, 'utf8') > TCP_MAX_SEND_BYTES
    ) {
      throw new ProbeConfigError(
        `send is ${Buffer.byteLength(
          payload,
          'utf8',
        )} bytes; a tcp probe sends at most ${TCP_MAX_SEND_BYTES}`,
      );
    }
    const expected =
      config.expect === undefined
        ? undefined
        : parseExpectedPattern(config.expect);
    const where = `${host}:${port}`;
    const timings = { dns: 0, connect: 0 };

    const started = performance.now();
    let receivedBytes = 0;
    // Decoded piece by piece, so a slow peer does not make us decode the
    // whole answer again for every byte it sends.
    const decoder = new StringDecoder('utf8');
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
        if (expected) {
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
        if (!expected) {
          return;
        }
        const watcher = new ExpectedPatternWatcher({
          pattern: expected,
          onMatch: () => settle(connectedResult({ body: watcher.text })),
        });
        socket.once('close', () => watcher.dispose());
        socket.on('data', (chunk: Buffer) => {
          // What is past the cap is never kept, however large the chunk.
          const kept = chunk.subarray(0, MAX_RECEIVED_BYTES - receivedBytes);
          receivedBytes += kept.length;
          watcher.append(decoder.write(kept));
          progress.partial.body = watcher.text;
          if (receivedBytes >= MAX_RECEIVED_BYTES && !watcher.finish()) {
            settle({
              ...connectedResult({ body: watcher.text }),
              ok: false,
              error: {
                kind: 'other',
                message: `${where} sent ${receivedBytes} bytes without ${config.expect}`,
              },
            });
          }
        });
        socket.once('end', () => {
          watcher.append(decoder.end());
          if (!watcher.finish()) {
            settle({
              ...connectedResult({ body: watcher.text }),
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
