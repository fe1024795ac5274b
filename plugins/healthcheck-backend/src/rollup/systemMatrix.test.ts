import { matrixOf } from './systemMatrix';
import type { EnvironmentSlice } from '../model';

const SYSTEM = 'system:default/checkout';
const AT = Date.UTC(2026, 10, 30, 12);

function slice(
  check: string,
  environment: string,
  extra: Partial<EnvironmentSlice> = {},
): EnvironmentSlice {
  return {
    sliceId: `healthcheck:${check}:checkout:${environment}`,
    checkId: `healthcheck:default/${check}`,
    systemRef: SYSTEM,
    environment,
    paused: false,
    state: {
      sliceId: `healthcheck:${check}:checkout:${environment}`,
      checkId: `healthcheck:default/${check}`,
      systemRef: SYSTEM,
      environment,
      status: 'healthy',
      consecutiveFailures: 0,
      consecutiveSuccesses: 3,
      since: AT - 60_000,
      lastOutcome: 'pass',
      lastScheduledAt: AT,
      lastRunAt: AT + 5,
      lastDurationMs: 12,
    },
    ...extra,
  };
}

describe('matrixOf', () => {
  it('makes the matrix of one list once, and that of a new list anew', () => {
    const slices = [slice('api', 'production')];
    const matrix = matrixOf(slices);
    expect(matrixOf(slices)).toBe(matrix);

    const changed = [slice('api', 'production', { paused: true })];
    expect(matrixOf(changed)).not.toBe(matrix);
    expect(matrixOf(changed).checks[0].cells.production.status).toBe('paused');
  });

  it('has a row per check and a column per environment, both sorted', () => {
    const matrix = matrixOf([
      slice('web', 'staging'),
      slice('api', 'production'),
      slice('web', 'production'),
    ]);
    expect(matrix.environmentNames).toEqual(['production', 'staging']);
    expect(matrix.checks.map(row => row.checkId)).toEqual([
      'healthcheck:default/api',
      'healthcheck:default/web',
    ]);
    expect(Object.keys(matrix.checks[1].cells).sort()).toEqual([
      'production',
      'staging',
    ]);
    expect(matrix.checks[0].cells.production).toEqual({
      sliceId: 'healthcheck:api:checkout:production',
      checkId: 'healthcheck:default/api',
      environment: 'production',
      status: 'healthy',
      paused: false,
      lastRunAt: new Date(AT + 5).toISOString(),
      lastDurationMs: 12,
      lastReason: undefined,
      since: new Date(AT - 60_000).toISOString(),
    });
  });

  it('shows a paused slice as paused whatever its last state, and one never run as unknown', () => {
    const matrix = matrixOf([
      slice('api', 'production', { paused: true }),
      slice('api', 'staging', { state: undefined }),
    ]);
    const cells = matrix.checks[0].cells;
    expect(cells.production.status).toBe('paused');
    expect(cells.staging).toMatchObject({
      status: 'unknown',
      lastRunAt: undefined,
    });
  });

  it("names a row's target components, and leaves them out when there are none", () => {
    const matrix = matrixOf([
      slice('api', 'production', { components: ['component:default/api'] }),
      slice('web', 'production'),
    ]);
    expect(matrix.checks[0].components).toEqual(['component:default/api']);
    expect(matrix.checks[1]).not.toHaveProperty('components');
  });
});
