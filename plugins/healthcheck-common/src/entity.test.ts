import { isHealthCheckEntity } from './entity';

describe('isHealthCheckEntity', () => {
  const base = { metadata: { name: 'payments-api' }, spec: {} };

  it('recognises a HealthCheck by apiVersion and kind', () => {
    expect(
      isHealthCheckEntity({
        ...base,
        apiVersion: 'vigil.dev/v1alpha1',
        kind: 'HealthCheck',
      }),
    ).toBe(true);
  });

  it('ignores other kinds and other versions', () => {
    expect(
      isHealthCheckEntity({
        ...base,
        apiVersion: 'backstage.io/v1alpha1',
        kind: 'Component',
      }),
    ).toBe(false);
    expect(
      isHealthCheckEntity({
        ...base,
        apiVersion: 'vigil.dev/v1beta9',
        kind: 'HealthCheck',
      }),
    ).toBe(false);
  });
});
