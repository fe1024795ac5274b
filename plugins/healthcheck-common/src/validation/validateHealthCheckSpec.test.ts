import { formatProblemPath } from './problemPath';
import { validateHealthCheckSpec } from './validateHealthCheckSpec';

describe('validateHealthCheckSpec', () => {
  const spec = {
    type: 'http',
    target: 'https://{{ system.name }}.example.com/health',
    systems: ['shop'],
  };

  it('finds nothing wrong with a valid spec', () => {
    expect(validateHealthCheckSpec(spec)).toEqual([]);
  });

  it('returns each problem as a path and a reason', () => {
    expect(
      validateHealthCheckSpec({ ...spec, interval: '2s', paused: 1 }),
    ).toEqual([
      {
        path: ['spec', 'paused'],
        reason: 'must be true or false, not number 1',
      },
      {
        path: ['spec', 'interval'],
        reason: '2s is below the minimum interval of 5s',
      },
    ]);
  });

  it('writes paths from the body itself for an API request', () => {
    expect(
      validateHealthCheckSpec(
        { ...spec, systems: ['system:x/'], environmentOverrides: { '': {} } },
        { rootPath: '' },
      ),
    ).toEqual([
      { path: ['environmentOverrides'], reason: '"" is not a valid key here' },
      {
        path: ['systems', 0],
        reason:
          'Entity reference "system:x/" was not on the form [<kind>:][<namespace>/]<name>',
      },
    ]);
  });

  it('checks the component refs a check targets, in the namespace it is given', () => {
    expect(
      validateHealthCheckSpec(
        { ...spec, components: ['web', 'system:shop', 'component:'] },
        { rootPath: '', defaultNamespace: 'team-a' },
      ),
    ).toEqual([
      {
        path: ['components', 1],
        reason: '"system:shop" refers to a system; a check targets components',
      },
      {
        path: ['components', 2],
        reason:
          'Entity reference "component:" was not on the form [<kind>:][<namespace>/]<name>',
      },
    ]);
  });

  it('checks the placeholders of override targets too', () => {
    expect(
      validateHealthCheckSpec({
        ...spec,
        environmentOverrides: { 'eu-west': { target: 'http://{{ region }}' } },
      }),
    ).toEqual([
      {
        path: ['spec', 'environmentOverrides', 'eu-west', 'target'],
        reason:
          'unknown placeholder "{{ region }}" at position 7; use {{ system.name }} or {{ environment.name }}',
      },
    ]);
  });

  it('refuses an owner that is not an entity ref', () => {
    expect(validateHealthCheckSpec({ ...spec, owner: 'group:' })).toEqual([
      {
        path: ['spec', 'owner'],
        reason: expect.stringContaining('Entity reference "group:"'),
      },
    ]);
  });

  describe('bounds every size and count, since any team writes specs', () => {
    it.each([
      [
        'systems',
        { systems: Array.from({ length: 51 }, (_, i) => `s${i}`) },
        'spec.systems',
        'lists 51 items; at most 50 are allowed',
      ],
      [
        'conditions',
        { conditions: Array.from({ length: 51 }, () => '[STATUS] == 200') },
        'spec.conditions',
        'lists 51 items; at most 50 are allowed',
      ],
      [
        'a condition longer than 1 KiB',
        { conditions: [`[BODY].a == ${'x'.repeat(1100)}`] },
        'spec.conditions[0]',
        `"[BODY].a == ${'x'.repeat(
          48,
        )}…", at position 1024: the condition is 1112 characters long; at most 1024 are allowed`,
      ],
      [
        'environment overrides',
        {
          environmentOverrides: Object.fromEntries(
            Array.from({ length: 21 }, (_, i) => [`e${i}`, {}]),
          ),
        },
        'spec.environmentOverrides',
        'has 21 entries; at most 20 are allowed',
      ],
      [
        'a target',
        { target: `https://example.com/${'x'.repeat(2048)}` },
        'spec.target',
        'is 2068 characters long; at most 2048 are allowed',
      ],
      [
        'a threshold',
        { thresholds: { failure: 1_000_000 } },
        'spec.thresholds.failure',
        'must be at most 100, not 1000000',
      ],
    ])('%s', (_what, change, path, reason) => {
      expect(
        validateHealthCheckSpec({ ...spec, ...change }).map(problem => ({
          path: formatProblemPath(problem.path),
          reason: problem.reason,
        })),
      ).toEqual([{ path, reason }]);
    });

    it('refuses a condition nested a hundred deep at its position, without a stack overflow', () => {
      const nested = `${'len('.repeat(100)}[BODY]${')'.repeat(100)} == 1`;
      expect(
        validateHealthCheckSpec({ ...spec, conditions: [nested] }),
      ).toEqual([
        {
          path: ['spec', 'conditions', 0],
          reason: expect.stringContaining(
            'at position 67: brackets and parentheses nest more than 16 deep here',
          ),
        },
      ]);
    });
  });

  describe('bounds the timeout', () => {
    it('by a minute, whatever the interval', () => {
      expect(
        validateHealthCheckSpec({ ...spec, interval: '5m', timeout: '90s' }),
      ).toEqual([
        {
          path: ['spec', 'timeout'],
          reason: '90s is longer than the longest timeout, 1m',
        },
      ]);
    });

    it('by the interval, so a run ends before the next is due', () => {
      expect(
        validateHealthCheckSpec({ ...spec, interval: '10s', timeout: '15s' }),
      ).toEqual([
        {
          path: ['spec', 'timeout'],
          reason:
            '15s is longer than the interval, 10s: a run must end before the next one is due',
        },
      ]);
    });

    it('leaves a check without a timeout valid: its default shrinks to a short interval', () => {
      expect(validateHealthCheckSpec({ ...spec, interval: '5s' })).toEqual([]);
    });
  });

  describe('with the probe types', () => {
    const probeTypes = {
      get: (type: string) =>
        ({
          http: {
            type: 'http',
            configSchema: {
              type: 'object',
              additionalProperties: false,
              properties: {
                method: { enum: ['GET', 'HEAD'] },
                expect: { type: 'string' },
              },
            },
            validateConfig: (config: { expect?: string }) =>
              config.expect === '(' ? [{ path: 'expect', reason: 'no' }] : [],
          },
          bare: { type: 'bare' },
        }[type]),
      list: () => ['bare', 'http'],
    };

    it('refuses an unknown type, listing the known ones', () => {
      expect(
        validateHealthCheckSpec({ ...spec, type: 'grpc' }, { probeTypes }),
      ).toEqual([
        {
          path: ['spec', 'type'],
          reason: 'unknown probe type "grpc"; the known types are bare, http',
        },
      ]);
    });

    it('checks the config of each environment as merged over the base', () => {
      expect(
        validateHealthCheckSpec(
          {
            ...spec,
            config: { method: 'GET' },
            environmentOverrides: {
              prod: { config: { method: 'HEAD' } },
              '2nd-dc': { config: { method: 'DELETE' } },
              staging: { target: 'https://staging.example.com/x' },
            },
          },
          { probeTypes },
        ),
      ).toEqual([
        {
          path: ['spec', 'environmentOverrides', '2nd-dc', 'config', 'method'],
          reason: 'must be one of GET, HEAD',
        },
      ]);
    });

    it('asks the type what its schema cannot say, once the schema is met', () => {
      expect(
        validateHealthCheckSpec(
          { ...spec, config: { expect: '(' } },
          { probeTypes },
        ),
      ).toEqual([{ path: ['spec', 'config', 'expect'], reason: 'no' }]);
      expect(
        validateHealthCheckSpec(
          { ...spec, config: { expect: '(', method: 'PUT' } },
          { probeTypes },
        ),
      ).toEqual([
        {
          path: ['spec', 'config', 'method'],
          reason: 'must be one of GET, HEAD',
        },
      ]);
    });

    it('judges nothing of the config of a type it knows by name only', () => {
      expect(
        validateHealthCheckSpec(
          { ...spec, type: 'bare', config: { anything: 1 } },
          { probeTypes },
        ),
      ).toEqual([]);
    });
  });
});

