import {
  checkRequestOf,
  emptyCheckFormValues,
  fieldOfProblemPath,
  gitUrlOfLocation,
  placeProblems,
} from './checkFormModel';

describe('fieldOfProblemPath', () => {
  it.each([
    ['id', { field: 'id' }],
    ['title', { field: 'title' }],
    ['spec.type', { field: 'type' }],
    ['spec.target', { field: 'target' }],
    ['spec.interval', { field: 'interval' }],
    ['spec.timeout', { field: 'timeout' }],
    ['spec.conditions', { field: 'conditions', index: undefined }],
    ['spec.conditions[2]', { field: 'conditions', index: 2 }],
    ['spec.systems[0]', { field: 'systems', index: 0 }],
    ['spec.environments[1]', { field: 'environments', index: 1 }],
    ['spec.thresholds.failure', { field: 'thresholdFailure' }],
    ['spec.thresholds.success', { field: 'thresholdSuccess' }],
    ['spec.config.headers.Authorization', { field: 'config' }],
    ['spec.paused', { field: 'paused' }],
    ['spec.owner', { field: 'owner' }],
    ['spec.environmentOverrides.prod.target', {}],
    ['spec', {}],
    ['revision', {}],
    ['', {}],
  ])('places %s', (path, expected) => {
    expect(fieldOfProblemPath(path)).toEqual(expected);
  });

  it('does not take a longer name for a field', () => {
    expect(fieldOfProblemPath('spec.typed')).toEqual({});
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
          { path: 'spec.environments[1]', reason: 'is not an environment' },
          { path: 'spec.config.method', reason: 'must be GET or HEAD' },
          { path: '', reason: 'the body must be a JSON object' },
        ],
        values,
      ),
    ).toEqual({
      fields: {
        environments: ['Staging: is not an environment'],
        config: ['method: must be GET or HEAD'],
      },
      top: ['the body must be a JSON object'],
    });
  });
});

describe('checkRequestOf', () => {
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
