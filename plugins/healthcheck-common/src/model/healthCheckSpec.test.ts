import {
  DEFAULT_CHECK_INTERVAL,
  DEFAULT_CHECK_TIMEOUT,
  healthCheckSpecSchema,
  resolveCheckTiming,
} from './healthCheckSpec';

describe('resolveCheckTiming', () => {
  it('reads the interval and timeout into milliseconds', () => {
    expect(resolveCheckTiming({ interval: '10s', timeout: '1500ms' })).toEqual({
      intervalMs: 10_000,
      timeoutMs: 1_500,
    });
  });

  it('fills in 1m and 10s where a check names none', () => {
    expect([DEFAULT_CHECK_INTERVAL, DEFAULT_CHECK_TIMEOUT]).toEqual([
      '1m',
      '10s',
    ]);
    expect(resolveCheckTiming({})).toEqual({
      intervalMs: 60_000,
      timeoutMs: 10_000,
    });
  });

  it('throws on a duration that does not parse', () => {
    expect(() => resolveCheckTiming({ interval: 'soon' })).toThrow(
      'Invalid duration "soon"',
    );
  });
});

describe('healthCheckSpecSchema', () => {
  it('lists every field of HealthCheckSpec and closes the object', () => {
    expect(Object.keys(healthCheckSpecSchema.properties).sort()).toEqual([
      'components',
      'conditions',
      'config',
      'environmentOverrides',
      'environments',
      'interval',
      'owner',
      'paused',
      'systems',
      'target',
      'thresholds',
      'timeout',
      'type',
    ]);
    expect(healthCheckSpecSchema.additionalProperties).toBe(false);
    expect(healthCheckSpecSchema.required).toEqual([
      'type',
      'target',
      'systems',
    ]);
  });

  it('is plain JSON, so it can be served and stored as it is', () => {
    expect(JSON.parse(JSON.stringify(healthCheckSpecSchema))).toEqual(
      healthCheckSpecSchema,
    );
  });
});
