import { pbkdf2 } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigReader } from '@backstage/config';
import {
  CaresAddressResolver,
  DEFAULT_NAME_RESOLUTION,
  readNameResolutionSettings,
} from './CaresAddressResolver';
import { createGuardedLookup, NetworkGuardError } from './networkGuard';
import {
  type LoopbackDnsServer,
  startDnsServer,
} from './__testUtils__/loopbackServers';

// The lookups that hang are given 2 s; the rest is slack for a busy machine.
jest.setTimeout(20_000);

let dns: LoopbackDnsServer;
let silent: LoopbackDnsServer;
let dir: string;
beforeAll(async () => {
  // Answers its zone; never answers anything else.
  dns = await startDnsServer(
    {
      'app.test': { A: ['203.0.113.7', '203.0.113.8'] },
      'app.corp.test': { A: ['203.0.113.9'] },
      'rebind.test': { A: ['127.0.0.1'] },
      'missing.test': 'NXDOMAIN',
    },
    { otherNames: 'SILENT' },
  );
  silent = await startDnsServer({}, { otherNames: 'SILENT' });
  dir = await mkdtemp(join(tmpdir(), 'vigil-resolver-'));
});
afterAll(async () => {
  await Promise.all([dns.close(), silent.close()]);
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  dns.questions.length = 0;
});

function resolverAt(
  server: LoopbackDnsServer,
  options: ConstructorParameters<typeof CaresAddressResolver>[0] = {},
) {
  return new CaresAddressResolver({
    servers: [`127.0.0.1:${server.port}`],
    hostsFile: null,
    resolvConf: null,
    ...options,
  });
}

function lookUp(
  resolver: CaresAddressResolver,
  hostname: string,
  family = 0,
): Promise<{ error?: NodeJS.ErrnoException; addresses?: LookupAddress[] }> {
  return new Promise(done =>
    resolver.resolve(hostname, { family, all: true }, (error, addresses) =>
      done(error ? { error } : { addresses }),
    ),
  );
}

const elapsedSince = (start: number) => performance.now() - start;

