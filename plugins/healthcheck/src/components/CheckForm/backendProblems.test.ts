import { fieldOfProblemPath, placeProblems } from './backendProblems';
import {
  emptyCheckFormValues,
  newConditionRow,
  newEnvironmentOverrideRow,
} from './formValues';
import { valuesWith } from './__testUtils__/formFixtures';

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
