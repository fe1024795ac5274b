import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { DatabaseHealthcheckStore } from './DatabaseHealthcheckStore';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';

jest.setTimeout(60_000);

describe('DatabaseHealthcheckStore', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  async function createStore(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const database = mockServices.database({
      knex,
      migrations: { skip: false },
    });
    return { knex, store: await DatabaseHealthcheckStore.create({ database }) };
  }

  it.each(databases.eachSupportedId())(
    'stores a check and lists it back, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      expect(await store.listChecks()).toEqual([]);

      await store.insertCheck({
        id: 'payments-http',
        title: 'Payments API',
        spec: { type: 'http', target: 'http://127.0.0.1:7010/healthy' },
        createdBy: 'user:default/alice',
      });

      const checks = await store.listChecks();
      expect(checks).toHaveLength(1);
      expect(checks[0]).toMatchObject({
        id: 'payments-http',
        title: 'Payments API',
        spec: { type: 'http', target: 'http://127.0.0.1:7010/healthy' },
        createdBy: 'user:default/alice',
      });
      expect(checks[0].createdAt).toBeInstanceOf(Date);
    },
  );

  it.each(databases.eachSupportedId())(
    'refuses a second check with the same id, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const check = { id: 'dup', spec: {}, createdBy: 'user:default/alice' };
      await store.insertCheck(check);
      await expect(store.insertCheck(check)).rejects.toThrow(
        "A check with id 'dup' already exists",
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'migrates down to nothing and up again, on %p',
    async databaseId => {
      const { knex } = await createStore(databaseId);
      await DatabaseHealthcheckStore.migrateDown(knex);
      expect(await knex.schema.hasTable('healthcheck_checks')).toBe(false);
      await DatabaseHealthcheckStore.migrateUp(knex);
      expect(await knex.schema.hasTable('healthcheck_checks')).toBe(true);
    },
  );
});
