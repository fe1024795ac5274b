import { newEnvironmentOverrideRow } from './formValues';
import { validateCheckForm } from './validateCheckForm';
import { valuesWith } from './__testUtils__/formFixtures';

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
