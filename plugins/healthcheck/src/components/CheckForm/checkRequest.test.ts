import { checkRequestOf } from './checkRequest';
import {
  checkFormValuesOf,
  emptyCheckFormValues,
  newConditionRow,
  newEnvironmentOverrideRow,
} from './formValues';
import { storedCheck, valuesWith } from './__testUtils__/formFixtures';

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
