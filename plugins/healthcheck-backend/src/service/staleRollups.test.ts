import {
  mockCredentials,
  mockServices,
  TestDatabases,
} from '@backstage/backend-test-utils';
import request from 'supertest';
import { appWithErrorMiddleware } from '../__testUtils__/appWithErrorMiddleware';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { badgeLoaders, createBadgeRouter } from '../badges';
import { liveKeysUnder } from '../rollup/liveKeys';
import {
  DEMO_SLICES,
  healthTestbed,
} from '../rollup/__testUtils__/healthTestbed';
import { createApiRouter } from './createApiRouter';
import { createSystemsRouter } from './systemsRouter';
import type { HistoryStore } from '../model';

jest.setTimeout(60_000);

describe('rollups while the database cannot be read', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const testbed = healthTestbed(databases);

  afterAll(async () => {
    await testbed.close();
  });

  it.each(databases.eachSupportedId())(
    'answers the API and badges from the last rollups read, marked stale, not 500, on %p',
    async databaseId => {
      const { knex, catalog } = await testbed.setup(databaseId);
      // This instance's own connection to the database, which it loses.
      const client = testbed.otherClient(knex);
      const store = testbed.storeOn(client);
      let clock = Date.now();
      const health = testbed.instance(store, catalog, 'a', {
        now: () => clock,
      });
      await testbed.setStatus(store, DEMO_SLICES[0], 'unhealthy', 'down');
      await testbed.setStatus(store, DEMO_SLICES[1], 'healthy');
      await health.rollups.recompute('system:default/payments');
      const liveKeyOf = liveKeysUnder(Buffer.alloc(32));
      const logger = mockServices.logger.mock();
      const app = appWithErrorMiddleware(
        createApiRouter([
          createSystemsRouter({
            httpAuth: mockServices.httpAuth(),
            catalog,
            permissions: mockServices.permissions(),
            checks: { getCheck: async () => undefined },
            states: store,
            history: {} as HistoryStore,
            loadRollup: ref => health.rollups.get(ref),
            loadRollups: refs => health.rollups.getMany(refs),
            liveKeyOf,
          }),
          createBadgeRouter({
            logger,
            ...badgeLoaders({
              logger,
              loadRollup: ref => health.rollups.getOrEmpty(ref),
              history: {} as HistoryStore,
            }),
          }),
        ]),
      );
      const user = mockCredentials.user.header();
      const get = (path: string) =>
        request(app).get(path).set('Authorization', user);
      const read = async () => ({
        list: await get('/v1/systems'),
        payments: await get('/v1/systems/default/payments'),
        badge: await get('/v1/badges/systems/default/payments?format=json'),
      });

      const before = await read();
      expect(before.payments.body).toMatchObject({ status: 'unhealthy' });
      expect(before.payments.body).not.toHaveProperty('stale');

      await client.destroy();
      // Past every cache's time to live.
      clock += 60_000;
      const during = await read();

      expect(during.payments.status).toBe(200);
      expect(during.payments.body).toMatchObject({
        systemRef: 'system:default/payments',
        status: 'unhealthy',
        reasons: [expect.objectContaining({ display: 'down' })],
        stale: true,
      });
      // The matrix is the last one read too.
      expect(during.payments.body.checks).toEqual(before.payments.body.checks);
      expect(during.list.status).toBe(200);
      expect(
        during.list.body.items.map(
          (item: any) => `${item.name} ${item.status} ${item.stale}`,
        ),
      ).toEqual(
        before.list.body.items.map(
          (item: any) => `${item.name} ${item.status} true`,
        ),
      );
      expect(during.badge.status).toBe(200);
      expect(during.badge.body).toMatchObject({
        label: 'payments',
        message: 'unhealthy, 1/2 ok (stale)',
        color: 'red',
      });
    },
  );
});
