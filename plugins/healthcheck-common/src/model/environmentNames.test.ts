import {
  ENVIRONMENT_NAME_PATTERN,
  environmentNameProblem,
  validateCheckEnvironmentNames,
} from './environmentNames';

const RULE =
  'an environment name is 1 to 63 letters, digits and "-", starting and ending with a letter or digit, compared in lower case';

describe('environmentNameProblem', () => {
  it.each([
    'production',
    'Production',
    ' staging ',
    'eu-west-1',
    'a',
    '0',
    'x'.repeat(63),
    'default',
  ])('accepts %j', name => {
    expect(environmentNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['evil.example/x?', '"." is not allowed'],
    ['x@evil.example#', '"@" is not allowed'],
    ['eu_west', '"_" is not allowed'],
    ['eu west', '" " is not allowed'],
    ['prod\u0000', '"\\u0000" is not allowed'],
    ['prød', '"ø" is not allowed'],
    ['', 'it is empty'],
    ['  ', 'it is empty'],
    ['-prod', 'it starts with "-"'],
    ['prod-', 'it ends with "-"'],
    ['x'.repeat(64), 'it has 64 characters'],
  ])('refuses %j: %s', (name, why) => {
    expect(environmentNameProblem(name)).toBe(
      `${JSON.stringify(name)} is not an environment name: ${why}; ${RULE}`,
    );
  });

  it('is one DNS label, so a name can never add or change a label of a host', () => {
    expect(ENVIRONMENT_NAME_PATTERN.test('a.b')).toBe(false);
    expect(ENVIRONMENT_NAME_PATTERN.test('A')).toBe(false);
  });
});

describe('validateCheckEnvironmentNames', () => {
  it('names each bad item of the filter by index and each bad override by key', () => {
    expect(
      validateCheckEnvironmentNames({
        environments: ['Production', 'evil.example/x?', 42],
        environmentOverrides: {
          staging: {},
          'x@evil.example#': { target: 'https://x.example.com' },
        },
      }),
    ).toEqual([
      {
        field: 'environments',
        index: 1,
        reason: environmentNameProblem('evil.example/x?'),
      },
      {
        field: 'environmentOverrides',
        key: 'x@evil.example#',
        reason: environmentNameProblem('x@evil.example#'),
      },
    ]);
  });

  it('leaves what is not a list or an object to the schema', () => {
    expect(validateCheckEnvironmentNames(undefined)).toEqual([]);
    expect(
      validateCheckEnvironmentNames({
        environments: 'prod',
        environmentOverrides: ['x.y'],
      }),
    ).toEqual([]);
  });
});
