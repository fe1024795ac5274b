import { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import { sliceSecretProblems } from './sliceSecretProblems';

const secrets = new ProbeSecrets({
  PAYMENTS_TOKEN: {
    value: 'pay-token',
    allowedOrigins: ['https://*.payments.example.com'],
    allowedNamespaces: ['payments'],
  },
});
const config = {
  headers: { Authorization: 'Bearer ${secret:PAYMENTS_TOKEN}' },
};

describe('sliceSecretProblems', () => {
  it("lets a slice send a secret to an allowed origin, for its entity's namespace", () => {
    expect(
      sliceSecretProblems(secrets, {
        checkId: 'healthcheck:payments/health',
        systemRef: 'system:payments/payments',
        type: 'http',
        target: 'https://production.payments.example.com/health',
        config,
      }),
    ).toEqual([]);
  });

  it('refuses a slice whose rendered host takes the secret elsewhere', () => {
    expect(
      sliceSecretProblems(secrets, {
        checkId: 'healthcheck:payments/health',
        systemRef: 'system:payments/payments',
        type: 'http',
        target: 'https://evil.example/health',
        config,
      }),
    ).toEqual([
      {
        path: 'config.headers.Authorization',
        reason:
          "secret 'PAYMENTS_TOKEN' may not be sent to https://evil.example:443: its allowedOrigins do not include that origin",
      },
    ]);
  });

  it("judges a HealthCheck entity in its own namespace, not its system's", () => {
    expect(
      sliceSecretProblems(secrets, {
        checkId: 'healthcheck:attackers/steal',
        systemRef: 'system:payments/payments',
        type: 'http',
        target: 'https://production.payments.example.com/health',
        config,
      }),
    ).toEqual([
      {
        path: 'config.headers.Authorization',
        reason:
          "secret 'PAYMENTS_TOKEN' is unknown, or not allowed for checks in namespace 'attackers'",
      },
    ]);
  });

  it("judges a check made through the API in its slice's system's namespace", () => {
    const slice = {
      checkId: 'payments-http',
      type: 'http',
      target: 'https://production.payments.example.com/health',
      config,
    };
    expect(
      sliceSecretProblems(secrets, {
        ...slice,
        systemRef: 'system:payments/payments',
      }),
    ).toEqual([]);
    expect(
      sliceSecretProblems(secrets, {
        ...slice,
        systemRef: 'system:default/shop',
      }),
    ).toHaveLength(1);
  });
});
