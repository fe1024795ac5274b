import {
  DatabaseService,
  resolvePackagePath,
} from '@backstage/backend-plugin-api';
import { ConflictError } from '@backstage/errors';
import { Knex } from 'knex';
import { HealthcheckStore, StoredCheck } from './HealthcheckStore';

const MIGRATIONS_DIR = resolvePackagePath(
  '@vigil/plugin-healthcheck-backend',
  'migrations',
);

type CheckRow = {
  id: string;
  title: string | null;
  spec: string;
  created_by: string;
  created_at: Date | string;
  updated_at: Date | string;
};

/** {@link HealthcheckStore} on the plugin's database, SQLite or PostgreSQL. */
export class DatabaseHealthcheckStore implements HealthcheckStore {
  readonly #db: Knex;

  static async create(options: {
    database: DatabaseService;
  }): Promise<DatabaseHealthcheckStore> {
    const client = await options.database.getClient();
    if (!options.database.migrations?.skip) {
      await DatabaseHealthcheckStore.migrateUp(client);
    }
    return new DatabaseHealthcheckStore(client);
  }

  static async migrateUp(knex: Knex): Promise<void> {
    await knex.migrate.latest({ directory: MIGRATIONS_DIR });
  }

  static async migrateDown(knex: Knex): Promise<void> {
    await knex.migrate.rollback({ directory: MIGRATIONS_DIR }, true);
  }

  private constructor(db: Knex) {
    this.#db = db;
  }

  async listChecks(): Promise<StoredCheck[]> {
    const rows = await this.#db<CheckRow>('healthcheck_checks').orderBy('id');
    return rows.map(toStoredCheck);
  }

  async insertCheck(
    check: Pick<StoredCheck, 'id' | 'title' | 'spec' | 'createdBy'>,
  ): Promise<StoredCheck> {
    const inserted = await this.#db<CheckRow>('healthcheck_checks')
      .insert({
        id: check.id,
        title: check.title ?? null,
        spec: JSON.stringify(check.spec),
        created_by: check.createdBy,
      })
      .onConflict('id')
      .ignore()
      .returning('*');
    if (inserted.length === 0) {
      throw new ConflictError(`A check with id '${check.id}' already exists`);
    }
    return toStoredCheck(inserted[0]);
  }
}

function toStoredCheck(row: CheckRow): StoredCheck {
  return {
    id: row.id,
    title: row.title ?? undefined,
    spec: JSON.parse(row.spec),
    createdBy: row.created_by,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}
