import { ProbeConfigError } from '@vigil/plugin-healthcheck-node';
import { NetworkGuardError } from './networkGuard';
import { classifyProbeError, describeProbeError } from './probeErrors';

const withCode = (code: string, message = `failed: ${code}`) =>
  Object.assign(new Error(message), { code });

describe('classifyProbeError', () => {
  it.each([
    ['ECONNREFUSED', 'refused'],
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['EVIGIL_DNS_BUSY', 'dns'],
    ['ETIMEOUT', 'timeout'],
    ['ECONNRESET', 'reset'],
    ['EPIPE', 'reset'],
    ['UND_ERR_SOCKET', 'reset'],
    ['ETIMEDOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['DEPTH_ZERO_SELF_SIGNED_CERT', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['EHOSTUNREACH', 'other'],
  ])('files %s under %s', (code, kind) => {
    expect(classifyProbeError(withCode(code))).toBe(kind);
  });

  it('knows its own errors', () => {
    expect(
      classifyProbeError(
        new NetworkGuardError('10.0.0.1', {
          allowed: false,
          reason: '10.0.0.1 is private (10.0.0.0/8)',
          setting: 'healthcheck.network.allowPrivate',
        }),
      ),
    ).toBe('guard');
    expect(classifyProbeError(new ProbeConfigError('bad target'))).toBe(
      'config',
    );
  });

  it('follows the cause of a wrapping error', () => {
    const wrapped = new Error('after 1 redirect', {
      cause: withCode('ECONNREFUSED'),
    });
    expect(classifyProbeError(wrapped)).toBe('refused');
  });

  it('calls anything else other', () => {
    expect(classifyProbeError(new Error('?'))).toBe('other');
    expect(classifyProbeError('a string')).toBe('other');
    expect(classifyProbeError(undefined)).toBe('other');
  });
});

describe('describeProbeError', () => {
  it('puts certificate failures into words', () => {
    expect(describeProbeError(withCode('CERT_HAS_EXPIRED'))).toBe(
      'TLS verification failed: the certificate has expired (CERT_HAS_EXPIRED)',
    );
  });

  it('adds the code when the message lacks it', () => {
    expect(describeProbeError(withCode('EPIPE', 'write failed'))).toBe(
      'write failed (EPIPE)',
    );
    expect(
      describeProbeError(withCode('ECONNREFUSED', 'connect ECONNREFUSED x')),
    ).toBe('connect ECONNREFUSED x');
  });

  it('describes things that are not errors', () => {
    expect(describeProbeError('plain')).toBe('plain');
  });
});
