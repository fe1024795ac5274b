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