describe('validateHealthCheckSpec of a heartbeat check', () => {
  const heartbeat = {
    type: 'heartbeat',
    period: '1h',
    grace: '5m',
    systems: ['shop'],
  };
  const cron = {
    cronProblem: (expression: string) =>
      expression.startsWith('99') ? `"${expression}" is no cron` : undefined,
  };

  it('accepts a period and a grace, or a schedule in a time zone and a grace', () => {
    expect(validateHealthCheckSpec(heartbeat)).toEqual([]);
    expect(
      validateHealthCheckSpec(
        {
          type: 'heartbeat',
          schedule: '0 3 * * *',
          timezone: 'Europe/Paris',
          grace: '30m',
          systems: ['shop'],
          conditions: ['[RESPONSE_TIME] < 600000'],
        },
        { cron },
      ),
    ).toEqual([]);
  });

  it('says what a heartbeat check lacks, and what it has no use for', () => {
    expect(
      validateHealthCheckSpec({
        type: 'heartbeat',
        target: 'https://x.example.com',
        interval: '1m',
        systems: ['shop'],
      }).map(p => `${formatProblemPath(p.path)}: ${p.reason}`),
    ).toEqual([
      'spec.grace: is required: how late a ping may be before the slice fails, such as 5m',
      'spec.target: a heartbeat check has no target: the job pings the check instead (see its ping URLs)',
      'spec.interval: a heartbeat check has no interval: give period (or schedule) and grace instead',
      'spec.period: is required: how often the job pings, such as 1h (or give schedule, a cron expression)',
    ]);
  });

  it('judges the period, grace, schedule and time zone', () => {
    const reasons = (spec: object) =>
      validateHealthCheckSpec(spec, { cron }).map(
        p => `${formatProblemPath(p.path)}: ${p.reason}`,
      );
    expect(reasons({ ...heartbeat, period: '1s', grace: '60d' })).toEqual([
      'spec.grace: "60d" is not a duration: unknown unit "d" at position 2 (use ms, s, m or h, as in 500ms, 10s, 1m or 1h30m)',
      'spec.period: 1s is below the shortest period, 5s',
    ]);
    expect(reasons({ ...heartbeat, grace: '200h' })).toEqual([
      'spec.grace: 200h is longer than the longest grace, 168h',
    ]);
    expect(reasons({ ...heartbeat, schedule: '0 3 * * *' })).toEqual([
      'spec.schedule: give either period or schedule, not both',
    ]);
    const { period: _period, ...scheduled } = heartbeat;
    expect(reasons({ ...scheduled, schedule: '0 3 * *' })).toEqual([
      'spec.schedule: "0 3 * *" has 4 fields; a cron expression has 5 (minute hour day month weekday), or 6 with seconds first',
    ]);
    expect(reasons({ ...scheduled, schedule: '99 3 * * *' })).toEqual([
      'spec.schedule: "99 3 * * *" is no cron',
    ]);
    expect(
      reasons({ ...scheduled, schedule: '0 3 * * *', timezone: 'Mars/Base' }),
    ).toEqual([
      'spec.timezone: "Mars/Base" is not an IANA time zone, such as Europe/Paris or UTC',
    ]);
    expect(reasons({ ...heartbeat, timezone: 'UTC' })).toEqual([
      'spec.timezone: is the time zone of schedule; a check with a period has none',
    ]);
  });

  it('keeps heartbeat fields off probed checks, whose target stays required', () => {
    expect(
      validateHealthCheckSpec({
        type: 'http',
        grace: '1m',
        systems: ['shop'],
      }).map(p => `${formatProblemPath(p.path)}: ${p.reason}`),
    ).toEqual([
      'spec.target: is required: what to probe, such as https://{{ system.name }}.example.com/health',
      'spec.grace: only a heartbeat check has grace; a http check runs every interval',
    ]);
  });
});
