import { canonicalComponentRef, canonicalComponentRefs } from './componentRefs';

describe('canonicalComponentRef', () => {
  it('fills in kind component and the namespace, in lower case', () => {
    expect(canonicalComponentRef('payments-service')).toBe(
      'component:default/payments-service',
    );
    expect(canonicalComponentRef('Shop/Payments-Service')).toBe(
      'component:shop/payments-service',
    );
    expect(canonicalComponentRef('payments-service', 'shop')).toBe(
      'component:shop/payments-service',
    );
    expect(canonicalComponentRef('Component:default/payments-service')).toBe(
      'component:default/payments-service',
    );
  });

  it('gives undefined for a ref that does not parse', () => {
    expect(canonicalComponentRef('component:x/')).toBeUndefined();
  });
});

describe('canonicalComponentRefs', () => {
  it('lists each component once, sorted, and drops refs that do not parse', () => {
    expect(
      canonicalComponentRefs([
        'payments-service',
        'component:default/Payments-Service',
        'auth-service',
        'component:x/',
      ]),
    ).toEqual([
      'component:default/auth-service',
      'component:default/payments-service',
    ]);
  });

  it('is empty without components', () => {
    expect(canonicalComponentRefs(undefined)).toEqual([]);
  });
});
