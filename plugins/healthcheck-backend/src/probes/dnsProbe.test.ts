import { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import {
  createDnsProbeType,
  formatDnsAnswer,
  keepDnsAnswers,
  rcodeOfDnsError,
} from './dnsProbe';
import type { AddressResolver } from './CaresAddressResolver';
import {
  type LoopbackServer,
  startDnsServer,
} from './__testUtils__/loopbackServers';
import {
  LOOPBACK_ALLOWED,
  NOTHING_ALLOWED,
  runProbe,
} from './__testUtils__/runProbe';

const secrets = new ProbeSecrets({});
const dns = createDnsProbeType({ networkPolicy: LOOPBACK_ALLOWED, secrets });

let server: LoopbackServer;
let at: string;
beforeAll(async () => {
  server = await startDnsServer({
    'app.test': { A: ['10.0.0.5', '10.0.0.6'], TXT: ['v=spf1 -all'] },
    'empty.test': {},
    'broken.test': 'SERVFAIL',
    'missing.test': 'NXDOMAIN',
    'slow.test': 'SILENT',
  });
  at = `127.0.0.1:${server.port}`;
});
afterAll(() => server.close());

describe('dns probe', () => {
  it('resolves localhost A through the system resolver', async () => {
    const result = await runProbe(dns, 'localhost', {});

    expect(result).toMatchObject({ ok: true, dnsRcode: 'NOERROR' });
    expect(result.dnsAnswers).toContain('127.0.0.1');
    expect(result.error).toBeUndefined();
  });

  it('asks a configured server and reports every answer', async () => {
    const result = await runProbe(dns, 'app.test', { server: at });

    expect(result).toMatchObject({
      ok: true,
      dnsRcode: 'NOERROR',
      dnsAnswers: ['10.0.0.5', '10.0.0.6'],
      body: '10.0.0.5\n10.0.0.6',
    });
  });

  it('asks for the configured record type', async () => {
    const result = await runProbe(dns, 'app.test', {
      server: at,
      recordType: 'TXT',
    });

    expect(result).toMatchObject({
      ok: true,
      dnsRcode: 'NOERROR',
      dnsAnswers: ['v=spf1 -all'],
    });
  });

  it.each([
    ['missing.test', 'NXDOMAIN'],
    ['broken.test', 'SERVFAIL'],
    ['empty.test', 'NOERROR'],
  ])(
    'reports %s as an answer with rcode %s and no records',
    async (name, rcode) => {
      const result = await runProbe(dns, name, { server: at });

      expect(result).toMatchObject({
        ok: true,
        dnsRcode: rcode,
        dnsAnswers: [],
      });
      expect(result.error).toBeUndefined();
    },
  );

  it('times out against a server that never answers', async () => {
    const result = await runProbe(
      dns,
      'slow.test',
      { server: at },
      { timeoutMs: 300 },
    );

    expect(result).toMatchObject({
      ok: false,
      error: {
        kind: 'timeout',
        message: `Timed out after 300 ms while resolving A slow.test at ${at}`,
      },
    });
    expect(result.dnsRcode).toBeUndefined();
  });

  it('refuses a loopback server under the default policy', async () => {
    const closedDns = createDnsProbeType({
      networkPolicy: NOTHING_ALLOWED,
      secrets,
    });

    const result = await runProbe(closedDns, 'app.test', { server: at });

    expect(result.error).toEqual({
      kind: 'guard',
      message:
        'Network guard: 127.0.0.1 is loopback (127.0.0.0/8); set healthcheck.network.allowLoopback: true to allow it',
    });
  });

  it('refuses a server given by name as config', async () => {
    const result = await runProbe(dns, 'app.test', {
      server: 'dns.example.com',
    });

    expect(result.error).toEqual({
      kind: 'config',
      message:
        "DNS server 'dns.example.com' must be an IP address, optionally with a port",
    });
  });
});

describe('what a dns probe keeps of the answers', () => {
  it('keeps the first 100 of the addresses a resolver gives, and says so', async () => {
    const flood: AddressResolver = (_name, _options, callback) =>
      callback(
        null,
        Array.from({ length: 1000 }, (_, n) => ({
          address: `203.0.${n >> 8}.${n & 0xff}`,
          family: 4,
        })),
      );
    const probe = createDnsProbeType({
      networkPolicy: LOOPBACK_ALLOWED,
      secrets,
      resolve: flood,
    });

    const result = await runProbe(probe, 'flood.test', {});

    expect(result).toMatchObject({ ok: true, bodyTruncated: true });
    expect(result.dnsAnswers).toHaveLength(100);
    expect(result.dnsAnswers?.[99]).toBe('203.0.0.99');
  });

  it('keeps answers within the limits as they are', () => {
    expect(keepDnsAnswers(['a', 'b'])).toEqual({
      answers: ['a', 'b'],
      truncated: false,
    });
  });

  it('cuts each answer to 4 KiB and all of them to 64 KiB', () => {
    const kept = keepDnsAnswers(Array(50).fill('t'.repeat(10_000)));

    expect(kept.truncated).toBe(true);
    expect(kept.answers).toHaveLength(16);
    expect(kept.answers[0]).toHaveLength(4096);
    expect(kept.answers.join('').length).toBeLessThanOrEqual(64 * 1024);
  });
});

describe('formatDnsAnswer', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    [['v=spf1 ', 'include:x -all'], 'v=spf1 include:x -all'],
    [{ priority: 10, exchange: 'mx.example.com' }, '10 mx.example.com'],
    [
      { priority: 1, weight: 5, port: 5060, name: 'sip.example.com' },
      '1 5 5060 sip.example.com',
    ],
  ])('writes %j as %j', (record, text) => {
    expect(formatDnsAnswer(record)).toBe(text);
  });
});

describe('rcodeOfDnsError', () => {
  it.each([
    ['ENODATA', 'NOERROR'],
    ['ENOTFOUND', 'NXDOMAIN'],
    ['ESERVFAIL', 'SERVFAIL'],
    ['EREFUSED', 'REFUSED'],
    ['EFORMERR', 'FORMERR'],
    ['ENOTIMP', 'NOTIMP'],
    ['ETIMEOUT', undefined],
    ['ECONNREFUSED', undefined],
    ['EBADRESP', undefined],
  ])('maps %s to %s', (code, rcode) => {
    expect(rcodeOfDnsError(Object.assign(new Error(code), { code }))).toBe(
      rcode,
    );
  });
});
