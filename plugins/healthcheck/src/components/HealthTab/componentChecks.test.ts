import { Entity } from '@backstage/catalog-model';
import { checksTargetingComponent } from './componentChecks';

const paymentsService: Entity = {
  apiVersion: 'backstage.io/v1alpha1',
  kind: 'Component',
  metadata: { name: 'payments-service', namespace: 'default' },
};

describe('checksTargetingComponent', () => {
  it('keeps the checks whose components include the component', () => {
    const checks = [
      { checkId: 'a', components: ['component:default/payments-service'] },
      { checkId: 'b', components: ['component:default/checkout-service'] },
      { checkId: 'c' },
      {
        checkId: 'd',
        components: [
          'component:default/checkout-service',
          'component:default/payments-service',
        ],
      },
    ];
    expect(
      checksTargetingComponent(checks, paymentsService).map(c => c.checkId),
    ).toEqual(['a', 'd']);
  });

  it('compares refs canonically: case, kind and namespace filled in', () => {
    const checks = [
      { checkId: 'a', components: ['Component:default/Payments-Service'] },
      { checkId: 'b', components: ['payments-service'] },
      { checkId: 'c', components: ['component:shop/payments-service'] },
    ];
    expect(
      checksTargetingComponent(checks, {
        ...paymentsService,
        metadata: { name: 'Payments-Service' },
      }).map(c => c.checkId),
    ).toEqual(['a', 'b']);
  });
});
