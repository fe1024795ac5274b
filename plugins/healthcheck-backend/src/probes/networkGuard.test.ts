import { ConfigReader } from '@backstage/config';
import type { AddressResolver } from './CaresAddressResolver';
import {
  checkAddress,
  CLOUD_METADATA_ADDRESSES,
  createGuardedLookup,
  NetworkGuardError,
  type NetworkPolicy,
  readNetworkPolicy,
} from './networkGuard';

const closed: NetworkPolicy = { allowLoopback: false, allowPrivate: false };
const open: NetworkPolicy = { allowLoopback: true, allowPrivate: true };

function lookupWith(
  policy: NetworkPolicy,
  hostname: string,
  resolve?: AddressResolver,
  all = false,
): Promise<{ error?: NodeJS.ErrnoException; addresses?: unknown }> {
  const guarded = createGuardedLookup({ policy, resolve });
  return new Promise(done =>
    guarded(hostname, { all }, (error, addresses) =>
      done(error ? { error } : { addresses }),
    ),
  );
}

/** A resolver that answers every name with the given addresses. */
function answering(...addresses: string[]): AddressResolver {
  return (_hostname, _options, callback) =>
    callback(
      null,
      addresses.map(address => ({
        address,
        family: address.includes(':') ? 6 : 4,
      })),
    );
}

