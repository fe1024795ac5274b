import { systemsOfChange } from './checkChanges';

describe('systemsOfChange', () => {
  it('names the systems of a created check as full refs', () => {
    expect(
      systemsOfChange(undefined, {
        systems: ['payments', 'system:billing', 'system:team-a/ledger'],
      }),
    ).toEqual([
      'system:default/billing',
      'system:default/payments',
      'system:team-a/ledger',
    ]);
  });

  it('joins the old and the new assignment of an update, each system once', () => {
    expect(
      systemsOfChange(
        { systems: ['system:default/payments', 'billing'] },
        { systems: ['System:default/Payments', 'checkout'] },
      ),
    ).toEqual([
      'system:default/billing',
      'system:default/checkout',
      'system:default/payments',
    ]);
  });

  it('names the systems of a deleted check', () => {
    expect(systemsOfChange({ systems: ['payments'] }, undefined)).toEqual([
      'system:default/payments',
    ]);
  });

  it('keeps a ref that does not parse as written', () => {
    expect(systemsOfChange({ systems: ['system:', 'payments'] })).toEqual([
      'system:',
      'system:default/payments',
    ]);
  });
});
