/**
 * The `tls` probe type: a handshake, the peer's certificate chain, whether
 * it verifies, and how long until the leaf expires.
 */
import {
  parseHostPort,
  type ProbeResult,
  type ProbeType,
  type TlsProbeConfig,
  tlsProbeConfigSchema,
} from '@vigil/plugin-healthcheck-node';
import { isIP } from 'node:net';
import { performance } from 'node:perf_hooks';
import { connect as tlsConnect } from 'node:tls';
import {
  assertLiteralAddressAllowed,
  createGuardedLookup,
} from './networkGuard';
import {
  certificateExpirationMs,
  peerCertificateReport,
} from './peerCertificates';
import { describeTlsVerifyError } from './probeErrors';
import { type ProbeProgress, runProbeWithDeadline } from './probeRun';
import { watchProbeSocket } from './probeSocket';
import type { BuiltinProbeTypeOptions } from './probeTypeOptions';

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
