import { CheckDetails } from '@vigil/plugin-healthcheck-common';
import {
  CheckFormValues,
  checkFormValuesOf,
  checkRequestOf,
  emptyCheckFormValues,
  fieldOfProblemPath,
  gitUrlOfLocation,
  newConditionRow,
  newEnvironmentOverrideRow,
  placeProblems,
  validateCheckForm,
} from './checkFormModel';

const storedCheck: CheckDetails = {
  id: 'payments-http',
  title: 'Payments HTTP',
  revision: 3,
  spec: {
    type: 'http',
    target: 'https://payments.example/{{ environment.name }}/health',
    conditions: [
      '[STATUS] == 200',
      { condition: '[RESPONSE_TIME] < 500', severity: 'degraded' },
      { condition: '[BODY].status == UP', severity: 'unhealthy' },
      { condition: '[CONNECTED] == true' },
    ],
    environmentOverrides: {
      production: { target: 'https://payments.example/health' },
      'eu west': {
        config: { headers: { Authorization: 'Bearer eu', Accept: null } },
      },
      Staging: { target: 'https://staging.example/health', config: {} },
    },
    config: { method: 'HEAD' },
    systems: ['system:default/payments'],
    components: ['component:default/payments-service'],
  },
  source: {
    kind: 'api',
    createdBy: 'user:default/ada',
    createdAt: '2025-01-01T00:00:00.000Z',
    updatedBy: 'user:default/ada',
    updatedAt: '2025-01-02T00:00:00.000Z',
  },
};

/** What a create needs, and the given fields. */
function valuesWith(values: Partial<CheckFormValues>): CheckFormValues {
  return {
    ...emptyCheckFormValues(),
    id: 'payments-http',
    type: 'http',
    target: 'https://{{ system.name }}.example/health',
    systems: ['payments'],
    ...values,
  };
}

describe('fieldOfProblemPath', () => {
  it.each([
    [['id'], { field: 'id' }],
    [['title'], { field: 'title' }],
    [['spec', 'type'], { field: 'type' }],
    [['spec', 'target'], { field: 'target' }],
    [['spec', 'interval'], { field: 'interval' }],
    [['spec', 'timeout'], { field: 'timeout' }],
    [['spec', 'conditions'], { field: 'conditions', index: undefined }],
    [['spec', 'conditions', 2], { field: 'conditions', index: 2 }],
    [['spec', 'systems', 0], { field: 'systems', index: 0 }],
    [['spec', 'components', 1], { field: 'components', index: 1 }],
    [['spec', 'environments', 1], { field: 'environments', index: 1 }],
    [['spec', 'thresholds', 'failure'], { field: 'thresholdFailure' }],
    [['spec', 'thresholds', 'success'], { field: 'thresholdSuccess' }],
    [['spec', 'config'], { field: 'config' }],
    [
      ['spec', 'config', 'headers', 'Authorization'],
      { field: 'config', detail: 'headers.Authorization' },
    ],
    [['spec', 'paused'], { field: 'paused' }],
    [['spec', 'owner'], { field: 'owner' }],
    [['spec', 'environmentOverrides'], { field: 'environmentOverrides' }],
    [
      ['spec', 'environmentOverrides', 'prod'],
      {
        field: 'environmentOverrides',
        environment: 'prod',
        overrideField: 'environment',
      },
    ],
    [
      ['spec', 'environmentOverrides', 'prod', 'target'],
      {
        field: 'environmentOverrides',
        environment: 'prod',
        overrideField: 'target',
      },
    ],
    [
      ['spec', 'environmentOverrides', 'eu-west_2', 'config'],
      {
        field: 'environmentOverrides',
        environment: 'eu-west_2',
        overrideField: 'config',
      },
    ],
    [
      [
        'spec',
        'environmentOverrides',
        'eu west',
        'config',
        'headers',
        'Accept',
      ],
      {
        field: 'environmentOverrides',
        environment: 'eu west',
        overrideField: 'config',
        detail: 'headers.Accept',
      },
    ],
    [
      ['spec', 'environmentOverrides', 'say "hi"', 'target'],
      {
        field: 'environmentOverrides',
        environment: 'say "hi"',
        overrideField: 'target',
      },
    ],
    [
      ['spec', 'environmentOverrides', 'prod', 'interval'],
      {
        field: 'environmentOverrides',
        environment: 'prod',
        overrideField: 'environment',
        detail: 'interval',
      },
    ],
    [['spec'], {}],
    [['revision'], {}],
    [[], {}],
  ])('places %j', (path, expected) => {
    expect(fieldOfProblemPath(path)).toEqual(expected);
  });

  it('does not take a longer name for a field', () => {
    expect(fieldOfProblemPath(['spec', 'typed'])).toEqual({});
    expect(
      fieldOfProblemPath(['spec', 'environmentOverridesX', 'prod']),
    ).toEqual({});
  });
});

