import { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import { createServer as createTlsServer } from 'node:tls';
import { createTlsProbeType } from './tlsProbe';
import {
  findClosedPort,
  type LoopbackServer,
  startTcpServer,
} from './__testUtils__/loopbackServers';
import {
  LOOPBACK_ALLOWED,
  NOTHING_ALLOWED,
  runProbe,
} from './__testUtils__/runProbe';
import {
  createSelfSignedCertificate,
  type TestCertificate,
} from './__testUtils__/selfSignedCertificate';

const DAY_MS = 24 * 60 * 60 * 1000;
const secrets = new ProbeSecrets({});
const tls = createTlsProbeType({ networkPolicy: LOOPBACK_ALLOWED, secrets });

let valid: TestCertificate;
let expired: TestCertificate;
beforeAll(() => {
  const now = Date.now();
  valid = createSelfSignedCertificate({
    notBefore: new Date(now - DAY_MS),
    notAfter: new Date(now + 10 * DAY_MS),
  });
  expired = createSelfSignedCertificate({
    notBefore: new Date(now - 10 * DAY_MS),
    notAfter: new Date(now - 2 * DAY_MS),
  });
});

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
});

async function serveTls(certificate: TestCertificate): Promise<number> {
  const server = createTlsServer(
    { cert: certificate.cert, key: certificate.key },
    socket => socket.end(),
  );
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  servers.push({
    port,
    close: () => new Promise<void>(resolve => server.close(() => resolve())),
  });
  return port;
}

describe('tls probe', () => {
  it('reads a self-signed chain with verification off', async () => {
    const port = await serveTls(valid);

    const result = await runProbe(tls, `localhost:${port}`, {
      insecureSkipVerify: true,
    });

    expect(result).toMatchObject({
      ok: true,
      connected: true,
      ip: '127.0.0.1',
      certificate: {
        authorized: false,
        authorizationError: 'DEPTH_ZERO_SELF_SIGNED_CERT',
        chain: [
          {
            subject: 'CN=localhost',
            issuer: 'CN=localhost',
            subjectAltName: 'DNS:localhost, IP Address:127.0.0.1',
          },
        ],
      },
    });
    expect(result.certificate!.chain).toHaveLength(1);
    expect(result.certificateExpirationMs).toBeGreaterThan(9 * DAY_MS);
    expect(result.certificateExpirationMs).toBeLessThanOrEqual(10 * DAY_MS);
    expect(result.timings!.tls).toBeGreaterThan(0);
  });

  it('fails a self-signed certificate with kind tls when verifying', async () => {
    const port = await serveTls(valid);

    const result = await runProbe(tls, `tls://localhost:${port}`, {});

    expect(result).toMatchObject({
      ok: false,
      connected: true,
      error: {
        kind: 'tls',
        message: `Certificate of localhost:${port} does not verify: the certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)`,
      },
    });
    expect(result.certificateExpirationMs).toBeGreaterThan(0);
  });

  it('verifies against a configured ca', async () => {
    const port = await serveTls(valid);

    const result = await runProbe(tls, `localhost:${port}`, {
      ca: valid.cert,
    });

    expect(result).toMatchObject({
      ok: true,
      certificate: { authorized: true },
    });
    expect(result.certificate?.authorizationError).toBeUndefined();
  });

  it('checks the name: a certificate for localhost does not verify as another host', async () => {
    const port = await serveTls(valid);

    const result = await runProbe(tls, `localhost:${port}`, {
      ca: valid.cert,
      servername: 'api.example.com',
    });

    expect(result.error?.kind).toBe('tls');
    expect(result.error?.message).toContain(
      'the certificate does not name this host (ERR_TLS_CERT_ALTNAME_INVALID)',
    );
  });

  it('reports a negative expiry and kind tls for an expired certificate', async () => {
    const port = await serveTls(expired);

    const result = await runProbe(tls, `localhost:${port}`, {
      ca: expired.cert,
    });

    expect(result).toMatchObject({
      ok: false,
      error: {
        kind: 'tls',
        message: `Certificate of localhost:${port} does not verify: the certificate has expired (CERT_HAS_EXPIRED)`,
      },
    });
    expect(result.certificateExpirationMs).toBeLessThan(-2 * DAY_MS + 60_000);
  });

  it('still reports the expiry of an expired certificate with verification off', async () => {
    const port = await serveTls(expired);

    const result = await runProbe(tls, `127.0.0.1:${port}`, {
      insecureSkipVerify: true,
    });

    expect(result.ok).toBe(true);
    expect(result.certificateExpirationMs).toBeLessThan(0);
  });

  it('fails with kind tls against a server that does not speak TLS', async () => {
    const server = await startTcpServer(socket =>
      socket.end('HTTP/1.1 400 Bad Request\r\n\r\n'),
    );
    servers.push(server);

    const result = await runProbe(tls, `127.0.0.1:${server.port}`, {});

    expect(result.error?.kind).toBe('tls');
  });

  it('times out during a handshake that never completes', async () => {
    const server = await startTcpServer(() => {});
    servers.push(server);

    const result = await runProbe(
      tls,
      `127.0.0.1:${server.port}`,
      {},
      { timeoutMs: 1000 },
    );

    expect(result).toMatchObject({
      ok: false,
      connected: true,
      error: {
        kind: 'timeout',
        message: `Timed out after 1000 ms during the TLS handshake with 127.0.0.1:${server.port}`,
      },
    });
  });

  it('reports a refused port as refused', async () => {
    const port = await findClosedPort();

    const result = await runProbe(tls, `127.0.0.1:${port}`, {});

    expect(result.error?.kind).toBe('refused');
  });

  it('refuses loopback under the default policy', async () => {
    const closedTls = createTlsProbeType({
      networkPolicy: NOTHING_ALLOWED,
      secrets,
    });

    const result = await runProbe(closedTls, 'localhost:443', {});

    expect(result.error?.kind).toBe('guard');
    expect(result.error?.message).toContain(
      'healthcheck.network.allowLoopback',
    );
  });
});
