/**
 * The `http` probe type: one request through undici, redirects followed hop
 * by hop under the network guard, the body read up to a cap.
 */
import {
  HTTP_PROBE_DEFAULTS,
  HTTP_PROBE_LIMITS,
  type HttpProbeConfig,
  httpProbeConfigSchema,
  type ProbeCertificateReport,
  ProbeConfigError,
  type ProbeSecrets,
  type ProbeType,
  targetOrigin,
} from '@vigil/plugin-healthcheck-node';
import { performance } from 'node:perf_hooks';
import { isIP, connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { type buildConnector, Client, type Dispatcher } from 'undici';
import {
  assertLiteralAddressAllowed,
  createGuardedLookup,
} from './networkGuard';
import {
  certificateExpirationMs,
  peerCertificateReport,
} from './peerCertificates';
import { describeProbeError } from './probeErrors';
import { clampWholeNumber } from './probeLimits';
import {
  PROBE_FINISHED,
  type ProbeProgress,
  runProbeWithDeadline,
} from './probeRun';
import type { BuiltinProbeTypeOptions } from './probeTypeOptions';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Read and dropped from a redirect so its connection can be reused. */
const REDIRECT_BODY_DRAIN_BYTES = 64 * 1024;
const USER_AGENT = 'Vigil-Healthcheck/1 (+https://backstage.io)';
/** Never sent to another origin than the one they were configured for. */
const ORIGIN_BOUND_HEADERS = new Set([
  'authorization',
  'proxy-authorization',
  'cookie',
]);

type Headers = Record<string, string>;

interface ConnectionObservation {
  ip?: string;
  certificate?: ProbeCertificateReport;
  readyAt: number;
}

function defaultPort(protocol: string): string {
  return protocol === 'https:' ? '443' : '80';
}

function originKey(protocol: string, hostname: string, port: string): string {
  // `URL.hostname` keeps an IPv6 literal's brackets; undici's connector
  // may hand it over either way.
  const bare = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  return `${protocol}//${bare}:${port || defaultPort(protocol)}`;
}

function parseHttpUrl(target: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(target, base);
  } catch {
    throw new ProbeConfigError(`Target '${target}' is not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ProbeConfigError(`Target '${url.href}' is not http or https`);
  }
  return url;
}

function resolveHeaders(
  configured: Headers | undefined,
  secrets: ProbeSecrets,
  origin: string | undefined,
): { headers: Headers; secretBearing: Set<string> } {
  const headers: Headers = {};
  const secretBearing = new Set<string>();
  for (const [name, value] of Object.entries(configured ?? {})) {
    headers[name] = secrets.resolve(value, { path: `headers.${name}`, origin });
    if (secrets.references(value)) {
      secretBearing.add(name.toLowerCase());
    }
  }
  if (!Object.keys(headers).some(name => name.toLowerCase() === 'user-agent')) {
    headers['user-agent'] = USER_AGENT;
  }
  return { headers, secretBearing };
}

/**
 * The request of the next hop of a redirect, as browsers and undici make
 * it: 303, and 301/302 after a POST, become a GET without a body; headers
 * that carry credentials or secrets stay with their origin, and so does a
 * body that carries a secret (307 and 308 would resend it), with its
 * `content-*` headers.
 * @internal
 */
export function redirectedRequest(options: {
  status: number;
  method: string;
  headers: Headers;
  body: string | undefined;
  crossOrigin: boolean;
  secretBearing: ReadonlySet<string>;
  bodyBearsSecret: boolean;
}): { method: string; headers: Headers; body: string | undefined } {
  const becomesGet =
    (options.status === 303 && options.method !== 'HEAD') ||
    ((options.status === 301 || options.status === 302) &&
      options.method === 'POST');
  const dropsBody =
    becomesGet || (options.crossOrigin && options.bodyBearsSecret);
  const headers: Headers = {};
  for (const [name, value] of Object.entries(options.headers)) {
    const lower = name.toLowerCase();
    if (dropsBody && lower.startsWith('content-')) {
      continue;
    }
    if (
      options.crossOrigin &&
      (ORIGIN_BOUND_HEADERS.has(lower) || options.secretBearing.has(lower))
    ) {
      continue;
    }
    headers[name] = value;
  }
  return {
    method: becomesGet ? 'GET' : options.method,
    headers,
    body: dropsBody ? undefined : options.body,
  };
}

async function readCappedBody(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
  declaredLength: number | undefined,
): Promise<{ text: string; truncated: boolean }> {
  const chunks: Buffer[] = [];
  let size = 0;
  let reachedCap = maxBytes === 0;
  if (!reachedCap) {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const room = maxBytes - size;
      if (chunk.length >= room) {
        chunks.push(chunk.subarray(0, room));
        size += room;
        reachedCap = true;
        // Leaving the loop destroys the stream: nothing past the cap is read.
        break;
      }
      chunks.push(chunk);
      size += chunk.length;
    }
  }
  if (reachedCap) {
    body.destroy();
  }
  return {
    text: Buffer.concat(chunks, size).toString('utf8'),
    truncated: reachedCap && declaredLength !== size,
  };
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Creates the `http` probe type.
 * @public
 */
export function createHttpProbeType(
  options: BuiltinProbeTypeOptions,
): ProbeType<HttpProbeConfig> {
  const { networkPolicy, secrets } = options;

  return {
    type: 'http',
    configSchema: httpProbeConfigSchema,
    run: context =>
      runProbeWithDeadline(context, secrets, (signal, progress) =>
        probeHttp({
          target: context.target,
          config: context.config ?? {},
          signal,
          progress,
        }),
      ),
  };

  async function probeHttp({
    target,
    config,
    signal,
    progress,
  }: {
    target: string;
    config: HttpProbeConfig;
    signal: AbortSignal;
    progress: ProbeProgress;
  }) {
    let url = parseHttpUrl(target);
    const followRedirects =
      config.followRedirects ?? HTTP_PROBE_DEFAULTS.followRedirects;
    const maxRedirects = clampWholeNumber(config.maxRedirects, {
      fallback: HTTP_PROBE_DEFAULTS.maxRedirects,
      max: HTTP_PROBE_LIMITS.maxRedirects,
    });
    const maxBodyBytes = clampWholeNumber(config.maxBodyBytes, {
      fallback: HTTP_PROBE_DEFAULTS.maxBodyBytes,
      max: HTTP_PROBE_LIMITS.maxBodyBytes,
    });
    // Secrets are resolved for the first hop's origin, which their
    // allowedOrigins must include; redirects elsewhere leave them behind.
    // Without headers or a body nothing is resolved (nor the URL parsed
    // again for it).
    const firstHop =
      config.headers !== undefined || config.body !== undefined
        ? targetOrigin('http', url.href)
        : undefined;
    const resolved = resolveHeaders(config.headers, secrets, firstHop);
    let request = {
      method: config.method ?? HTTP_PROBE_DEFAULTS.method,
      headers: resolved.headers,
      body:
        config.body === undefined
          ? undefined
          : secrets.resolve(config.body, { path: 'body', origin: firstHop }),
    };
    const bodyBearsSecret =
      config.body !== undefined && secrets.references(config.body);

    // Milliseconds per phase, summed over redirect hops: `dns` the lookup,
    // `connect` the TCP handshake, `tls` the TLS handshake, `firstByte` from
    // the connection being ready (or the request, on a reused connection)
    // to the response headers. undici tells us when the headers are parsed,
    // not when their first byte came, so `firstByte` includes parsing them.
    const timings = { dns: 0, connect: 0, tls: 0, firstByte: 0 };
    let waitingPhase = '';
    const connections = new Map<string, ConnectionObservation>();
    const guardedLookup = createGuardedLookup({
      policy: networkPolicy,
      resolve: options.resolve,
    });
    // undici speaks HTTP; the sockets are ours, so that every one is
    // guarded and its phases are timed from its own events.
    const connect: buildConnector.connector = (connectOptions, callback) => {
      const { hostname, protocol, port, servername } = connectOptions;
      const key = originKey(protocol, hostname, port);
      try {
        assertLiteralAddressAllowed(hostname, networkPolicy);
      } catch (error) {
        callback(error as Error, null);
        return;
      }
      progress.phase = `while connecting to ${key}`;
      const isTls = protocol === 'https:';
      const started = performance.now();
      let lookedUpAt: number | undefined;
      let connectedAt = started;
      const endpoint = {
        host: hostname,
        port: Number(port || defaultPort(protocol)),
        lookup: guardedLookup,
        noDelay: true,
      };
      const socket: Socket = isTls
        ? tlsConnect({
            ...endpoint,
            servername:
              servername || (isIP(hostname) === 0 ? hostname : undefined),
            rejectUnauthorized: !config.tls?.insecureSkipVerify,
            ...(config.tls?.ca ? { ca: config.tls.ca } : {}),
            ALPNProtocols: ['http/1.1'],
          })
        : netConnect(endpoint);
      const observation: ConnectionObservation = { readyAt: started };
      let settled = false;
      socket.once(isTls ? 'secureConnect' : 'connect', () => {
        settled = true;
        progress.phase = waitingPhase;
        observation.readyAt = performance.now();
        connections.set(key, observation);
        callback(null, socket);
      });
      socket.once('error', error => {
        if (!settled) {
          settled = true;
          callback(error, null);
        }
      });
      socket.once('lookup', () => {
        lookedUpAt = performance.now();
        timings.dns += lookedUpAt - started;
      });
      socket.once('connect', () => {
        connectedAt = performance.now();
        timings.connect += connectedAt - (lookedUpAt ?? started);
        // Read once: each read of remoteAddress is a getpeername call.
        const ip = socket.remoteAddress;
        observation.ip = ip;
        progress.partial.ip = ip;
        progress.partial.connected = true;
        if (isTls) {
          progress.phase = `during the TLS handshake with ${key}`;
        }
      });
      if (isTls) {
        socket.prependOnceListener('secureConnect', () => {
          timings.tls += performance.now() - connectedAt;
          observation.certificate = peerCertificateReport(socket as TLSSocket);
        });
      }
    };

    // A client per origin a hop goes to (an Agent would do the same, at
    // the cost of cloning its options and relaying every client's events).
    const clients = new Map<string, Client>();
    const clientFor = (origin: string) => {
      let client = clients.get(origin);
      if (!client) {
        client = new Client(origin, {
          connect,
          headersTimeout: 0,
          bodyTimeout: 0,
        });
        clients.set(origin, client);
      }
      return client;
    };
    const destroyClients = (reason?: Error) => {
      for (const client of clients.values()) {
        client.destroy(reason ?? null).catch(() => {});
      }
    };
    const closeAgent = () => destroyClients();
    signal.addEventListener('abort', closeAgent, { once: true });

    try {
      for (let redirects = 0; ; redirects++) {
        const hopStarted = performance.now();
        waitingPhase = `while waiting for the response from ${url.origin}`;
        progress.phase = waitingPhase;
        let response: Dispatcher.ResponseData;
        try {
          response = await clientFor(url.origin).request({
            path: `${url.pathname}${url.search}`,
            method: request.method as Dispatcher.HttpMethod,
            headers: request.headers,
            body: request.body,
            signal,
          });
        } catch (error) {
          throw redirects === 0 ? error : afterRedirects(error, redirects, url);
        }
        const headersAt = performance.now();
        const connection = connections.get(
          originKey(url.protocol, url.hostname, url.port),
        );
        timings.firstByte +=
          headersAt - Math.max(hopStarted, connection?.readyAt ?? hopStarted);

        const location = firstHeader(response.headers.location);
        if (
          followRedirects &&
          REDIRECT_STATUSES.has(response.statusCode) &&
          location !== undefined
        ) {
          await response.body
            .dump({ limit: REDIRECT_BODY_DRAIN_BYTES })
            .catch(() => {});
          if (redirects >= maxRedirects) {
            return {
              ok: false,
              status: response.statusCode,
              ip: connection?.ip,
              connected: true,
              timings,
              error: {
                kind: 'other' as const,
                message: `Stopped after ${maxRedirects} redirects: ${url.href} redirects again, to ${location}`,
              },
            };
          }
          let next: URL;
          try {
            next = parseHttpUrl(location, url);
          } catch {
            return {
              ok: false,
              status: response.statusCode,
              ip: connection?.ip,
              connected: true,
              timings,
              error: {
                kind: 'other' as const,
                message: `${url.href} redirects to '${location}', which is not an http or https URL`,
              },
            };
          }
          request = redirectedRequest({
            status: response.statusCode,
            ...request,
            crossOrigin: next.origin !== url.origin,
            secretBearing: resolved.secretBearing,
            bodyBearsSecret,
          });
          url = next;
          continue;
        }

        progress.phase = `while reading the response body from ${url.origin}`;
        const declared = Number(
          firstHeader(response.headers['content-length']),
        );
        const body = await readCappedBody(
          response.body,
          maxBodyBytes,
          Number.isFinite(declared) ? declared : undefined,
        );
        const certificate = connection?.certificate;
        return {
          ok: true,
          status: response.statusCode,
          body: body.text,
          ...(body.truncated ? { bodyTruncated: true } : {}),
          ip: connection?.ip,
          connected: true,
          timings,
          ...(certificate
            ? {
                certificate,
                certificateExpirationMs: certificateExpirationMs(
                  certificate,
                  Date.now(),
                ),
              }
            : {}),
        };
      }
    } finally {
      signal.removeEventListener('abort', closeAgent);
      // Once the answer is read no request is pending: the error undici
      // would make for the destroy (and format, per socket) reaches no one.
      if (!signal.aborted) {
        destroyClients(PROBE_FINISHED);
      }
    }
  }
}

/**
 * The same failure, saying it happened after following redirects. The kind
 * comes from the cause, which `classifyProbeError` follows.
 */
function afterRedirects(error: unknown, redirects: number, url: URL): Error {
  return new Error(
    `After ${redirects} redirect${redirects === 1 ? '' : 's'}, to ${
      url.href
    }: ${describeProbeError(error)}`,
    { cause: error },
  );
}
