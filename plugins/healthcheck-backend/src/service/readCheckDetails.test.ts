import { mockCredentials } from '@backstage/backend-test-utils';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import type { StoredCheck } from '../database/HealthcheckStore';
import { readDemoCatalog } from '../reconciler/__testUtils__/demoCatalog';
import { readCheckDetails } from './readCheckDetails';

const apiCheck: StoredCheck = {
  id: 'identity-login-page',
  title: 'Identity login page',
  spec: {
    type: 'http',
    target: 'http://127.0.0.1:7010/production/identity/health',
    systems: ['system:default/identity'],
  },
  revision: 2,
  createdBy: 'user:default/ada',
  createdAt: new Date('2026-11-01T00:00:00Z'),
  updatedBy: 'user:default/ada',
  updatedAt: new Date('2026-11-02T00:00:00Z'),
};

describe('readCheckDetails', () => {
  it('reads API checks from the store and GitOps ones from the catalog, in the order asked, leaving out what does not exist', async () => {
    const details = await readCheckDetails({
      ids: [
        'healthcheck:default/payments-health',
        'identity-login-page',
        'no-such-check',
        'healthcheck:default/no-such-entity',
        'HealthCheck:default/Checkout-Health',
      ],
      store: {
        getCheck: async id => (id === apiCheck.id ? apiCheck : undefined),
      },
      catalog: catalogServiceMock({ entities: readDemoCatalog() }),
      credentials: mockCredentials.user(),
    });

    expect(details.map(d => [d.id, d.source.kind])).toEqual([
      ['healthcheck:default/payments-health', 'gitops'],
      ['identity-login-page', 'api'],
      ['healthcheck:default/checkout-health', 'gitops'],
    ]);
    expect(details[1]).toMatchObject({
      title: 'Identity login page',
      revision: 2,
      source: { createdBy: 'user:default/ada' },
    });
  });
});
