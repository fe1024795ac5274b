/**
 * The `tls` probe type: a handshake, the peer's certificate chain, whether
 * it verifies, and how long until the leaf expires.
 */
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect } from 'node:tls';
import type { ProbeResult, ProbeType } from '@vigil/plugin-healthcheck-node';
import {
  assertLiteralAddressAllowed,
  createGuardedLookup,
} from './networkGuard';
import {
  certificateExpirationMs,
  MAX_CA_PEM_CHARS,
  peerCertificateReport,
} from './peerCertificates';
import { describeTlsVerifyError } from './probeErrors';
import { type ProbeProgress, runProbeWithDeadline } from './probeRun';
import { watchProbeSocket } from './probeSocket';
import type { BuiltinProbeTypeOptions } from './probeTypeOptions';
import { parseHostPort } from './targets';

/**
 * The fields of a `tls` check. The target is `host:port` or
 * `tls://host:port`; the port defaults to 443.
 * @public
 */
export interface TlsProbeConfig {
  /** The name to ask for (SNI) and verify; the target's host by default. */
  servername?: string;
  /** Report the certificate without failing when it does not verify. Off by default. */
  insecureSkipVerify?: boolean;
  /** PEM certificates to trust instead of Node's bundled authorities. */
  ca?: string;
}

/**
 * JSON schema of {@link TlsProbeConfig}.
 * @public
 */
export const tlsProbeConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    servername: { type: 'string', minLength: 1, maxLength: 253 },
    insecureSkipVerify: { type: 'boolean' },
    ca: { type: 'string', maxLength: MAX_CA_PEM_CHARS },
  },
} as const;

/**
 * Creates the `tls` probe type.
 * @public
 */
export function createTlsProbeType(
  options: BuiltinProbeTypeOptions,
): ProbeType<TlsProbeConfig> {
  const { networkPolicy, secrets } = options;

  return {
    type: 'tls',
    configSchema: tlsProbeConfigSchema,
    run: context =>
      runProbeWithDeadline(context, secrets, (signal, progress) =>
        probeTls(context.target, context.config ?? {}, signal, progress),
      ),
  };

  function probeTls(
    target: string,
    config: TlsProbeConfig,
    signal: AbortSignal,
    progress: ProbeProgress,
  ): Promise<Omit<ProbeResult, 'durationMs'>> {
    const { host, port } = parseHostPort(target, {
      scheme: 'tls',
      defaultPort: 443,
    });
    assertLiteralAddressAllowed(host, networkPolicy);
    const servername =
      config.servername ?? (isIP(host) === 0 ? host : undefined);
    const where = `${host}:${port}`;
    const timings = { dns: 0, connect: 0, tls: 0 };

    const started = performance.now();
    let connectedAt = started;
    progress.phase = `while connecting to ${where}`;
    const socket = tlsConnect({
      host,
      port,
      servername,
      ...(config.ca ? { ca: config.ca } : {}),
      // Verification is judged below, so that an untrusted or expired
      // chain is still read and reported.
      rejectUnauthorized: false,
      lookup: createGuardedLookup({
        policy: networkPolicy,
        resolve: options.resolve,
      }),
    });

    return watchProbeSocket({
      socket,
      signal,
      progress,
      started,
      timings,
      onConnect: at => {
        connectedAt = at;
        progress.phase = `during the TLS handshake with ${where}`;
      },
      listen: settle => {
        socket.once('secureConnect', () => {
          timings.tls = performance.now() - connectedAt;
          const certificate = peerCertificateReport(socket);
          const observed = {
            connected: true,
            ip: socket.remoteAddress,
            timings,
            certificate,
            certificateExpirationMs: certificateExpirationMs(
              certificate,
              Date.now(),
            ),
          };
          if (certificate.authorized || config.insecureSkipVerify) {
            settle({ ok: true, ...observed });
            return;
          }
          const reason = certificate.authorizationError ?? 'unknown reason';
          settle({
            ok: false,
            ...observed,
            error: {
              kind: 'tls',
              message: `Certificate of ${where} does not verify: ${describeTlsVerifyError(
                reason,
              )}`,
            },
          });
        });
      },
    });
  }
}
