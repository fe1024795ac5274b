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
      { path: 'spec.paused', reason: 'must be true or false, not number 1' },
      {
        path: 'spec.interval',
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
      { path: 'environmentOverrides', reason: '"" is not a valid key here' },
      {
        path: 'systems[0]',
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
        path: 'components[1]',
        reason: '"system:shop" refers to a system; a check targets components',
      },
      {
        path: 'components[2]',
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
        path: 'spec.environmentOverrides.eu-west.target',
        reason:
          'unknown placeholder "{{ region }}" at position 7; use {{ system.name }} or {{ environment.name }}',
      },
    ]);
  });

  it('refuses an owner that is not an entity ref', () => {
    expect(validateHealthCheckSpec({ ...spec, owner: 'group:' })).toEqual([
      {
        path: 'spec.owner',
        reason: expect.stringContaining('Entity reference "group:"'),
      },
    ]);
  });
});
