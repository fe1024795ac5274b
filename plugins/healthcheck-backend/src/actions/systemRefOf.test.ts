import { systemRefOf } from './systemRefOf';

describe('systemRefOf', () => {
  it('reads a name, a namespaced name and a full ref as the same canonical ref', () => {
    expect(systemRefOf('payments')).toBe('system:default/payments');
    expect(systemRefOf('default/Payments')).toBe('system:default/payments');
    expect(systemRefOf(' System:Default/payments ')).toBe(
      'system:default/payments',
    );
    expect(systemRefOf('team-a/alpha')).toBe('system:team-a/alpha');
  });

  it('refuses the ref of another kind, naming the field', () => {
    expect(() => systemRefOf('component:default/api')).toThrow(
      "system: 'component:default/api' is a component, not a System; give a System's name or ref",
    );
  });

  it('refuses text that is no entity ref', () => {
    expect(() => systemRefOf('system:default/', 'upstream')).toThrow(
      "upstream: 'system:default/' is not an entity ref (payments, default/payments or system:default/payments)",
    );
    expect(() => systemRefOf('')).toThrow(/^system: '' is not an entity ref/);
  });
});
