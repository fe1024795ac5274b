/**
 * What the built-in probe types (`http`, `tcp`, `dns`, `tls`) accept in a
 * check: their fields, JSON schemas and the checks a schema cannot make.
 * The backend runs them; the catalog module and the API validate checks
 * against these same declarations.
 */
import type { ProbeConfigProblem, ProbeType } from '../probes';
import { expectedPatternProblem } from './expectedPattern';

/**
 * The longest `ca` a check may give, in characters: a bundle of a few dozen
 * PEM certificates.
 * @public
 */
export const MAX_CA_PEM_CHARS = 256 * 1024;

/**
 * The fields of an `http` check.
 * @public
 */
export interface HttpProbeConfig {
  /** Upper case; `GET` by default. */
  method?: string;
  /** Values may reference `${secret:NAME}`. */
  headers?: Record<string, string>;
  /** May reference `${secret:NAME}`. */
  body?: string;
  /** Follow 301, 302, 303, 307 and 308 responses; `true` by default. */
  followRedirects?: boolean;
  /** How many redirects to follow before failing; 5 by default. */
  maxRedirects?: number;
  /** How much of the response body to read for conditions; 1 MiB by default. */
  maxBodyBytes?: number;
  tls?: {
    /** Accept any certificate. Off by default. */
    insecureSkipVerify?: boolean;
    /** PEM certificates to trust instead of Node's bundled authorities. */
    ca?: string;
  };
}

/** @public */
export const HTTP_PROBE_DEFAULTS = {
  method: 'GET',
  followRedirects: true,
  maxRedirects: 5,
  maxBodyBytes: 1024 * 1024,
} as const;

/**
 * The most redirects and body bytes an `http` check may ask for; applied at
 * run time too.
 * @public
 */
export const HTTP_PROBE_LIMITS = {
  maxRedirects: 20,
  maxBodyBytes: 16 * 1024 * 1024,
} as const;

/**
 * JSON schema of {@link HttpProbeConfig}.
 * @public
 */
export const httpProbeConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    method: { type: 'string', pattern: '^[A-Z][A-Z-]*$', maxLength: 32 },
    headers: {
      type: 'object',
      maxProperties: 50,
      propertyNames: {
        pattern: "^[!#$%&'*+.^_`|~0-9A-Za-z-]+$",
        maxLength: 256,
      },
      additionalProperties: { type: 'string', maxLength: 8192 },
    },
    body: { type: 'string', maxLength: 64 * 1024 },
    followRedirects: { type: 'boolean' },
    maxRedirects: {
      type: 'integer',
      minimum: 0,
      maximum: HTTP_PROBE_LIMITS.maxRedirects,
    },
    maxBodyBytes: {
      type: 'integer',
      minimum: 0,
      maximum: HTTP_PROBE_LIMITS.maxBodyBytes,
    },
    tls: {
      type: 'object',
      additionalProperties: false,
      properties: {
        insecureSkipVerify: { type: 'boolean' },
        ca: { type: 'string', maxLength: MAX_CA_PEM_CHARS },
      },
    },
  },
} as const;

/**
 * The record types a `dns` check can ask for.
 * @public
 */
export const DNS_RECORD_TYPES = [
  'A',
  'AAAA',
  'CNAME',
  'MX',
  'TXT',
  'NS',
  'SRV',
] as const;

/**
 * One of {@link DNS_RECORD_TYPES}.
 * @public
 */
export type DnsRecordType = (typeof DNS_RECORD_TYPES)[number];

/**
 * The fields of a `dns` check. The target is the name to query.
 * @public
 */
export interface DnsProbeConfig {
  /** `A` by default. */
  recordType?: DnsRecordType;
  /**
   * The server to ask, `address` or `address:port` (`[v6]:port`); the
   * system's resolver by default.
   */
  server?: string;
}

/**
 * JSON schema of {@link DnsProbeConfig}.
 * @public
 */
export const dnsProbeConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    recordType: { type: 'string', enum: [...DNS_RECORD_TYPES] },
    server: { type: 'string', minLength: 1, maxLength: 261 },
  },
} as const;

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
 * The longest `send` of a `tcp` check, in bytes once its secrets are filled
 * in (and so in characters too); a probe says hello, it does not upload.
 * @public
 */
export const TCP_MAX_SEND_BYTES = 64 * 1024;

/**
 * JSON schema of {@link TcpProbeConfig}.
 * @public
 */
export const tcpProbeConfigSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    send: { type: 'string', maxLength: TCP_MAX_SEND_BYTES },
    expect: { type: 'string', minLength: 1, maxLength: 1024 },
  },
} as const;

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
 * What the `tcp` schema cannot judge: whether `expect` compiles.
 * @public
 */
export function validateTcpProbeConfig(
  config: TcpProbeConfig,
): ProbeConfigProblem[] {
  const problem =
    config.expect === undefined
      ? undefined
      : expectedPatternProblem(config.expect);
  return problem ? [{ path: 'expect', reason: problem }] : [];
}

/**
 * The built-in probe types as validation sees them: name, config schema and
 * the checks a schema cannot make. No probe runs from these.
 * @public
 */
export function builtinProbeTypeDeclarations(): Array<
  Pick<ProbeType<any>, 'type' | 'configSchema' | 'validateConfig'>
> {
  return [
    { type: 'http', configSchema: httpProbeConfigSchema },
    {
      type: 'tcp',
      configSchema: tcpProbeConfigSchema,
      validateConfig: validateTcpProbeConfig,
    },
    { type: 'dns', configSchema: dnsProbeConfigSchema },
    { type: 'tls', configSchema: tlsProbeConfigSchema },
  ];
}
