import { validateHealthCheckSpec } from '@vigil/plugin-healthcheck-common';
import { ProbeSecrets } from './secrets';
import { secretUsesOf } from './secretUses';

describe('secretUsesOf: the spec validator with the secrets', () => {
  const secrets = secretUsesOf(
    new ProbeSecrets({
      PAYMENTS_TOKEN: {
        value: 'pay-token',
        allowedOrigins: ['https://api.payments.example.com'],
        allowedNamespaces: ['payments'],
      },
    }),
  );
  const carrying = {
    type: 'http',
    target: 'https://api.payments.example.com/{{ environment.name }}/health',
    config: { headers: { Authorization: 'Bearer ${secret:PAYMENTS_TOKEN}' } },
    systems: ['payments/payments'],
  };

  it('lets a check send a secret to an origin it allows, from a namespace it allows', () => {
    expect(
      validateHealthCheckSpec(carrying, {
        secrets,
        defaultNamespace: 'payments',
      }),
    ).toEqual([]);
  });

  it('refuses, at the field, a secret bound for another origin, an override included', () => {
    expect(
      validateHealthCheckSpec(
        {
          ...carrying,
          environmentOverrides: {
            staging: { target: 'https://collector.example.net/health' },
          },
        },
        { secrets, defaultNamespace: 'payments' },
      ),
    ).toEqual([
      {
        path: [
          'spec',
          'environmentOverrides',
          'staging',
          'config',
          'headers',
          'Authorization',
        ],
        reason:
          "secret 'PAYMENTS_TOKEN' may not be sent to https://collector.example.net:443: its allowedOrigins do not include that origin",
      },
    ]);
  });

  it("refuses another namespace's secret as if it did not exist", () => {
    const refused = validateHealthCheckSpec(carrying, {
      secrets,
      defaultNamespace: 'attackers',
    });
    const unknown = validateHealthCheckSpec(
      {
        ...carrying,
        config: { headers: { Authorization: '${secret:NO_SUCH}' } },
      },
      { secrets, defaultNamespace: 'attackers' },
    );
    expect(refused.map(p => p.reason)).toEqual([
      "secret 'PAYMENTS_TOKEN' is unknown, or not allowed for checks in namespace 'attackers'",
    ]);
    expect(unknown.map(p => p.reason)).toEqual([
      "secret 'NO_SUCH' is unknown, or not allowed for checks in namespace 'attackers'",
    ]);
  });

  it('leaves the origin of a host placeholder to each slice', () => {
    expect(
      validateHealthCheckSpec(
        { ...carrying, target: 'https://{{ system.name }}.example.com/x' },
        { secrets, defaultNamespace: 'payments' },
      ),
    ).toEqual([]);
  });

  it("judges a check made through the API in its systems' namespaces", () => {
    expect(
      validateHealthCheckSpec(carrying, { secrets, source: 'api' }),
    ).toEqual([]);
    expect(
      validateHealthCheckSpec(
        { ...carrying, systems: ['payments/payments', 'shop'] },
        { secrets, source: 'api' },
      ).map(p => p.reason),
    ).toEqual([
      "secret 'PAYMENTS_TOKEN' is unknown, or not allowed for checks in namespace 'default'",
    ]);
  });
});
