import { parseHostPort } from './targets';

describe('parseHostPort', () => {
  it.each([
    ['db.internal:5432', { host: 'db.internal', port: 5432 }],
    ['tcp://db.internal:5432', { host: 'db.internal', port: 5432 }],
    ['10.0.0.7:22', { host: '10.0.0.7', port: 22 }],
    ['[::1]:6379', { host: '::1', port: 6379 }],
    ['tcp://[2001:db8::5]:80/', { host: '2001:db8::5', port: 80 }],
  ])('reads %j', (target, expected) => {
    expect(parseHostPort(target, { scheme: 'tcp' })).toEqual(expected);
  });

  it('uses the default port when the target has none', () => {
    expect(
      parseHostPort('example.com', { scheme: 'tls', defaultPort: 443 }),
    ).toEqual({ host: 'example.com', port: 443 });
    expect(
      parseHostPort('tls://[::1]', { scheme: 'tls', defaultPort: 443 }),
    ).toEqual({ host: '::1', port: 443 });
  });

  it.each([
    ['', 'is not host:port'],
    ['::1:80', 'is not host:port'],
    ['http://example.com:80', 'is not host:port'],
    ['a b:80', 'is not host:port'],
    ['example.com', 'needs a port'],
    ['example.com:0', 'outside 1-65535'],
    ['example.com:65536', 'outside 1-65535'],
  ])('refuses %j: %s', (target, message) => {
    expect(() => parseHostPort(target, { scheme: 'tcp' })).toThrow(message);
  });
});
