import type {
  ProbeCertificate,
  ProbeCertificateReport,
} from '@vigil/plugin-healthcheck-node';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';

/** A certificate name (`{ CN: 'a', O: ['b', 'c'] }`) as `CN=a, O=b, O=c`. */
function formatName(
  name: Record<string, string | string[]> | undefined,
): string {
  if (!name) {
    return '';
  }
  return Object.entries(name)
    .flatMap(([key, value]) =>
      (Array.isArray(value) ? value : [value]).map(item => `${key}=${item}`),
    )
    .join(', ');
}

function toIsoDate(openSslDate: string): string {
  const time = Date.parse(openSslDate);
  return Number.isNaN(time) ? openSslDate : new Date(time).toISOString();
}

function summarize(certificate: DetailedPeerCertificate): ProbeCertificate {
  const summary: ProbeCertificate = {
    subject: formatName(certificate.subject as any),
    issuer: formatName(certificate.issuer as any),
    validFrom: toIsoDate(certificate.valid_from),
    validTo: toIsoDate(certificate.valid_to),
    serialNumber: certificate.serialNumber,
    fingerprint256: certificate.fingerprint256,
  };
  if (certificate.subjectaltname) {
    summary.subjectAltName = certificate.subjectaltname;
  }
  return summary;
}

/**
 * The chain a connected TLS socket's peer presented, leaf first, and
 * whether it verified. A self-signed root names itself as its issuer, so
 * the walk stops at the first certificate it has already seen.
 * @internal
 */
export function peerCertificateReport(
  socket: TLSSocket,
): ProbeCertificateReport {
  const chain: ProbeCertificate[] = [];
  const seen = new Set<string>();
  let current: DetailedPeerCertificate | undefined =
    socket.getPeerCertificate(true);
  while (
    current &&
    current.fingerprint256 &&
    !seen.has(current.fingerprint256)
  ) {
    seen.add(current.fingerprint256);
    chain.push(summarize(current));
    current = current.issuerCertificate;
  }
  const report: ProbeCertificateReport = {
    authorized: socket.authorized,
    chain,
  };
  if (socket.authorizationError) {
    report.authorizationError = String(
      (socket.authorizationError as any)?.code ?? socket.authorizationError,
    );
  }
  return report;
}

/**
 * Milliseconds until the leaf certificate expires; negative once it has.
 * `undefined` when the peer presented no certificate.
 * @internal
 */
export function certificateExpirationMs(
  report: ProbeCertificateReport,
  nowMs: number,
): number | undefined {
  const leaf = report.chain[0];
  if (!leaf) {
    return undefined;
  }
  const validTo = Date.parse(leaf.validTo);
  return Number.isNaN(validTo) ? undefined : validTo - nowMs;
}
