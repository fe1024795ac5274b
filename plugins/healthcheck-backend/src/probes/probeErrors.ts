import type { ProbeErrorKind } from '@vigil/plugin-healthcheck-node';

const KIND_BY_CODE: Record<string, ProbeErrorKind> = {
  EVIGIL_GUARD: 'guard',
  EVIGIL_PROBE_CONFIG: 'config',
  EVIGIL_DNS_BUSY: 'dns',
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'dns',
  ENODATA: 'dns',
  EAI_AGAIN: 'dns',
  EAI_FAIL: 'dns',
  EAI_NONAME: 'dns',
  ESERVFAIL: 'dns',
  EREFUSED: 'dns',
  EBADRESP: 'dns',
  ECONNRESET: 'reset',
  EPIPE: 'reset',
  ECONNABORTED: 'reset',
  UND_ERR_SOCKET: 'reset',
  UND_ERR_CLOSED: 'reset',
  ETIMEDOUT: 'timeout',
  ETIMEOUT: 'timeout',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
};

/**
 * OpenSSL's certificate verification codes, as Node reports them. Handshake
 * failures arrive as `ERR_SSL_*` and `ERR_TLS_*`.
 */
const TLS_VERIFY_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
  'CERT_CHAIN_TOO_LONG',
  'PATH_LENGTH_EXCEEDED',
]);

/** Plain words for the verification failures people meet most. */
const TLS_VERIFY_WORDS: Record<string, string> = {
  CERT_HAS_EXPIRED: 'the certificate has expired',
  CERT_NOT_YET_VALID: 'the certificate is not valid yet',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'the chain ends in an untrusted self-signed root',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    'the certificate is not signed by a trusted authority',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    'the issuer of the certificate is not trusted',
  ERR_TLS_CERT_ALTNAME_INVALID: 'the certificate does not name this host',
};

/**
 * What a failed certificate verification means, in words, with the code.
 * @internal
 */
export function describeTlsVerifyError(code: string): string {
  const words = TLS_VERIFY_WORDS[code];
  return words ? `${words} (${code})` : code;
}

function tlsKindFor(code: string): boolean {
  return (
    TLS_VERIFY_CODES.has(code) ||
    code.startsWith('ERR_SSL_') ||
    code.startsWith('ERR_TLS_')
  );
}

/**
 * The kind of a probe failure, from the error's `code` or, failing that,
 * the codes of its causes. Unknown errors are `other`.
 * @internal
 */
export function classifyProbeError(error: unknown): ProbeErrorKind {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    // Backstage's InputError: a secret reference that no longer resolves.
    if ((current as { name?: unknown }).name === 'InputError') {
      return 'config';
    }
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string') {
      const kind = KIND_BY_CODE[code];
      if (kind) {
        return kind;
      }
      if (tlsKindFor(code)) {
        return 'tls';
      }
    }
    current = (current as { cause?: unknown }).cause;
  }
  return 'other';
}

/**
 * A readable message for a probe failure, with the error code where the
 * message does not already carry it.
 * @internal
 */
export function describeProbeError(error: unknown): string {
  // Duck-typed: errors from Node's core are not `instanceof` the Error of
  // another realm, such as a test sandbox.
  if (typeof (error as { message?: unknown } | null)?.message !== 'string') {
    return String(error);
  }
  const {
    code,
    message: text,
    name,
  } = error as {
    code?: unknown;
    message: string;
    name?: string;
  };
  if (typeof code === 'string' && TLS_VERIFY_CODES.has(code)) {
    return `TLS verification failed: ${describeTlsVerifyError(code)}`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') {
    return `TLS verification failed: ${text}`;
  }
  const message = text || name || 'unknown error';
  if (
    typeof code === 'string' &&
    !code.startsWith('EVIGIL_') &&
    !message.includes(code)
  ) {
    return `${message} (${code})`;
  }
  return message;
}
