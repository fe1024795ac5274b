import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';
import {
  certificateExpirationMs,
  peerCertificateReport,
} from './peerCertificates';

/** A certificate as `getPeerCertificate(true)` gives it, issued by `issuer`. */
function certificate(
  n: number,
  fields: Partial<DetailedPeerCertificate> = {},
): DetailedPeerCertificate {
  return {
    subject: { CN: `cert-${n}` },
    issuer: { CN: `cert-${n + 1}` },
    valid_from: 'Jan  1 00:00:00 2026 GMT',
    valid_to: 'Jan  1 00:00:00 2027 GMT',
    serialNumber: `0${n}`,
    fingerprint256: `FP:${n}`,
    ...fields,
  } as DetailedPeerCertificate;
}

/** A socket whose peer presented `chain`, leaf first. */
function socketPresenting(chain: DetailedPeerCertificate[]): TLSSocket {
  chain.forEach((cert, index) => {
    cert.issuerCertificate = chain[index + 1] ?? cert;
  });
  return {
    authorized: false,
    authorizationError: 'SELF_SIGNED_CERT_IN_CHAIN',
    getPeerCertificate: () => chain[0],
  } as unknown as TLSSocket;
}

describe('peerCertificateReport', () => {
  it('reports the chain leaf first, ending at the self-signed root', () => {
    const report = peerCertificateReport(
      socketPresenting([certificate(0), certificate(1), certificate(2)]),
    );

    expect(report.chain.map(cert => cert.subject)).toEqual([
      'CN=cert-0',
      'CN=cert-1',
      'CN=cert-2',
    ]);
    expect(report).toMatchObject({
      authorized: false,
      authorizationError: 'SELF_SIGNED_CERT_IN_CHAIN',
    });
    expect(report.chain[0].validTo).toBe('2027-01-01T00:00:00.000Z');
  });

  it('keeps the first ten certificates of a chain a hostile peer makes long', () => {
    const chain = Array.from({ length: 500 }, (_, n) => certificate(n));

    const report = peerCertificateReport(socketPresenting(chain));

    expect(report.chain).toHaveLength(10);
    expect(report.chain[9].subject).toBe('CN=cert-9');
  });

  it('cuts names and fields a hostile peer makes long', () => {
    const report = peerCertificateReport(
      socketPresenting([
        certificate(0, {
          subject: { CN: 'a'.repeat(100_000) } as any,
          issuer: { O: Array(10_000).fill('org') } as any,
          subjectaltname: 'DNS:x.example, '.repeat(100_000),
          serialNumber: 'f'.repeat(100_000),
          valid_to: 'not a date '.repeat(10_000),
        }),
      ]),
    );

    const [leaf] = report.chain;
    expect(leaf.subject).toHaveLength(1024);
    expect(leaf.subject.endsWith('…')).toBe(true);
    expect(leaf.issuer).toHaveLength(1024);
    expect(leaf.subjectAltName).toHaveLength(16 * 1024);
    expect(leaf.serialNumber).toHaveLength(128);
    expect(leaf.validTo).toHaveLength(128);
    expect(certificateExpirationMs(report, Date.now())).toBeUndefined();
  });
});
