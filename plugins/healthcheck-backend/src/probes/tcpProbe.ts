/**
 * The `tcp` probe type: connect, optionally send a payload and wait for a
 * pattern in what comes back.
 */
import { connect as netConnect } from 'node:net';
import { StringDecoder } from 'node:string_decoder';
import { performance } from 'node:perf_hooks';
import type { ProbeResult, ProbeType } from '@vigil/plugin-healthcheck-node';
import {
  assertLiteralAddressAllowed,
  createGuardedLookup,
} from './networkGuard';
import { ProbeConfigError } from './probeErrors';
import { type ProbeProgress, runProbeWithDeadline } from './probeRun';
import type { BuiltinProbeTypeOptions } from './probeTypeOptions';
import { watchProbeSocket } from './probeSocket';
import {
  ExpectedPatternWatcher,
  expectedPatternProblem,
  parseExpectedPattern,
} from './expectedPattern';
import { targetOrigin } from './secrets';
import { parseHostPort } from './targets';

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

/**
 * The longest `send` payload, in bytes once its secrets are filled in (and
 * so in characters too); a probe says hello, it does not upload.
 */
const MAX_SEND_BYTES = 64 * 1024;

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
    send: { type: 'string', maxLength: MAX_SEND_BYTES },
    expect: { type: 'string', minLength: 1, maxLength: 1024 },
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
    validateConfig: config => {
      const problem =
        config.expect === undefined
          ? undefined
          : expectedPatternProblem(config.expect);
      return problem ? [{ path: 'expect', reason: problem }] : [];
    },
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
      Buffer.byteLength(payload, 'utf8') > MAX_SEND_BYTES
    ) {
      throw new ProbeConfigError(
        `send is ${Buffer.byteLength(
          payload,
          'utf8',
        )} bytes; a tcp probe sends at most ${MAX_SEND_BYTES}`,
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