describe('placeProblems', () => {
  it('names the environment or the config key a problem is about', () => {
    const values = {
      ...emptyCheckFormValues(),
      environments: 'production, Staging ',
    };
    expect(
      placeProblems(
        [
          {
            path: ['spec', 'environments', 1],
            reason: 'is not an environment',
          },
          { path: ['spec', 'config', 'method'], reason: 'must be GET or HEAD' },
          { path: [], reason: 'the body must be a JSON object' },
        ],
        values,
      ),
    ).toEqual({
      fields: {
        environments: ['Staging: is not an environment'],
        config: ['method: must be GET or HEAD'],
      },
      conditions: {},
      overrides: {},
      top: ['the body must be a JSON object'],
    });
  });

  it('places a condition at its row, counting only the rows that were sent', () => {
    const values = valuesWith({
      conditions: [
        newConditionRow('[STATUS] == 200'),
        newConditionRow('  '),
        newConditionRow('[BODY.status == UP', 'degraded'),
      ],
    });
    expect(
      placeProblems(
        [
          { path: ['spec', 'conditions', 1], reason: 'unbalanced brackets' },
          { path: ['spec', 'conditions', 5], reason: 'no such condition' },
          { path: ['spec', 'conditions'], reason: 'must be a list' },
        ],
        values,
      ),
    ).toEqual({
      fields: {
        conditions: ['Condition 6: no such condition', 'must be a list'],
      },
      conditions: { [values.conditions[2].key]: ['unbalanced brackets'] },
      overrides: {},
      top: [],
    });
  });

  it("places an override's problems at the fields of its environment's row", () => {
    const values = valuesWith({
      environmentOverrides: [
        newEnvironmentOverrideRow({ environment: 'Production ' }),
        newEnvironmentOverrideRow({ environment: 'eu west', config: '{}' }),
      ],
    });
    const [production, euWest] = values.environmentOverrides;
    expect(
      placeProblems(
        [
          {
            path: ['spec', 'environmentOverrides', 'Production', 'target'],
            reason: 'unknown placeholder {{ region }}',
          },
          {
            path: [
              'spec',
              'environmentOverrides',
              'eu west',
              'config',
              'method',
            ],
            reason: 'must be GET or HEAD',
          },
          {
            path: ['spec', 'environmentOverrides', 'eu west', 'interval'],
            reason: 'unknown field; the fields here are target, config',
          },
          {
            path: ['spec', 'environmentOverrides', 'staging', 'target'],
            reason: 'unknown placeholder {{ zone }}',
          },
          {
            path: ['spec', 'environmentOverrides'],
            reason: '"" is not a valid key here',
          },
        ],
        values,
      ),
    ).toEqual({
      fields: { environmentOverrides: ['"" is not a valid key here'] },
      conditions: {},
      overrides: {
        [production.key]: { target: ['unknown placeholder {{ region }}'] },
        [euWest.key]: {
          config: ['method: must be GET or HEAD'],
          environment: [
            'interval: unknown field; the fields here are target, config',
          ],
        },
      },
      // An environment the form has no row for is said with its path.
      top: [
        'spec.environmentOverrides.staging.target: unknown placeholder {{ zone }}',
      ],
    });
  });
});

describe('validateCheckForm', () => {
  it('asks for the name of an override and refuses a second name of one environment', () => {
    const values = valuesWith({
      environmentOverrides: [
        newEnvironmentOverrideRow({ environment: 'Production', target: 'a' }),
        newEnvironmentOverrideRow({ target: 'b' }),
        newEnvironmentOverrideRow({ environment: ' production', target: 'c' }),
        // Left wholly blank: ignored, like a blank condition.
        newEnvironmentOverrideRow(),
      ],
    });
    const [, unnamed, repeated] = values.environmentOverrides;
    expect(validateCheckForm(values, 'create')).toEqual({
      fields: {},
      conditions: {},
      overrides: {
        [unnamed.key]: { environment: ['Name the environment'] },
        [repeated.key]: {
          environment: [
            'names the same environment as "Production" (names are compared without regard to case); merge the two',
          ],
        },
      },
      top: [],
    });
  });

  it("parses an override's probe config as a JSON object", () => {
    const values = valuesWith({
      environmentOverrides: [
        newEnvironmentOverrideRow({ environment: 'a', config: '{ "x": ' }),
        newEnvironmentOverrideRow({ environment: 'b', config: '[1]' }),
        newEnvironmentOverrideRow({ environment: 'c', config: '{}' }),
      ],
    });
    const [broken, list] = values.environmentOverrides;
    const { overrides } = validateCheckForm(values, 'create');
    expect(overrides).toEqual({
      [broken.key]: { config: [expect.stringMatching(/^Not valid JSON: /)] },
      [list.key]: {
        config: ['Must be a JSON object, such as { "method": "GET" }'],
      },
    });
  });
});

