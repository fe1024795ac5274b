import { X509Certificate } from 'node:crypto';
import { createSelfSignedCertificate } from './selfSignedCertificate';

const DAY_MS = 24 * 60 * 60 * 1000;

function certificateWithSerial(serialNumber: Buffer): X509Certificate {
  const now = Date.now();
  const { cert } = createSelfSignedCertificate({
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + DAY_MS),
    serialNumber,
  });
  return new X509Certificate(cert);
}

describe('createSelfSignedCertificate', () => {
  // A random serial starts with a zero byte one time in 256; written as it
  // came, OpenSSL rejects the certificate and every test using it fails.
  it.each([
    ['two leading zero bytes', '0000050102', '050102'],
    ['a leading zero before a high bit', '00850102', '850102'],
    ['a high first bit', 'ff0102', 'FF0102'],
    ['no leading zero', '7a0102', '7A0102'],
  ])('writes a serial with %s as a minimal integer', (_, given, read) => {
    const certificate = certificateWithSerial(Buffer.from(given, 'hex'));

    expect(certificate.serialNumber.toUpperCase()).toBe(read.toUpperCase());
  });

  it('writes the validity window it is given, even one in the past', () => {
    const notBefore = new Date('2020-01-01T00:00:00Z');
    const notAfter = new Date('2020-01-02T00:00:00Z');
    const { cert } = createSelfSignedCertificate({ notBefore, notAfter });

    const certificate = new X509Certificate(cert);

    expect(new Date(certificate.validFrom)).toEqual(notBefore);
    expect(new Date(certificate.validTo)).toEqual(notAfter);
  });
});
