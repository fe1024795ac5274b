import {
  DatabaseService,
  resolvePackagePath,
} from '@backstage/backend-plugin-api';
import { Knex } from 'knex';

const MIGRATIONS_DIR = resolvePackagePath(
  '@vigil/plugin-healthcheck-backend',
  'migrations',
);

/** One migration run per client, however many stores share it. */
const migrated = new WeakMap<Knex, Promise<void>>();

/**
 * The plugin's database client with its migrations applied (unless the
 * database service says to skip them). Every store starts from it; the
 * migrations run once per client.
 * @internal
 */
export async function migratedClient(database: DatabaseService): Promise<Knex> {
  const client = await database.getClient();
  if (!database.migrations?.skip) {
    let done = migrated.get(client);
    if (!done) {
      done = migrateUp(client);
      migrated.set(client, done);
      done.catch(() => migrated.delete(client));
    }
    await done;
  }
  return client;
}

/** Applies every migration in `migrations/`. @internal */
export async function migrateUp(knex: Knex): Promise<void> {
  await knex.migrate.latest({ directory: MIGRATIONS_DIR });
}

/** Rolls every migration back. @internal */
export async function migrateDown(knex: Knex): Promise<void> {
  await knex.migrate.rollback({ directory: MIGRATIONS_DIR }, true);
}