describe('checkAddress', () => {
  it.each([
    ['8.8.8.8'],
    ['1.1.1.1'],
    ['172.32.0.1'],
    ['100.128.0.1'],
    ['2606:4700:4700::1111'],
    ['::ffff:8.8.8.8'],
    ['64:ff9b::808:808'],
  ])('allows the public address %s under the closed policy', address => {
    expect(checkAddress(address, closed)).toEqual({ allowed: true });
  });

  it.each([
    ['127.0.0.1', '127.0.0.0/8'],
    ['127.255.255.254', '127.0.0.0/8'],
    ['::1', '::1/128'],
  ])(
    'refuses loopback %s unless allowLoopback, naming that setting',
    (address, cidr) => {
      expect(checkAddress(address, closed)).toEqual({
        allowed: false,
        reason: `${address} is loopback (${cidr})`,
        setting: 'healthcheck.network.allowLoopback',
      });
      expect(
        checkAddress(address, { allowLoopback: true, allowPrivate: false }),
      ).toEqual({ allowed: true });
    },
  );

  it.each([
    ['10.0.0.1', 'private (10.0.0.0/8)'],
    ['172.16.0.1', 'private (172.16.0.0/12)'],
    ['172.31.255.255', 'private (172.16.0.0/12)'],
    ['192.168.1.1', 'private (192.168.0.0/16)'],
    ['100.64.0.1', 'carrier-grade NAT (100.64.0.0/10)'],
    ['100.127.255.254', 'carrier-grade NAT (100.64.0.0/10)'],
    ['fc00::1', 'unique local (fc00::/7)'],
    ['fd12:3456::1', 'unique local (fc00::/7)'],
    ['fd00::1.2.3.4', 'unique local (fc00::/7)'],
    ['fec0::1', 'site-local (fec0::/10)'],
    ['198.18.0.1', 'benchmarking (198.18.0.0/15)'],
    ['192.0.2.10', 'documentation (192.0.2.0/24)'],
    ['240.0.0.1', 'reserved (240.0.0.0/4)'],
    ['2001:db8::1', 'documentation (2001:db8::/32)'],
  ])('refuses the non-public %s unless allowPrivate: %s', (address, range) => {
    expect(checkAddress(address, closed)).toEqual({
      allowed: false,
      reason: `${address} is ${range}`,
      setting: 'healthcheck.network.allowPrivate',
    });
    expect(
      checkAddress(address, { allowLoopback: false, allowPrivate: true }),
    ).toEqual({ allowed: true });
  });

  it.each([
    ['169.254.0.1', 'link-local (169.254.0.0/16)'],
    ['169.254.255.255', 'link-local (169.254.0.0/16)'],
    ['fe80::1', 'link-local (fe80::/10)'],
    ['febf::1', 'link-local (fe80::/10)'],
    ['fe80::1%eth0', 'link-local (fe80::/10)'],
    ['0.0.0.0', 'unspecified (0.0.0.0/8)'],
    ['::', 'unspecified (::/128)'],
    ['255.255.255.255', 'broadcast (255.255.255.255/32)'],
    ['224.0.0.1', 'multicast (224.0.0.0/4)'],
    ['239.255.255.250', 'multicast (224.0.0.0/4)'],
    ['ff02::1', 'multicast (ff00::/8)'],
  ])('refuses %s whatever the policy: %s', (address, range) => {
    expect(checkAddress(address, open)).toEqual({
      allowed: false,
      reason: `${address} is ${range}`,
      setting: null,
    });
  });

  it.each(CLOUD_METADATA_ADDRESSES.map(entry => [entry.address]))(
    'refuses the cloud metadata address %s whatever the policy',
    address => {
      const decision = checkAddress(address, open);
      expect(decision).toMatchObject({ allowed: false, setting: null });
      expect(decision.allowed || decision.reason).toContain(
        'is a cloud metadata address',
      );
    },
  );

  it('names the metadata service rather than the range it sits in', () => {
    expect(checkAddress('100.100.100.200', open)).toEqual({
      allowed: false,
      reason:
        '100.100.100.200 is a cloud metadata address (Alibaba Cloud instance metadata)',
      setting: null,
    });
  });

  it.each([
    ['::ffff:127.0.0.1', 'IPv4-mapped', '127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped', '127.0.0.1', 'loopback'],
    ['::ffff:10.1.2.3', 'IPv4-mapped', '10.1.2.3', 'private'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated', '127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'NAT64', '127.0.0.1', 'loopback'],
    ['2002:7f00:1::1', '6to4', '127.0.0.1', 'loopback'],
    ['::127.0.0.1', 'IPv4-compatible', '127.0.0.1', 'loopback'],
  ])(
    'judges %s (%s) by the IPv4 address it carries',
    (address, via, ipv4, range) => {
      const decision = checkAddress(address, closed);
      expect(decision).toMatchObject({ allowed: false });
      expect(decision.allowed || decision.reason).toContain(
        `${address} is ${via} and carries ${ipv4}, which is ${range}`,
      );
    },
  );

  it('refuses a mapped metadata address even when everything is allowed', () => {
    expect(checkAddress('::ffff:169.254.169.254', open)).toMatchObject({
      allowed: false,
      setting: null,
    });
    expect(checkAddress('::ffff:a9fe:a9fe', open)).toMatchObject({
      allowed: false,
      setting: null,
    });
  });

  it('refuses Azure WireServer, which sits in public space, whatever the policy', () => {
    expect(checkAddress('168.63.129.16', open)).toEqual({
      allowed: false,
      reason:
        '168.63.129.16 is a cloud metadata address (Azure WireServer (guest agent, health probes and DNS))',
      setting: null,
    });
    expect(checkAddress('::ffff:168.63.129.16', open)).toMatchObject({
      allowed: false,
      setting: null,
    });
    expect(checkAddress('168.63.129.17', closed)).toEqual({ allowed: true });
  });

  describe('local-use NAT64 (64:ff9b:1::/48), whose prefix length only the translator knows', () => {
    const privateOnly: NetworkPolicy = {
      allowLoopback: false,
      allowPrivate: true,
    };

    it('stays closed unless allowPrivate, as a non-public range', () => {
      expect(checkAddress('64:ff9b:1::808:808', closed)).toEqual({
        allowed: false,
        reason: '64:ff9b:1::808:808 is local-use NAT64 (64:ff9b:1::/48)',
        setting: 'healthcheck.network.allowPrivate',
      });
    });

    it('allows a public IPv4 address at /96 under allowPrivate, whatever the zero bytes of the prefix put at /48, /56 and /64', () => {
      expect(checkAddress('64:ff9b:1::808:808', privateOnly)).toEqual({
        allowed: true,
      });
    });

    it.each([
      // bytes 12-15
      ['64:ff9b:1::a9fe:a9fe', '169.254.169.254', '/96'],
      // bytes 9-12, the suffix after it nonzero so /96 reads 254.8.8.8
      ['64:ff9b:1:0:a9:fea9:fe08:808', '169.254.169.254', '/64'],
      // bytes 7, 9-11
      ['64:ff9b:1:a9:fe:a9fe::', '169.254.169.254', '/56'],
      // bytes 6-7, 9-10
      ['64:ff9b:1:a9fe:a9:fe00::', '169.254.169.254', '/48'],
    ])(
      'refuses %s, which carries %s at %s, whatever the policy',
      (address, ipv4, position) => {
        const decision = checkAddress(address, open);
        expect(decision).toMatchObject({ allowed: false, setting: null });
        expect(decision.allowed || decision.reason).toContain(
          `${address} is local-use NAT64 and carries ${ipv4} (${position}), which is a cloud metadata address`,
        );
      },
    );

    it('refuses loopback at any position unless allowLoopback', () => {
      const address = '64:ff9b:1:0:7f:0:100:0'; // 127.0.0.1 at /64
      expect(checkAddress(address, privateOnly)).toEqual({
        allowed: false,
        reason: `${address} is local-use NAT64 and carries 127.0.0.1 (/64), which is loopback (127.0.0.0/8)`,
        setting: 'healthcheck.network.allowLoopback',
      });
      expect(checkAddress(address, open)).toEqual({ allowed: true });
    });
  });

  describe('Teredo (2001::/32)', () => {
    it('allows an address whose server and client are public', () => {
      // server 65.54.227.120, client 8.8.8.8 (obfuscated f7f7:f7f7)
      expect(
        checkAddress('2001:0:4136:e378:8000:63bf:f7f7:f7f7', closed),
      ).toEqual({ allowed: true });
    });

    it("judges the client IPv4 address, which RFC 4380's example obfuscates as 3fff:fdd2", () => {
      const address = '2001:0:4136:e378:8000:63bf:3fff:fdd2';
      expect(checkAddress(address, closed)).toEqual({
        allowed: false,
        reason: `${address} is Teredo and carries 192.0.2.45 (client), which is documentation (192.0.2.0/24)`,
        setting: 'healthcheck.network.allowPrivate',
      });
    });

    it.each([
      [
        '2001:0:4136:e378:8000:63bf:80ff:fffe',
        '127.0.0.1 (client)',
        'loopback',
      ],
      [
        '2001:0:4136:e378:8000:63bf:5601:5601',
        '169.254.169.254 (client)',
        'a cloud metadata address',
      ],
      ['2001:0:a00:1:8000:63bf:f7f7:f7f7', '10.0.0.1 (server)', 'private'],
      [
        '2001:0:a9fe:a9fe:8000:63bf:f7f7:f7f7',
        '169.254.169.254 (server)',
        'a cloud metadata address',
      ],
    ])('refuses %s, which carries %s', (address, carried, range) => {
      const decision = checkAddress(address, closed);
      expect(decision).toMatchObject({ allowed: false });
      expect(decision.allowed || decision.reason).toContain(
        `${address} is Teredo and carries ${carried}, which is ${range}`,
      );
    });

    it('gives the refusal no setting lifts when server and client are both refused', () => {
      expect(
        checkAddress('2001:0:a00:1:8000:63bf:5601:5601', open),
      ).toMatchObject({ allowed: false, setting: null });
    });
  });

  it.each([['localhost'], ['0177.0.0.1'], ['127.1'], ['0x7f000001'], ['']])(
    'refuses %j, which is not a plain IP address',
    text => {
      expect(checkAddress(text, open)).toMatchObject({
        allowed: false,
        setting: null,
      });
    },
  );
});

