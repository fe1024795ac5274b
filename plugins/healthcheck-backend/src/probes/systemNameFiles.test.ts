import {
  hostsFileAddresses,
  isLocalhostName,
  loopbackAddresses,
  NO_SEARCH,
  parseHostsFile,
  parseResolvConf,
  searchCandidates,
} from './systemNameFiles';

describe('parseHostsFile', () => {
  const hosts = parseHostsFile(
    [
      '# comment line',
      '127.0.0.1   localhost',
      '10.0.0.5    db.internal db  # trailing comment',
      '10.0.0.6    DB.Internal.',
      'fd00::5     db.internal',
      'not-an-ip   ignored.example',
      '10.0.0.5    db.internal',
      '',
    ].join('\n'),
  );

  it('keys each name in lower case, without the trailing dot, with its addresses in file order', () => {
    expect(hosts.get('db.internal')).toEqual([
      { address: '10.0.0.5', family: 4 },
      { address: '10.0.0.6', family: 4 },
      { address: 'fd00::5', family: 6 },
    ]);
    expect(hosts.get('db')).toEqual([{ address: '10.0.0.5', family: 4 }]);
  });

  it('skips comments and lines that do not start with an IP address', () => {
    expect(hosts.has('ignored.example')).toBe(false);
    expect([...hosts.keys()].sort()).toEqual([
      'db',
      'db.internal',
      'localhost',
    ]);
  });

  it('answers a name by family, whatever its case', () => {
    expect(hostsFileAddresses(hosts, 'DB.internal.', 6)).toEqual([
      { address: 'fd00::5', family: 6 },
    ]);
    expect(hostsFileAddresses(hosts, 'db.internal', 0)).toHaveLength(3);
    expect(hostsFileAddresses(hosts, 'other.internal', 0)).toEqual([]);
  });
});

describe('parseResolvConf', () => {
  it('reads the search list and ndots', () => {
    expect(
      parseResolvConf(
        [
          'nameserver 10.96.0.10',
          'search payments.svc.cluster.local svc.cluster.local cluster.local',
          'options ndots:5 timeout:2',
        ].join('\n'),
      ),
    ).toEqual({
      search: [
        'payments.svc.cluster.local',
        'svc.cluster.local',
        'cluster.local',
      ],
      ndots: 5,
    });
  });

  it('lets the last search or domain line win, as glibc does', () => {
    expect(parseResolvConf('search a.test b.test\ndomain corp.test\n')).toEqual(
      {
        search: ['corp.test'],
        ndots: 1,
      },
    );
  });

  it('keeps six search domains and ndots up to 15, and ignores comments', () => {
    expect(
      parseResolvConf(
        '# search commented.test\nsearch a b c d e f g h\noptions ndots:40\n',
      ),
    ).toEqual({ search: ['a', 'b', 'c', 'd', 'e', 'f'], ndots: 15 });
  });

  it('has no search list and ndots 1 when the file says nothing', () => {
    expect(parseResolvConf('')).toEqual(NO_SEARCH);
  });
});

describe('searchCandidates', () => {
  const kubernetes = {
    search: ['payments.svc.cluster.local', 'svc.cluster.local'],
    ndots: 5,
  };

  it('tries the search domains first for a name with fewer than ndots dots', () => {
    expect(searchCandidates('api', kubernetes)).toEqual([
      'api.payments.svc.cluster.local',
      'api.svc.cluster.local',
      'api',
    ]);
  });

  it('tries the name as it is first when it has ndots dots or more', () => {
    expect(
      searchCandidates('api.example.com', { ...kubernetes, ndots: 2 }),
    ).toEqual([
      'api.example.com',
      'api.example.com.payments.svc.cluster.local',
      'api.example.com.svc.cluster.local',
    ]);
  });

  it('asks a name that ends in a dot as it is, and nothing else', () => {
    expect(searchCandidates('api.example.com.', kubernetes)).toEqual([
      'api.example.com',
    ]);
  });

  it('asks the name alone without a search list', () => {
    expect(searchCandidates('api', NO_SEARCH)).toEqual(['api']);
  });
});

describe('localhost names (RFC 6761)', () => {
  it.each([
    ['localhost'],
    ['LOCALHOST.'],
    ['app.localhost'],
    ['a.b.localhost.'],
  ])('%s is loopback', name => {
    expect(isLocalhostName(name)).toBe(true);
  });

  it.each([['localhost.example.com'], ['notlocalhost'], ['localhostx']])(
    '%s is not',
    name => {
      expect(isLocalhostName(name)).toBe(false);
    },
  );

  it('answers with IPv4 and IPv6 loopback, or the family asked for', () => {
    expect(loopbackAddresses(0)).toEqual([
      { address: '127.0.0.1', family: 4 },
      { address: '::1', family: 6 },
    ]);
    expect(loopbackAddresses(6)).toEqual([{ address: '::1', family: 6 }]);
  });
});
