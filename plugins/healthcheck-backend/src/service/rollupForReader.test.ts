import type { SystemHealthDetails } from '@vigil/plugin-healthcheck-common';
import { forReader, otherEntitiesNamedIn } from './rollupForReader';

const checkout: SystemHealthDetails = {
  systemRef: 'system:default/checkout',
  liveKey: 'k',
  name: 'checkout',
  namespace: 'default',
  status: 'unhealthy',
  environments: [],
  reasons: [
    {
      checkId: 'checkout-http',
      environment: 'production',
      status: 'unhealthy',
      display: '[STATUS] (502) == 200',
      components: ['component:default/cart', 'component:default/vault'],
    },
    {
      checkId: 'vault-tls',
      environment: 'production',
      status: 'unhealthy',
      display: 'tls: handshake failed',
      components: ['component:default/vault'],
    },
  ],
  healthy: 0,
  total: 2,
  upstream: [
    { systemRef: 'system:default/payments', status: 'unhealthy' },
    { systemRef: 'system:default/secrets', status: 'degraded' },
  ],
  updatedAt: '2026-12-01T12:00:00.000Z',
  since: '2026-12-01T11:00:00.000Z',
  environmentNames: ['production'],
  checks: [
    {
      checkId: 'checkout-http',
      components: ['component:default/cart', 'component:default/vault'],
      cells: {},
    },
    {
      checkId: 'vault-tls',
      components: ['component:default/vault'],
      cells: {},
    },
    { checkId: 'plain', cells: {} },
  ],
};

describe('otherEntitiesNamedIn', () => {
  it('names the upstream systems and every targeted component, once each', () => {
    expect(otherEntitiesNamedIn([checkout]).sort()).toEqual([
      'component:default/cart',
      'component:default/vault',
      'system:default/payments',
      'system:default/secrets',
    ]);
  });
});

describe('forReader and the cause of an outage', () => {
  const caused = {
    ...checkout,
    environments: [
      {
        name: 'production',
        status: 'unhealthy' as const,
        healthy: 0,
        total: 2,
        since: '2026-12-01T11:00:00.000Z',
        causedBy: 'system:default/payments',
      },
    ],
  };

  it('names the system an environment is put down to among the other entities', () => {
    expect(otherEntitiesNamedIn([{ ...caused, upstream: [] }])).toContain(
      'system:default/payments',
    );
  });

  it('keeps the cause for a reader who can read it, and leaves it out for one who cannot', () => {
    const everything = new Set(otherEntitiesNamedIn([caused]));
    expect(forReader(caused, everything).environments[0].causedBy).toBe(
      'system:default/payments',
    );
    const notPayments = new Set(
      [...everything].filter(ref => ref !== 'system:default/payments'),
    );
    const seen = forReader(caused, notPayments);
    expect(seen.environments[0]).not.toHaveProperty('causedBy');
    expect(JSON.stringify(seen)).not.toMatch(/payments/);
  });
});

describe('forReader', () => {
  it('leaves out upstream systems and components the reader cannot read, and keeps the status', () => {
    const seen = forReader(
      checkout,
      new Set(['system:default/payments', 'component:default/cart']),
    );
    expect(seen.status).toBe('unhealthy');
    expect(seen.upstream).toEqual([
      { systemRef: 'system:default/payments', status: 'unhealthy' },
    ]);
    expect(seen.reasons.map(r => r.components)).toEqual([
      ['component:default/cart'],
      undefined,
    ]);
    expect(seen.reasons[1]).not.toHaveProperty('components');
    expect(seen.checks.map(row => row.components)).toEqual([
      ['component:default/cart'],
      undefined,
      undefined,
    ]);
    expect(JSON.stringify(seen)).not.toMatch(
      /system:default\/secrets|component:default\/vault/,
    );
  });

  it('changes nothing for a reader who can read everything it names', () => {
    const everything = new Set(otherEntitiesNamedIn([checkout]));
    expect(forReader(checkout, everything)).toEqual(checkout);
  });

  it('hands back the answer itself when the reader can read everything it names', () => {
    const everything = new Set(otherEntitiesNamedIn([checkout]));
    expect(forReader(checkout, everything)).toBe(checkout);
    const namingNothing = {
      ...checkout,
      upstream: [],
      reasons: checkout.reasons.map(({ components: _c, ...reason }) => reason),
      checks: [{ checkId: 'plain', cells: {} }],
    };
    expect(forReader(namingNothing, new Set())).toBe(namingNothing);
  });

  it('keeps the rows it leaves untouched and copies only the others', () => {
    const seen = forReader(
      checkout,
      new Set([
        'system:default/payments',
        'system:default/secrets',
        'component:default/vault',
      ]),
    );
    expect(seen).not.toBe(checkout);
    expect(seen.upstream).toBe(checkout.upstream);
    expect(seen.reasons[1]).toBe(checkout.reasons[1]);
    expect(seen.reasons[0].components).toEqual(['component:default/vault']);
    expect(seen.checks[2]).toBe(checkout.checks[2]);
    expect(checkout.reasons[0].components).toHaveLength(2);
  });

  it('leaves out an empty list of components, as before', () => {
    const withEmpty = {
      ...checkout,
      upstream: [],
      reasons: [],
      checks: [{ checkId: 'plain', components: [], cells: {} }],
    };
    expect(forReader(withEmpty, new Set()).checks[0]).not.toHaveProperty(
      'components',
    );
  });

  it('takes a summary without a matrix as it is', () => {
    const { checks: _checks, environmentNames: _names, ...summary } = checkout;
    expect(forReader(summary, new Set())).not.toHaveProperty('checks');
  });
});
