import { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import { once } from 'node:events';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { createHttpProbeType, redirectedRequest } from './httpProbe';
import type { AddressResolver } from './CaresAddressResolver';
import {
  findClosedPort,
  type LoopbackServer,
  startHttpServer,
  startHttpsServer,
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
const secrets = new ProbeSecrets({ API_TOKEN: 's3cr3t-token' });
const http = createHttpProbeType({ networkPolicy: LOOPBACK_ALLOWED, secrets });

const servers: LoopbackServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map(server => server.close()));
});

async function serve(
  handler: Parameters<typeof startHttpServer>[0],
): Promise<string> {
  const server = await startHttpServer(handler);
  servers.push(server);
  return `http://127.0.0.1:${server.port}`;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise(resolve => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', chunk => {
      body += chunk;
    });
    request.on('end', () => resolve(body));
  });
}

describe('http probe', () => {
  it('opens a connection of its own for each probe and closes it once the answer is read', async () => {
    const sockets = new Set<Socket>();
    const origin = await serve((request, response) => {
      sockets.add(request.socket);
      response.setHeader('content-type', 'application/json');
      response.end('{"status":"UP"}');
    });

    await runProbe(http, `${origin}/first`, {});
    await runProbe(http, `${origin}/second`, {});
    const answeredAt = Date.now();

    expect(sockets.size).toBe(2);
    // The server keeps connections alive, and undici closes an idle one
    // after 4 s: closed sooner, it is the probe that closed it.
    const closedAt = await Promise.all(
      [...sockets].map(async socket => {
        if (!socket.closed) {
          await once(socket, 'close');
        }
        return Date.now();
      }),
    );
    expect(Math.max(...closedAt) - answeredAt).toBeLessThan(1000);
  });

  it('reports status, body, address and phase timings of a 200', async () => {
    const origin = await serve((_request, response) => {
      response.setHeader('content-type', 'application/json');
      response.end('{"status":"UP"}');
    });

    const result = await runProbe(http, `${origin}/health`, {});

    expect(result).toMatchObject({
      ok: true,
      status: 200,
      body: '{"status":"UP"}',
      ip: '127.0.0.1',
      connected: true,
    });
    expect(result.error).toBeUndefined();
    expect(result.bodyTruncated).toBeUndefined();
    expect(Object.keys(result.timings!).sort()).toEqual([
      'connect',
      'dns',
      'firstByte',
      'tls',
      'total',
    ]);
    expect(result.timings!.dns).toBe(0); // an IP literal needs no lookup
    expect(result.timings!.tls).toBe(0);
    expect(result.timings!.total).toBe(result.durationMs);
  });

  it('resolves a hostname through the guard and times the lookup', async () => {
    const origin = await serve((_request, response) => response.end('ok'));
    const port = new URL(origin).port;

    const result = await runProbe(http, `http://localhost:${port}/`, {});

    expect(result).toMatchObject({ ok: true, status: 200, ip: '127.0.0.1' });
    expect(result.timings!.dns).toBeGreaterThan(0);
  });

  it('reports a 500 as an answered probe, for conditions to judge', async () => {
    const origin = await serve((_request, response) => {
      response.statusCode = 500;
      response.end('down');
    });

    expect(await runProbe(http, origin, {})).toMatchObject({
      ok: true,
      status: 500,
      body: 'down',
    });
  });

  describe('redirects', () => {
    it('follows a chain of redirects to the final answer', async () => {
      const origin = await serve((request, response) => {
        const next: Record<string, [number, string]> = {
          '/a': [302, '/b'],
          '/b': [301, '/c?x=1'],
          '/c?x=1': [307, '/done'],
        };
        const hop = next[request.url!];
        if (hop) {
          response.writeHead(hop[0], { location: hop[1] }).end();
        } else {
          response.end(`reached ${request.url}`);
        }
      });

      expect(await runProbe(http, `${origin}/a`, {})).toMatchObject({
        ok: true,
        status: 200,
        body: 'reached /done',
      });
    });

    it('turns a POST into a GET without a body after a 303', async () => {
      const seen: string[] = [];
      const origin = await serve(async (request, response) => {
        seen.push(
          `${request.method} ${request.url} ${await readBody(request)}`,
        );
        if (request.url === '/submit') {
          response.writeHead(303, { location: '/result' }).end();
        } else {
          response.end('ok');
        }
      });

      await runProbe(http, `${origin}/submit`, {
        method: 'POST',
        body: 'payload',
        headers: { 'content-type': 'text/plain' },
      });

      expect(seen).toEqual(['POST /submit payload', 'GET /result ']);
    });

    it('returns the redirect itself when followRedirects is false', async () => {
      const origin = await serve((_request, response) =>
        response.writeHead(302, { location: '/elsewhere' }).end(),
      );

      expect(
        await runProbe(http, origin, { followRedirects: false }),
      ).toMatchObject({ ok: true, status: 302 });
    });

    it('fails after maxRedirects hops, naming where it would go next', async () => {
      const origin = await serve((request, response) => {
        const n = Number(request.url!.slice(1));
        response.writeHead(302, { location: `/${n + 1}` }).end();
      });

      const result = await runProbe(http, `${origin}/0`, { maxRedirects: 2 });

      expect(result).toMatchObject({
        ok: false,
        status: 302,
        error: {
          kind: 'other',
          message: `Stopped after 2 redirects: ${origin}/2 redirects again, to /3`,
        },
      });
    });

    it('follows no more than 20 redirects, whatever maxRedirects a module or an old row gives it', async () => {
      let hops = 0;
      const origin = await serve((request, response) => {
        hops++;
        const n = Number(request.url!.slice(1));
        response.writeHead(302, { location: `/${n + 1}` }).end();
      });

      const result = await runProbe(http, `${origin}/0`, {
        maxRedirects: 1000,
      });

      expect(result.error?.message).toBe(
        `Stopped after 20 redirects: ${origin}/20 redirects again, to /21`,
      );
      expect(hops).toBe(21);
    });

    it('fails on a redirect to something other than http or https', async () => {
      const origin = await serve((_request, response) =>
        response.writeHead(302, { location: 'file:///etc/passwd' }).end(),
      );

      expect(await runProbe(http, origin, {})).toMatchObject({
        ok: false,
        status: 302,
        error: {
          kind: 'other',
          message: `${origin}/ redirects to 'file:///etc/passwd', which is not an http or https URL`,
        },
      });
    });

    it('stops at a redirect to a cloud metadata address', async () => {
      const origin = await serve((_request, response) =>
        response
          .writeHead(302, {
            location: 'http://169.254.169.254/latest/meta-data/',
          })
          .end(),
      );

      const result = await runProbe(http, origin, {});

      expect(result.ok).toBe(false);
      expect(result.error).toEqual({
        kind: 'guard',
        message:
          'After 1 redirect, to http://169.254.169.254/latest/meta-data/: Network guard: 169.254.169.254 is a cloud metadata address (instance metadata (AWS, GCP, Azure, OCI, OpenStack, DigitalOcean)); no setting allows it',
      });
    });

    it('stops at a redirect to a name that resolves to a private address', async () => {
      const resolveInternal: AddressResolver = (hostname, _options, callback) =>
        hostname === 'intranet.test'
          ? callback(null, [{ address: '10.1.2.3', family: 4 }])
          : callback(
              Object.assign(new Error(`unknown ${hostname}`), {
                code: 'ENOTFOUND',
              }),
              [],
            );
      const guarded = createHttpProbeType({
        networkPolicy: LOOPBACK_ALLOWED,
        secrets,
        resolve: resolveInternal,
      });
      const origin = await serve((_request, response) =>
        response
          .writeHead(301, { location: 'http://intranet.test/admin' })
          .end(),
      );

      const result = await runProbe(guarded, origin, {});

      expect(result.error?.kind).toBe('guard');
      expect(result.error?.message).toContain(
        'intranet.test resolved to an address the guard refuses: 10.1.2.3 is private (10.0.0.0/8); set healthcheck.network.allowPrivate: true to allow it',
      );
    });

    it('keeps credentials and secret-bearing headers on their origin', async () => {
      const seenByOther: IncomingHttpHeaders[] = [];
      const other = await serve((request, response) => {
        seenByOther.push(request.headers);
        response.end('other');
      });
      const otherPort = new URL(other).port;
      const origin = await serve((_request, response) =>
        // localhost and 127.0.0.1 are different origins.
        response
          .writeHead(302, { location: `http://localhost:${otherPort}/` })
          .end(),
      );

      const result = await runProbe(http, origin, {
        headers: {
          Authorization: 'Basic dXNlcjpwYXNz',
          'X-Api-Key': '${secret:API_TOKEN}',
          'X-Trace': 'kept',
        },
      });

      expect(result).toMatchObject({ ok: true, body: 'other' });
      expect(seenByOther[0].authorization).toBeUndefined();
      expect(seenByOther[0]['x-api-key']).toBeUndefined();
      expect(seenByOther[0]['x-trace']).toBe('kept');
    });

    it.each([307, 308])(
      'keeps a secret-bearing body and its content headers on their origin after a %i',
      async status => {
        const seenByOther: Array<{
          headers: IncomingHttpHeaders;
          body: string;
        }> = [];
        const other = await serve(async (request, response) => {
          seenByOther.push({
            headers: request.headers,
            body: await readBody(request),
          });
          response.end('other');
        });
        const otherPort = new URL(other).port;
        const origin = await serve(async (request, response) => {
          await readBody(request);
          response
            .writeHead(status, { location: `http://localhost:${otherPort}/` })
            .end();
        });

        const result = await runProbe(http, `${origin}/submit`, {
          method: 'POST',
          headers: {
            'Content-Type': 'application/json',
            'Content-Language': 'en',
            'X-Trace': 'kept',
          },
          body: '{"token":"${secret:API_TOKEN}"}',
        });

        expect(result).toMatchObject({ ok: true, body: 'other' });
        expect(seenByOther).toHaveLength(1);
        expect(seenByOther[0].body).toBe('');
        expect(seenByOther[0].headers['content-type']).toBeUndefined();
        expect(seenByOther[0].headers['content-language']).toBeUndefined();
        expect(seenByOther[0].headers['x-trace']).toBe('kept');
      },
    );

    it('keeps a secret-bearing body from an https origin off a plain http hop', async () => {
      const certificate = createSelfSignedCertificate({
        notBefore: new Date(Date.now() - DAY_MS),
        notAfter: new Date(Date.now() + DAY_MS),
      });
      const bodiesSeenOverHttp: string[] = [];
      const plain = await serve(async (request, response) => {
        bodiesSeenOverHttp.push(await readBody(request));
        response.end('plain');
      });
      const secure = await startHttpsServer(
        certificate,
        async (request, response) => {
          await readBody(request);
          response.writeHead(308, { location: `${plain}/` }).end();
        },
      );
      servers.push(secure);

      const result = await runProbe(http, `https://localhost:${secure.port}/`, {
        method: 'PUT',
        body: 'password=${secret:API_TOKEN}',
        tls: { insecureSkipVerify: true },
      });

      expect(result).toMatchObject({ ok: true, body: 'plain' });
      expect(bodiesSeenOverHttp).toEqual(['']);
    });

    it('resends a body without secrets after a cross-origin 307, as browsers do', async () => {
      const bodiesSeenByOther: string[] = [];
      const other = await serve(async (request, response) => {
        bodiesSeenByOther.push(await readBody(request));
        response.end('other');
      });
      const otherPort = new URL(other).port;
      const origin = await serve(async (request, response) => {
        await readBody(request);
        response
          .writeHead(307, { location: `http://localhost:${otherPort}/` })
          .end();
      });

      await runProbe(http, origin, { method: 'POST', body: 'plain payload' });

      expect(bodiesSeenByOther).toEqual(['plain payload']);
    });
  });

  describe('guard', () => {
    const closedHttp = createHttpProbeType({
      networkPolicy: NOTHING_ALLOWED,
      secrets,
    });

    it('refuses a loopback IP target, naming the setting that allows it', async () => {
      const result = await runProbe(closedHttp, 'http://127.0.0.1:9/', {});

      expect(result).toMatchObject({
        ok: false,
        error: {
          kind: 'guard',
          message:
            'Network guard: 127.0.0.1 is loopback (127.0.0.0/8); set healthcheck.network.allowLoopback: true to allow it',
        },
      });
      expect(result.connected).toBeUndefined();
    });

    it('refuses a hostname that resolves to loopback', async () => {
      const result = await runProbe(closedHttp, 'http://localhost:9/', {});

      expect(result.error).toEqual({
        kind: 'guard',
        message:
          'Network guard: localhost resolved to an address the guard refuses: 127.0.0.1 is loopback (127.0.0.0/8); set healthcheck.network.allowLoopback: true to allow it',
      });
    });

    it('refuses an IPv4-mapped IPv6 literal of loopback', async () => {
      const result = await runProbe(
        closedHttp,
        'http://[::ffff:127.0.0.1]:9/',
        {},
      );

      expect(result.error?.kind).toBe('guard');
      expect(result.error?.message).toContain('carries 127.0.0.1');
    });
  });

  describe('body cap', () => {
    it('cuts the body at maxBodyBytes and says so', async () => {
      const origin = await serve((_request, response) =>
        response.end('x'.repeat(5000)),
      );

      const result = await runProbe(http, origin, { maxBodyBytes: 1000 });

      expect(result.body).toHaveLength(1000);
      expect(result.bodyTruncated).toBe(true);
    });

    it('stops reading an endless body at the default 1 MiB', async () => {
      const chunk = Buffer.alloc(64 * 1024, 'y');
      let written = 0;
      const origin = await serve((_request, response) => {
        const pump = () => {
          while (response.write(chunk)) {
            written += chunk.length;
          }
          written += chunk.length;
        };
        response.on('drain', pump);
        pump();
      });

      const result = await runProbe(http, origin, {});

      expect(result).toMatchObject({ ok: true, bodyTruncated: true });
      expect(result.body).toHaveLength(1024 * 1024);
      // The server is still writing when the probe has what it needs.
      expect(written).toBeGreaterThan(1024 * 1024);
    });

    it('keeps no more than 16 MiB, whatever maxBodyBytes a module or an old row gives it', async () => {
      const sixteenMiB = 16 * 1024 * 1024;
      const origin = await serve((_request, response) =>
        response.end(Buffer.alloc(sixteenMiB + 1024, 'w')),
      );

      const result = await runProbe(http, origin, { maxBodyBytes: 2 ** 30 });

      expect(result).toMatchObject({ ok: true, bodyTruncated: true });
      expect(result.body).toHaveLength(sixteenMiB);
    });

    it('does not call a body of exactly the cap truncated', async () => {
      const origin = await serve((_request, response) =>
        response.end('z'.repeat(1000)),
      );

      const result = await runProbe(http, origin, { maxBodyBytes: 1000 });

      expect(result.body).toHaveLength(1000);
      expect(result.bodyTruncated).toBeUndefined();
    });
  });

  describe('failures', () => {
    it('times out against a server that never answers, keeping what it saw', async () => {
      const origin = await serve(() => {});

      const result = await runProbe(http, origin, {}, { timeoutMs: 1000 });

      expect(result).toMatchObject({
        ok: false,
        connected: true,
        ip: '127.0.0.1',
        error: {
          kind: 'timeout',
          message: `Timed out after 1000 ms while waiting for the response from ${origin}`,
        },
      });
      // Node's timers count whole ms from the loop's clock, which can lag
      // performance.now() by under a millisecond: a 300 ms timeout may be
      // measured as 999.97 ms.
      expect(result.durationMs).toBeGreaterThanOrEqual(999);
    });

    it('reports a refused port as refused', async () => {
      const port = await findClosedPort();

      const result = await runProbe(http, `http://127.0.0.1:${port}/`, {});

      expect(result).toMatchObject({ ok: false, error: { kind: 'refused' } });
      expect(result.error?.message).toContain('ECONNREFUSED');
    });

    it('reports a connection the server drops as reset', async () => {
      const origin = await serve(request => request.socket.destroy());

      const result = await runProbe(http, origin, {});

      expect(result.error?.kind).toBe('reset');
    });

    it('returns at once when its signal is aborted', async () => {
      const controller = new AbortController();
      // Aborted once the server has the request, not after a timer that a
      // busy machine may fire before the connection is up.
      const origin = await serve(() =>
        controller.abort(new Error('backend stopping')),
      );

      const result = await runProbe(
        http,
        origin,
        {},
        { timeoutMs: 60_000, signal: controller.signal },
      );

      expect(result.error).toEqual({
        kind: 'other',
        message: `Probe aborted while waiting for the response from ${origin}: backend stopping`,
      });
    });

    it('treats an abort with a TimeoutError reason as a timeout', async () => {
      const origin = await serve(() => {});

      const result = await runProbe(
        http,
        origin,
        {},
        { timeoutMs: 60_000, signal: AbortSignal.timeout(100) },
      );

      expect(result.error?.kind).toBe('timeout');
    });

    it.each([
      ['not a url', "Target 'not a url' is not a URL"],
      [
        'ftp://example.com/',
        "Target 'ftp://example.com/' is not http or https",
      ],
    ])('refuses the target %j as config', async (target, message) => {
      expect((await runProbe(http, target, {})).error).toEqual({
        kind: 'config',
        message,
      });
    });
  });

  describe('headers and secrets', () => {
    it('sends method, headers and body with secrets substituted, and never reports them', async () => {
      let received: { headers: IncomingHttpHeaders; body: string } | undefined;
      const origin = await serve(async (request, response) => {
        received = { headers: request.headers, body: await readBody(request) };
        response.end(
          JSON.stringify({
            method: request.method,
            authorization: request.headers.authorization,
          }),
        );
      });

      const result = await runProbe(http, origin, {
        method: 'PUT',
        headers: {
          Authorization: 'Bearer ${secret:API_TOKEN}',
          'X-Plain': 'hello',
        },
        body: '{"token":"${secret:API_TOKEN}"}',
      });

      expect(received?.headers.authorization).toBe('Bearer s3cr3t-token');
      expect(received?.headers['x-plain']).toBe('hello');
      expect(received?.headers['user-agent']).toMatch(/^Vigil-Healthcheck\//);
      expect(received?.body).toBe('{"token":"s3cr3t-token"}');
      expect(result.body).toBe('{"method":"PUT","authorization":"Bearer ***"}');
      expect(JSON.stringify(result)).not.toContain('s3cr3t-token');
    });

    it('fails with kind config, naming a secret that is not configured', async () => {
      const result = await runProbe(http, 'http://127.0.0.1:9/', {
        headers: { Authorization: '${secret:GONE}' },
      });

      expect(result.error).toEqual({
        kind: 'config',
        message:
          "headers.Authorization: secret 'GONE' is unknown, or not allowed for this check",
      });
    });

    it('sends nothing when the target is not among the allowedOrigins of a secret it carries', async () => {
      const bound = createHttpProbeType({
        networkPolicy: LOOPBACK_ALLOWED,
        secrets: new ProbeSecrets({
          API_TOKEN: {
            value: 's3cr3t-token',
            allowedOrigins: ['https://api.example.com'],
          },
        }),
      });
      let requests = 0;
      const origin = await serve((_request, response) => {
        requests++;
        response.end('ok');
      });

      const inHeader = await runProbe(bound, `${origin}/`, {
        headers: { 'X-Key': '${secret:API_TOKEN}' },
      });
      const inBody = await runProbe(bound, `${origin}/`, {
        method: 'POST',
        body: '${secret:API_TOKEN}',
      });

      expect(requests).toBe(0);
      expect(inHeader).toMatchObject({
        ok: false,
        error: {
          kind: 'config',
          message: `headers.X-Key: secret 'API_TOKEN' may not be sent to ${origin}: its allowedOrigins do not include that origin`,
        },
      });
      expect(inBody.error).toEqual({
        kind: 'config',
        message: `body: secret 'API_TOKEN' may not be sent to ${origin}: its allowedOrigins do not include that origin`,
      });
      expect(inHeader.connected).toBeUndefined();
    });

    it('sends a bound secret to an origin its allowedOrigins include', async () => {
      let received: string | undefined;
      const origin = await serve((request, response) => {
        received = request.headers['x-key'] as string;
        response.end('ok');
      });
      const bound = createHttpProbeType({
        networkPolicy: LOOPBACK_ALLOWED,
        secrets: new ProbeSecrets({
          API_TOKEN: { value: 's3cr3t-token', allowedOrigins: [origin] },
        }),
      });

      const result = await runProbe(bound, `${origin}/health`, {
        headers: { 'X-Key': '${secret:API_TOKEN}' },
      });

      expect(result).toMatchObject({ ok: true, status: 200 });
      expect(received).toBe('s3cr3t-token');
    });
  });

  describe('https', () => {
    let valid: TestCertificate;
    let expired: TestCertificate;
    beforeAll(() => {
      const now = Date.now();
      valid = createSelfSignedCertificate({
        notBefore: new Date(now - DAY_MS),
        notAfter: new Date(now + 30 * DAY_MS),
      });
      expired = createSelfSignedCertificate({
        notBefore: new Date(now - 10 * DAY_MS),
        notAfter: new Date(now - DAY_MS),
      });
    });

    async function serveTls(certificate: TestCertificate): Promise<string> {
      const server = await startHttpsServer(certificate, (_request, response) =>
        response.end('secure'),
      );
      servers.push(server);
      return `https://localhost:${server.port}/`;
    }

    it('refuses a self-signed certificate by default', async () => {
      const result = await runProbe(http, await serveTls(valid), {});

      expect(result.ok).toBe(false);
      expect(result.error).toEqual({
        kind: 'tls',
        message:
          'TLS verification failed: the certificate is self-signed (DEPTH_ZERO_SELF_SIGNED_CERT)',
      });
    });

    it('accepts it with insecureSkipVerify and reports its expiry', async () => {
      const result = await runProbe(http, await serveTls(valid), {
        tls: { insecureSkipVerify: true },
      });

      expect(result).toMatchObject({ ok: true, status: 200, body: 'secure' });
      expect(result.certificate?.authorized).toBe(false);
      expect(result.certificateExpirationMs).toBeGreaterThan(29 * DAY_MS);
      expect(result.certificateExpirationMs).toBeLessThanOrEqual(30 * DAY_MS);
      expect(result.timings!.tls).toBeGreaterThan(0);
    });

    it('verifies it against a configured ca', async () => {
      const result = await runProbe(http, await serveTls(valid), {
        tls: { ca: valid.cert },
      });

      expect(result).toMatchObject({ ok: true, status: 200 });
      expect(result.certificate).toMatchObject({
        authorized: true,
        chain: [{ subject: 'CN=localhost', issuer: 'CN=localhost' }],
      });
    });

    it('refuses an expired certificate even from a trusted ca', async () => {
      const result = await runProbe(http, await serveTls(expired), {
        tls: { ca: expired.cert },
      });

      expect(result.error).toEqual({
        kind: 'tls',
        message:
          'TLS verification failed: the certificate has expired (CERT_HAS_EXPIRED)',
      });
    });

    it('reports a negative expiry for an expired certificate it was told to accept', async () => {
      const result = await runProbe(http, await serveTls(expired), {
        tls: { insecureSkipVerify: true },
      });

      expect(result.ok).toBe(true);
      expect(result.certificateExpirationMs).toBeLessThan(-DAY_MS + 60_000);
    });
  });
});

describe('redirectedRequest', () => {
  const base = {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Authorization: 'Bearer x',
      'X-Key': 'k',
      'X-Trace': 't',
    },
    body: '{}',
    crossOrigin: false,
    secretBearing: new Set(['x-key']),
    bodyBearsSecret: false,
  };

  it.each([
    [301, 'GET'],
    [302, 'GET'],
    [303, 'GET'],
    [307, 'POST'],
    [308, 'POST'],
  ])('after %i a POST continues as %s', (status, method) => {
    const next = redirectedRequest({ ...base, status });
    expect(next.method).toBe(method);
    expect(next.body).toBe(method === 'POST' ? '{}' : undefined);
    expect('Content-Type' in next.headers).toBe(method === 'POST');
  });

  it('keeps HEAD a HEAD after 303', () => {
    expect(
      redirectedRequest({
        ...base,
        method: 'HEAD',
        body: undefined,
        status: 303,
      }).method,
    ).toBe('HEAD');
  });

  it('drops credentials and secret-bearing headers across origins only', () => {
    expect(
      Object.keys(redirectedRequest({ ...base, status: 307 }).headers),
    ).toEqual(['Content-Type', 'Authorization', 'X-Key', 'X-Trace']);
    expect(
      Object.keys(
        redirectedRequest({ ...base, status: 307, crossOrigin: true }).headers,
      ),
    ).toEqual(['Content-Type', 'X-Trace']);
  });

  it.each([307, 308])(
    'after a cross-origin %i drops a secret-bearing body with its content headers',
    status => {
      const next = redirectedRequest({
        ...base,
        status,
        crossOrigin: true,
        bodyBearsSecret: true,
      });
      expect(next).toEqual({
        method: 'POST',
        headers: { 'X-Trace': 't' },
        body: undefined,
      });
    },
  );

  it('keeps a secret-bearing body on its own origin, and a plain body anywhere', () => {
    expect(
      redirectedRequest({ ...base, status: 307, bodyBearsSecret: true }).body,
    ).toBe('{}');
    expect(
      redirectedRequest({ ...base, status: 307, crossOrigin: true }).body,
    ).toBe('{}');
  });
});