describe('createGuardedLookup', () => {
  it('refuses a hostname that resolves to loopback, naming the setting', async () => {
    const { error } = await lookupWith(closed, 'localhost');
    expect(error).toBeInstanceOf(NetworkGuardError);
    expect(error?.message).toBe(
      'Network guard: localhost resolved to an address the guard refuses: 127.0.0.1 is loopback (127.0.0.0/8); set healthcheck.network.allowLoopback: true to allow it',
    );
    expect(error?.code).toBe('EVIGIL_GUARD');
  });

  it('passes the addresses on when the policy allows them', async () => {
    const single = await lookupWith(
      { allowLoopback: true, allowPrivate: false },
      'localhost',
    );
    expect(single).toEqual({ addresses: '127.0.0.1' });
  });

  it('hands the socket only the allowed addresses of a mixed answer', async () => {
    const result = await lookupWith(
      closed,
      'mixed.example',
      answering('169.254.169.254', '93.184.215.14', '10.0.0.1'),
      true,
    );
    expect(result).toEqual({
      addresses: [{ address: '93.184.215.14', family: 4 }],
    });
  });

  it('says no setting allows a name that resolves to metadata', async () => {
    const { error } = await lookupWith(
      open,
      'metadata.google.internal',
      answering('169.254.169.254'),
    );
    expect(error?.message).toContain('no setting allows it');
    expect((error as NetworkGuardError).setting).toBeNull();
  });

  it('passes resolver errors through unchanged', async () => {
    const notFound = Object.assign(new Error('getaddrinfo ENOTFOUND'), {
      code: 'ENOTFOUND',
    });
    const { error } = await lookupWith(open, 'missing.invalid', (_h, _o, cb) =>
      cb(notFound, []),
    );
    expect(error).toBe(notFound);
  });

  it('tells the caller how long each lookup took', async () => {
    const events: Array<{ hostname: string; addresses: string[] }> = [];
    const guarded = createGuardedLookup({
      policy: open,
      resolve: answering('8.8.8.8'),
      onLookup: ({ hostname, addresses, durationMs }) => {
        expect(durationMs).toBeGreaterThanOrEqual(0);
        events.push({ hostname, addresses });
      },
    });
    await new Promise(done => guarded('dns.google', {}, done));
    expect(events).toEqual([
      { hostname: 'dns.google', addresses: ['8.8.8.8'] },
    ]);
  });
});

describe('readNetworkPolicy', () => {
  it('keeps loopback and private ranges closed by default', () => {
    expect(readNetworkPolicy(new ConfigReader({}))).toEqual(closed);
  });

  it('reads healthcheck.network', () => {
    expect(
      readNetworkPolicy(
        new ConfigReader({
          healthcheck: { network: { allowLoopback: true, allowPrivate: true } },
        }),
      ),
    ).toEqual(open);
  });
});