describe('checkRequestOf', () => {
  it('saves a stored check unchanged when nothing was touched', () => {
    const { title, spec } = storedCheck;
    expect(checkRequestOf(checkFormValuesOf(storedCheck), storedCheck)).toEqual(
      { title, spec },
    );
  });

  it('shows each condition with its severity, and each override', () => {
    const values = checkFormValuesOf(storedCheck);
    expect(
      values.conditions.map(({ condition, severity }) => [condition, severity]),
    ).toEqual([
      ['[STATUS] == 200', 'unhealthy'],
      ['[RESPONSE_TIME] < 500', 'degraded'],
      ['[BODY].status == UP', 'unhealthy'],
      ['[CONNECTED] == true', 'unhealthy'],
    ]);
    expect(
      values.environmentOverrides.map(({ key: _key, ...fields }) => fields),
    ).toEqual([
      {
        environment: 'production',
        target: 'https://payments.example/health',
        config: '',
      },
      {
        environment: 'eu west',
        target: '',
        config: JSON.stringify(
          { headers: { Authorization: 'Bearer eu', Accept: null } },
          null,
          2,
        ),
      },
      {
        environment: 'Staging',
        target: 'https://staging.example/health',
        config: '{}',
      },
    ]);
  });

  it('writes a severity only where it is not the default, or was written before', () => {
    const values = checkFormValuesOf(storedCheck);
    values.conditions[0].severity = 'degraded';
    values.conditions[1].severity = 'unhealthy';
    values.conditions[2].condition = '[BODY].status == "UP"';
    values.conditions.push(newConditionRow('[IP] == 10.0.0.1', 'degraded'));
    expect(checkRequestOf(values, storedCheck).spec.conditions).toEqual([
      { condition: '[STATUS] == 200', severity: 'degraded' },
      '[RESPONSE_TIME] < 500',
      '[BODY].status == "UP"',
      { condition: '[CONNECTED] == true' },
      { condition: '[IP] == 10.0.0.1', severity: 'degraded' },
    ]);
  });

  it('sends the overrides as the form has them, and none when all are removed', () => {
    const values = checkFormValuesOf(storedCheck);
    values.environmentOverrides = [
      { ...values.environmentOverrides[0], target: ' ' },
      { ...values.environmentOverrides[2], environment: ' QA ', config: '' },
      newEnvironmentOverrideRow({
        environment: 'eu-central',
        config: '{ "headers": { "Authorization": null } }',
      }),
      newEnvironmentOverrideRow(),
    ];
    expect(
      checkRequestOf(values, storedCheck).spec.environmentOverrides,
    ).toEqual({
      production: {},
      QA: { target: 'https://staging.example/health' },
      'eu-central': { config: { headers: { Authorization: null } } },
    });

    values.environmentOverrides = [];
    expect(checkRequestOf(values, storedCheck).spec).not.toHaveProperty(
      'environmentOverrides',
    );
  });

  it('keeps an environment named like a property of every object as a key', () => {
    const { spec } = checkRequestOf(
      valuesWith({
        environmentOverrides: [
          newEnvironmentOverrideRow({ environment: '__proto__', target: 'x' }),
        ],
      }),
    );
    expect(Object.keys(spec.environmentOverrides!)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(spec.environmentOverrides)).toBe(
      Object.prototype,
    );
  });

  it('sends the targeted components, and none when all are removed', () => {
    const values = checkFormValuesOf(storedCheck);
    expect(values.components).toEqual(['component:default/payments-service']);
    expect(
      checkRequestOf(
        { ...values, components: [...values.components, 'payments-db'] },
        storedCheck,
      ).spec.components,
    ).toEqual(['component:default/payments-service', 'payments-db']);
    expect(
      checkRequestOf({ ...values, components: [] }, storedCheck).spec,
    ).not.toHaveProperty('components');
  });

  it('leaves out what was left empty on a create', () => {
    expect(
      checkRequestOf({
        ...emptyCheckFormValues(),
        type: 'tcp',
        target: ' db.example:5432 ',
        systems: ['payments'],
        config: '{ "tls": false }',
      }),
    ).toEqual({
      spec: {
        type: 'tcp',
        target: 'db.example:5432',
        systems: ['payments'],
        config: { tls: false },
      },
    });
  });
});

describe('gitUrlOfLocation', () => {
  it('reads a url location, and nothing else', () => {
    expect(gitUrlOfLocation('url:https://git.example/a.yaml')).toBe(
      'https://git.example/a.yaml',
    );
    expect(gitUrlOfLocation('file:/tmp/a.yaml')).toBeUndefined();
    expect(gitUrlOfLocation(undefined)).toBeUndefined();
  });
});
