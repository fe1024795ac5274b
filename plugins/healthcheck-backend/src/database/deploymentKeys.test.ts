import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { readDeploymentKey } from './deploymentKeys';
import { migrateDown, migrateUp } from './migrations';

jest.setTimeout(60_000);

describe('readDeploymentKey', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  async function databaseOf(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    return {
      knex,
      database: mockServices.database({ knex, migrations: { skip: false } }),
    };
  }

  it.each(databases.eachSupportedId())(
    'makes a random 32-byte key once and reads the same one ever after, on %p',
    async databaseId => {
      const { database } = await databaseOf(databaseId);
      const first = await readDeploymentKey(database, 'live-keys');
      expect(first).toHaveLength(32);
      expect(first.equals(Buffer.alloc(32))).toBe(false);
      expect(
        (await readDeploymentKey(database, 'live-keys')).equals(first),
      ).toBe(true);
    },
  );

  it.each(databases.eachSupportedId())(
    'gives instances that start at once one key, on %p',
    async databaseId => {
      const { database } = await databaseOf(databaseId);
      const keys = await Promise.all(
        Array.from({ length: 8 }, () =>
          readDeploymentKey(database, 'live-keys'),
        ),
      );
      expect(new Set(keys.map(key => key.toString('base64'))).size).toBe(1);
    },
  );

  it.each(databases.eachSupportedId())(
    'gives each deployment its own key, on %p',
    async databaseId => {
      const one = await databaseOf(databaseId);
      const other = await databaseOf(databaseId);
      const [a, b] = await Promise.all([
        readDeploymentKey(one.database, 'live-keys'),
        readDeploymentKey(other.database, 'live-keys'),
      ]);
      expect(a.equals(b)).toBe(false);
    },
  );

  it.each(databases.eachSupportedId())(
    'keeps keys in a table its migration adds and removes, on %p',
    async databaseId => {
      const { knex, database } = await databaseOf(databaseId);
      await readDeploymentKey(database, 'live-keys');
      expect(await knex.schema.hasTable('healthcheck_deployment_keys')).toBe(
        true,
      );
      await migrateDown(knex);
      expect(await knex.schema.hasTable('healthcheck_deployment_keys')).toBe(
        false,
      );
      await migrateUp(knex);
      expect(await knex('healthcheck_deployment_keys')).toEqual([]);
    },
  );
});
