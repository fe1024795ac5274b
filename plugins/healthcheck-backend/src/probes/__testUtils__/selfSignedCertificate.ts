/**
 * Self-signed X.509 certificates for tests, with any validity window
 * (including one that ended yesterday, which `openssl req -days` refuses to
 * write). An EC P-256 key, ecdsa-with-SHA256, DER built by hand: the few
 * ASN.1 shapes a certificate needs and no more.
 */
import {
  generateKeyPairSync,
  randomBytes,
  sign,
  X509Certificate,
} from 'node:crypto';
import { isIP } from 'node:net';

function encodeLength(length: number): Buffer {
  if (length < 0x80) {
    return Buffer.from([length]);
  }
  const bytes: number[] = [];
  for (let rest = length; rest > 0; rest >>= 8) {
    bytes.unshift(rest & 0xff);
  }
  return Buffer.from([0x80 | bytes.length, ...bytes]);
}

function tlv(tag: number, ...content: Buffer[]): Buffer {
  const body = Buffer.concat(content);
  return Buffer.concat([Buffer.from([tag]), encodeLength(body.length), body]);
}

const sequence = (...items: Buffer[]) => tlv(0x30, ...items);
const set = (...items: Buffer[]) => tlv(0x31, ...items);

function oid(dotted: string): Buffer {
  const arcs = dotted.split('.').map(Number);
  const bytes = [arcs[0] * 40 + arcs[1]];
  for (const arc of arcs.slice(2)) {
    const base128 = [arc & 0x7f];
    for (let rest = arc >> 7; rest > 0; rest >>= 7) {
      base128.unshift(0x80 | (rest & 0x7f));
    }
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

/**
 * An unsigned big-endian number as a DER INTEGER: minimal, so no leading zero
 * bytes (OpenSSL refuses those as "illegal padding"), and one zero byte added
 * back only when the top bit would otherwise read as a sign.
 */
function positiveInteger(bytes: Buffer): Buffer {
  let start = 0;
  while (start < bytes.length - 1 && bytes[start] === 0) {
    start += 1;
  }
  const minimal = bytes.subarray(start);
  const padded =
    minimal[0] & 0x80 ? Buffer.concat([Buffer.from([0]), minimal]) : minimal;
  return tlv(0x02, padded);
}

function time(date: Date): Buffer {
  const iso = date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  // UTCTime until 2049, GeneralizedTime after, as RFC 5280 requires.
  return date.getUTCFullYear() < 2050
    ? tlv(0x17, Buffer.from(`${iso.slice(2)}Z`))
    : tlv(0x18, Buffer.from(`${iso}Z`));
}

function commonNameOnly(commonName: string): Buffer {
  return sequence(
    set(sequence(oid('2.5.4.3'), tlv(0x0c, Buffer.from(commonName)))),
  );
}

function ipBytes(address: string): Buffer {
  if (isIP(address) === 4) {
    return Buffer.from(address.split('.').map(Number));
  }
  // Enough for the loopback addresses tests use.
  if (address === '::1') {
    return Buffer.from([...new Array(15).fill(0), 1]);
  }
  throw new Error(`No encoder for ${address} in the test certificate helper`);
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return sequence(
    oid(id),
    ...(critical ? [tlv(0x01, Buffer.from([0xff]))] : []),
    tlv(0x04, value),
  );
}

/** A certificate and its key, in PEM. */
export interface TestCertificate {
  cert: string;
  key: string;
  notAfter: Date;
}

/**
 * A self-signed certificate (a CA of its own, so it can also be the trusted
 * root a client is given) for the given names and validity window.
 */
export function createSelfSignedCertificate(options: {
  commonName?: string;
  altNames?: string[];
  notBefore: Date;
  notAfter: Date;
  /** Random (12 bytes) unless a test needs a particular one. */
  serialNumber?: Buffer;
}): TestCertificate {
  const { privateKey, publicKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
  });
  const ecdsaWithSha256 = sequence(oid('1.2.840.10045.4.3.2'));
  const name = commonNameOnly(options.commonName ?? 'localhost');
  const altNames = (options.altNames ?? ['localhost', '127.0.0.1']).map(entry =>
    isIP(entry) ? tlv(0x87, ipBytes(entry)) : tlv(0x82, Buffer.from(entry)),
  );

  const tbs = sequence(
    tlv(0xa0, tlv(0x02, Buffer.from([2]))),
    positiveInteger(options.serialNumber ?? randomBytes(12)),
    ecdsaWithSha256,
    name,
    sequence(time(options.notBefore), time(options.notAfter)),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    tlv(
      0xa3,
      sequence(
        extension('2.5.29.19', true, sequence(tlv(0x01, Buffer.from([0xff])))),
        extension('2.5.29.17', false, sequence(...altNames)),
      ),
    ),
  );
  const signature = sign('sha256', tbs, privateKey);
  const der = sequence(
    tbs,
    ecdsaWithSha256,
    tlv(0x03, Buffer.from([0]), signature),
  );

  const cert = `-----BEGIN CERTIFICATE-----\n${der
    .toString('base64')
    .replace(/(.{64})/g, '$1\n')
    .replace(/\n?$/, '\n')}-----END CERTIFICATE-----\n`;
  // Parse what we built, so a mistake here fails loudly in setup.
  const parsed = new X509Certificate(cert);
  if (!parsed.verify(publicKey)) {
    throw new Error('The test certificate does not verify against its key');
  }
  return {
    cert,
    key: privateKey.export({ type: 'pkcs8', format: 'pem' }) as string,
    notAfter: options.notAfter,
  };
}
