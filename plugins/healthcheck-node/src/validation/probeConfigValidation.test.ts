import { builtinProbeTypeDeclarations } from './builtinProbeTypes';
import { validateProbeConfig } from '@vigil/plugin-healthcheck-common';

const byName = new Map(
  builtinProbeTypeDeclarations().map(probeType => [probeType.type, probeType]),
);

describe('validateProbeConfig', () => {
  it.each([
    ['http', {}],
    [
      'http',
      {
        method: 'POST',
        headers: { Authorization: 'Bearer ${secret:TOKEN}' },
        body: '{}',
        followRedirects: false,
        maxRedirects: 0,
        maxBodyBytes: 4096,
        tls: { insecureSkipVerify: true, ca: '-----BEGIN CERTIFICATE-----' },
      },
    ],
    ['tcp', { send: 'PING\r\n', expect: '/^\\+PONG/' }],
    ['dns', { recordType: 'MX', server: '1.1.1.1:53' }],
    ['tls', { servername: 'example.com', insecureSkipVerify: false }],
  ])('accepts a well-formed %s config', (type, config) => {
    expect(validateProbeConfig(byName.get(type)!, config)).toEqual([]);
  });

  it.each([
    ['http', { maxRedirects: 21 }, ['maxRedirects: must be <= 20']],
    [
      'http',
      { method: 'get' },
      ['method: must match pattern "^[A-Z][A-Z-]*$"'],
    ],
    [
      'http',
      { headers: { 'X-Count': 3 } },
      ['headers.X-Count: must be string'],
    ],
    ['http', { tls: { verify: false } }, ["tls: unknown field 'verify'"]],
    ['http', { maxBodyBytes: -1 }, ['maxBodyBytes: must be >= 0']],
    ['tcp', { expect: '' }, ['expect: must NOT have fewer than 1 characters']],
    [
      'dns',
      { recordType: 'PTR' },
      ['recordType: must be one of A, AAAA, CNAME, MX, TXT, NS, SRV'],
    ],
    ['tls', { sni: 'x' }, ["unknown field 'sni'"]],
    [
      'http',
      { body: 'x'.repeat(64 * 1024 + 1) },
      ['body: must NOT have more than 65536 characters'],
    ],
    [
      'tcp',
      { expect: 'x'.repeat(1025) },
      ['expect: must NOT have more than 1024 characters'],
    ],
  ])('refuses %s config %j', (type, config, problems) => {
    const lines = validateProbeConfig(byName.get(type)!, config).map(p =>
      p.path ? `${p.path}: ${p.reason}` : p.reason,
    );
    expect(lines).toEqual(problems);
  });

  it('accepts anything for a type without a schema', () => {
    expect(validateProbeConfig({ type: 'custom' }, { whatever: true })).toEqual(
      [],
    );
  });
});
