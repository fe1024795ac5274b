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
      'grace',
      'interval',
      'owner',
      'paused',
      'period',
      'schedule',
      'systems',
      'target',
      'thresholds',
      'timeout',
      'timezone',
      'type',
    ]);
    expect(healthCheckSpecSchema.additionalProperties).toBe(false);
    expect(healthCheckSpecSchema.required).toEqual(['type', 'systems']);
    // A heartbeat check needs a grace, any other a target.
    expect(healthCheckSpecSchema.then.required).toEqual(['grace']);
    expect(healthCheckSpecSchema.else.required).toEqual(['target']);
  });

  it('is plain JSON, so it can be served and stored as it is', () => {
    expect(JSON.parse(JSON.stringify(healthCheckSpecSchema))).toEqual(
      healthCheckSpecSchema,
    );
  });
});

describe('resolveCheckTiming of a heartbeat check', () => {
  it('ticks every grace within [5s, 1m], with a short timeout', () => {
    expect(resolveCheckTiming({ type: 'heartbeat', grace: '30s' })).toEqual({
      intervalMs: 30_000,
      timeoutMs: 5_000,
    });
    expect(resolveCheckTiming({ type: 'heartbeat', grace: '1s' })).toEqual({
      intervalMs: 5_000,
      timeoutMs: 5_000,
    });
    expect(resolveCheckTiming({ type: 'heartbeat', grace: '2h' })).toEqual({
      intervalMs: 60_000,
      timeoutMs: 5_000,
    });
  });
});