describe('CaresAddressResolver', () => {
  it('asks DNS for A and AAAA and answers IPv4 first', async () => {
    const resolver = resolverAt(dns);

    expect(await lookUp(resolver, 'app.test')).toEqual({
      addresses: [
        { address: '203.0.113.7', family: 4 },
        { address: '203.0.113.8', family: 4 },
      ],
    });
    expect(dns.questions.sort()).toEqual(['app.test A', 'app.test AAAA']);
  });

  it('asks only for the family the caller wants', async () => {
    const resolver = resolverAt(dns);

    expect((await lookUp(resolver, 'app.test', 4)).addresses).toHaveLength(2);
    expect(dns.questions).toEqual(['app.test A']);
    expect((await lookUp(resolver, 'app.test', 6)).error).toMatchObject({
      code: 'ENODATA',
      message: 'app.test has no IPv6 address (ENODATA)',
    });
  });

  it('says a name DNS does not know does not exist', async () => {
    const { error } = await lookUp(resolverAt(dns), 'missing.test');

    expect(error).toMatchObject({
      code: 'ENOTFOUND',
      hostname: 'missing.test',
      message: 'missing.test does not exist (ENOTFOUND)',
    });
  });

  it('answers localhost and names under it with loopback, never asking DNS (RFC 6761)', async () => {
    const resolver = resolverAt(dns);

    expect(await lookUp(resolver, 'localhost')).toEqual({
      addresses: [
        { address: '127.0.0.1', family: 4 },
        { address: '::1', family: 6 },
      ],
    });
    expect((await lookUp(resolver, 'app.localhost', 4)).addresses).toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
    expect(dns.questions).toEqual([]);
  });

  it('answers an IP address as itself, and asynchronously, as dns.lookup does', async () => {
    const resolver = resolverAt(dns);
    let answered = false;
    const answer = new Promise(done =>
      resolver.resolve('203.0.113.1', { all: true }, (_error, addresses) => {
        answered = true;
        done(addresses);
      }),
    );

    expect(answered).toBe(false);
    expect(await answer).toEqual([{ address: '203.0.113.1', family: 4 }]);
  });

  it('answers from the hosts file before DNS, and reads it again once it is 30 s old', async () => {
    const hostsFile = join(dir, 'hosts');
    await writeFile(hostsFile, '10.0.0.1 app.test\n');
    let now = 1_000_000;
    const resolver = resolverAt(dns, {
      hostsFile,
      clock: { now: () => now },
    });

    expect((await lookUp(resolver, 'APP.test')).addresses).toEqual([
      { address: '10.0.0.1', family: 4 },
    ]);
    await writeFile(hostsFile, '10.0.0.2 app.test\n');
    now += 29_999;
    expect((await lookUp(resolver, 'app.test')).addresses?.[0].address).toBe(
      '10.0.0.1',
    );

    now += 1;
    let address: string | undefined;
    const deadline = performance.now() + 5_000;
    while (address !== '10.0.0.2' && performance.now() < deadline) {
      // Answers from the hosts file come without I/O: give the reread its turn.
      await new Promise(resolve => setTimeout(resolve, 10));
      address = (await lookUp(resolver, 'app.test')).addresses?.[0].address;
    }
    expect(address).toBe('10.0.0.2');
    expect(dns.questions).toEqual([]);
  });

  it('answers from the hosts file and for localhost while every slot and place in the queue is held by lookups that hang', async () => {
    const hostsFile = join(dir, 'hosts-busy');
    await writeFile(hostsFile, '10.0.0.7 db.internal\n');
    const resolver = resolverAt(silent, {
      hostsFile,
      timeoutMs: 1_000,
      maxInFlight: 2,
      maxQueued: 0,
    });
    const hanging = [
      lookUp(resolver, 'hang-a.test'),
      lookUp(resolver, 'hang-b.test'),
    ];
    await new Promise(resolve => setTimeout(resolve, 50));
    expect(resolver.stats()).toMatchObject({ active: 2, queued: 0 });
    const start = performance.now();

    expect((await lookUp(resolver, 'db.internal')).addresses).toEqual([
      { address: '10.0.0.7', family: 4 },
    ]);
    expect((await lookUp(resolver, 'localhost', 4)).addresses).toEqual([
      { address: '127.0.0.1', family: 4 },
    ]);
    expect(elapsedSince(start)).toBeLessThan(500);
    expect((await lookUp(resolver, 'other.test')).error?.code).toBe(
      'EVIGIL_DNS_BUSY',
    );
    await Promise.all(hanging);
  });

  it('asks the names of the search list as resolv.conf orders them', async () => {
    const resolvConf = join(dir, 'resolv.conf');
    await writeFile(resolvConf, 'search corp.test\noptions ndots:1\n');
    const resolver = resolverAt(dns, { resolvConf });

    expect((await lookUp(resolver, 'app', 4)).addresses).toEqual([
      { address: '203.0.113.9', family: 4 },
    ]);
    expect(dns.questions).toEqual(['app.corp.test A']);
    dns.questions.length = 0;
    expect((await lookUp(resolver, 'app.test', 4)).addresses).toHaveLength(2);
    expect(dns.questions).toEqual(['app.test A']);
  });

  it('keeps the guarded lookup whole: a name answered with loopback is refused', async () => {
    const guarded = createGuardedLookup({
      policy: { allowLoopback: false, allowPrivate: false },
      resolve: resolverAt(dns).resolve,
    });

    const error = await new Promise(done =>
      guarded('rebind.test', { all: true }, done),
    );

    expect(error).toBeInstanceOf(NetworkGuardError);
    expect((error as Error).message).toContain(
      'rebind.test resolved to an address the guard refuses: 127.0.0.1 is loopback',
    );
  });

  it('gives up on a server that never answers at the timeout', async () => {
    const resolver = resolverAt(silent, { timeoutMs: 300 });
    const start = performance.now();

    const { error } = await lookUp(resolver, 'nobody.test');

    expect(error).toMatchObject({
      code: 'ETIMEOUT',
      message: 'Looking up nobody.test timed out after 300 ms',
    });
    expect(elapsedSince(start)).toBeGreaterThanOrEqual(295);
    expect(elapsedSince(start)).toBeLessThan(3_000);
    expect(resolver.stats()).toMatchObject({ active: 0, queued: 0 });
  });

  it('asks DNS at once with a free slot, however short the timeout', async () => {
    const resolver = resolverAt(dns, { timeoutMs: 5 });

    const { error, addresses } = await lookUp(resolver, 'app.test', 4);

    // Loopback answers within 5 ms on an idle machine, not always on a busy
    // one; either way the lookup was made, not failed as one that waited.
    expect([2, 'Looking up app.test timed out after 5 ms']).toContain(
      addresses?.length ?? error?.message,
    );
  });

  it('holds at most maxInFlight lookups, queues maxQueued, and turns the rest away at once', async () => {
    const resolver = resolverAt(silent, {
      timeoutMs: 500,
      maxInFlight: 4,
      maxQueued: 6,
    });
    const start = performance.now();

    const lookups = Array.from({ length: 12 }, (_, n) =>
      lookUp(resolver, `hang-${n}.test`).then(result => ({
        ...result,
        ms: elapsedSince(start),
      })),
    );
    await new Promise(resolve => setImmediate(resolve));
    expect(resolver.stats()).toMatchObject({ active: 4, queued: 6 });
    const results = await Promise.all(lookups);

    const busy = results.filter(r => r.error?.code === 'EVIGIL_DNS_BUSY');
    expect(busy).toHaveLength(2);
    expect(busy[0].error?.message).toBe(
      'hang-10.test was not looked up: 4 lookups are in flight and 6 waiting, the most healthcheck.network.dns allows',
    );
    for (const refused of busy) {
      expect(refused.ms).toBeLessThan(100);
    }
    // The queued ones wait within their own deadline, not after it.
    const timedOut = results.filter(r => r.error?.code === 'ETIMEOUT');
    expect(timedOut).toHaveLength(10);
    expect(
      timedOut.filter(r => r.error?.message.includes('waiting behind')),
    ).toHaveLength(6);
    expect(Math.max(...timedOut.map(r => r.ms))).toBeLessThan(3_000);
    expect(resolver.stats()).toEqual({
      active: 0,
      queued: 0,
      peakActive: 4,
      rejected: 2,
    });
  });

  it('while 200 lookups hang, a file read, a pbkdf2 and a lookup that answers all complete promptly', async () => {
    const resolver = resolverAt(dns, { timeoutMs: 2_000, maxInFlight: 256 });
    const hanging = Array.from({ length: 200 }, (_, n) =>
      lookUp(resolver, `hang-${n}.test`),
    );
    await new Promise(resolve => setTimeout(resolve, 50));
    expect(resolver.stats().active).toBe(200);

    const start = performance.now();
    const [fileMs, cryptoMs, lookupMs] = await Promise.all([
      readFile(__filename).then(() => elapsedSince(start)),
      new Promise<number>((resolve, reject) =>
        pbkdf2('password', 'salt', 1_000, 32, 'sha256', error =>
          error ? reject(error) : resolve(elapsedSince(start)),
        ),
      ),
      lookUp(resolver, 'app.test', 4).then(result => {
        expect(result.error).toBeUndefined();
        expect(result.addresses).toHaveLength(2);
        return elapsedSince(start);
      }),
    ]);

    // Milliseconds on an idle machine; a second is slack for a busy one,
    // and far below the 2 s the hanging lookups hold their slots.
    expect(fileMs).toBeLessThan(1_000);
    expect(cryptoMs).toBeLessThan(1_000);
    expect(lookupMs).toBeLessThan(1_000);
    const results = await Promise.all(hanging);
    expect(results.every(r => r.error?.code === 'ETIMEOUT')).toBe(true);
    expect(resolver.stats()).toMatchObject({ active: 0, peakActive: 201 });
  });
});

describe('readNameResolutionSettings', () => {
  it('has defaults', () => {
    expect(readNameResolutionSettings(new ConfigReader({}))).toEqual(
      DEFAULT_NAME_RESOLUTION,
    );
  });

  it('reads healthcheck.network.dns', () => {
    expect(
      readNameResolutionSettings(
        new ConfigReader({
          healthcheck: {
            network: { dns: { timeout: '2s', maxInFlight: 16, maxQueued: 0 } },
          },
        }),
      ),
    ).toEqual({ timeoutMs: 2_000, maxInFlight: 16, maxQueued: 0 });
  });

  it('reads the timeout as an object too', () => {
    expect(
      readNameResolutionSettings(
        new ConfigReader({
          healthcheck: { network: { dns: { timeout: { seconds: 3 } } } },
        }),
      ).timeoutMs,
    ).toBe(3_000);
  });

  it('refuses a bound that would never let a lookup run', () => {
    expect(() =>
      readNameResolutionSettings(
        new ConfigReader({
          healthcheck: { network: { dns: { maxInFlight: 0 } } },
        }),
      ),
    ).toThrow(
      'healthcheck.network.dns.maxInFlight must be a whole number of at least 1, got 0',
    );
  });
});
