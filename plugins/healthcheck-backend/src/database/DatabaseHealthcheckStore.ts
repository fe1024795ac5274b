import { DatabaseService } from '@backstage/backend-plugin-api';
import { migratedClient } from './migrations';
import { ConflictError, NotFoundError } from '@backstage/errors';
import { Knex } from 'knex';
import {
  CheckUpdate,
  HealthcheckStore,
  NewCheck,
  StoredCheck,
} from './HealthcheckStore';

const CHECKS_TABLE = 'healthcheck_checks';

/**
 * How often a write without an expected revision re-reads and tries again
 * when other writers keep changing the same check in between.
 */
const CONTENDED_WRITE_ATTEMPTS = 5;

type CheckRow = {
  id: string;
  title: string | null;
  spec: string;
  revision: number | string;
  created_by: string;
  created_at: Date | string | number;
  updated_by: string | null;
  updated_at: Date | string | number;
};

/**
 * {@link HealthcheckStore} on the plugin's database, SQLite or PostgreSQL.
 *
 * Updates are compare-and-swap on the `revision` column (`WHERE revision =
 * <the one read>`), so they need no row locks, which SQLite does not have,
 * and a stale writer gets a ConflictError instead of a lost update.
 * @internal
 */
export class DatabaseHealthcheckStore implements HealthcheckStore {
  readonly #db: Knex;

  static async create(options: {
    database: DatabaseService;
  }): Promise<DatabaseHealthcheckStore> {
    const client = await migratedClient(options.database);
    return new DatabaseHealthcheckStore(client);
  }

  private constructor(db: Knex) {
    this.#db = db;
  }

  async listChecks(): Promise<StoredCheck[]> {
    const rows = await this.#db<CheckRow>(CHECKS_TABLE).orderBy('id');
    return rows.map(toStoredCheck);
  }

  async getCheck(id: string): Promise<StoredCheck | undefined> {
    const row = await this.#db<CheckRow>(CHECKS_TABLE).where({ id }).first();
    return row ? toStoredCheck(row) : undefined;
  }

  async createCheck(check: NewCheck): Promise<StoredCheck> {
    const inserted = await this.#db<CheckRow>(CHECKS_TABLE)
      .insert({
        id: check.id,
        title: check.title ?? null,
        spec: JSON.stringify(check.spec),
        revision: 1,
        created_by: check.createdBy,
        updated_by: check.createdBy,
      })
      .onConflict('id')
      .ignore()
      .returning('*');
    if (inserted.length === 0) {
      throw new ConflictError(`A check with id '${check.id}' already exists`);
    }
    return toStoredCheck(inserted[0]);
  }

  async updateCheck(
    update: CheckUpdate,
  ): Promise<{ before: StoredCheck; after: StoredCheck }> {
    for (let attempt = 1; ; attempt++) {
      const before = await this.getCheck(update.id);
      if (!before) {
        throw new NotFoundError(`There is no check with id '${update.id}'`);
      }
      if (
        update.expectedRevision !== undefined &&
        update.expectedRevision !== before.revision
      ) {
        throw staleRevisionError(before, update.expectedRevision);
      }
      const updated = await this.#db<CheckRow>(CHECKS_TABLE)
        .where({ id: update.id, revision: before.revision })
        .update({
          title: update.title ?? null,
          spec: JSON.stringify(update.spec),
          revision: before.revision + 1,
          updated_by: update.updatedBy,
          updated_at: this.#db.fn.now(),
        })
        .returning('*');
      if (updated.length > 0) {
        return { before, after: toStoredCheck(updated[0]) };
      }
      // Someone else wrote between our read and our write.
      if (
        update.expectedRevision !== undefined ||
        attempt >= CONTENDED_WRITE_ATTEMPTS
      ) {
        const current = await this.getCheck(update.id);
        if (!current) {
          throw new NotFoundError(`There is no check with id '${update.id}'`);
        }
        throw staleRevisionError(current, before.revision);
      }
    }
  }

  async deleteCheck(
    id: string,
    options: { expectedRevision?: number } = {},
  ): Promise<StoredCheck> {
    // Read, then delete that revision only: knex returns no deleted rows on
    // SQLite, and the caller needs the check as it was (its systems).
    for (let attempt = 1; ; attempt++) {
      const before = await this.getCheck(id);
      if (!before) {
        throw new NotFoundError(`There is no check with id '${id}'`);
      }
      const { expectedRevision } = options;
      if (
        expectedRevision !== undefined &&
        expectedRevision !== before.revision
      ) {
        throw staleRevisionError(before, expectedRevision);
      }
      const deletedCount = await this.#db<CheckRow>(CHECKS_TABLE)
        .where({ id, revision: before.revision })
        .delete();
      if (deletedCount > 0) {
        return before;
      }
      if (
        expectedRevision !== undefined ||
        attempt >= CONTENDED_WRITE_ATTEMPTS
      ) {
        const current = await this.getCheck(id);
        if (!current) {
          throw new NotFoundError(`There is no check with id '${id}'`);
        }
        throw staleRevisionError(current, before.revision);
      }
    }
  }
}

function staleRevisionError(current: StoredCheck, expectedRevision: number) {
  return new ConflictError(
    `Check '${current.id}' is at revision ${
      current.revision
    }, not ${expectedRevision}: ${
      current.updatedBy
    } changed it at ${current.updatedAt.toISOString()}. Read it again and reapply your change`,
  );
}

function toStoredCheck(row: CheckRow): StoredCheck {
  return {
    id: row.id,
    title: row.title ?? undefined,
    spec: JSON.parse(row.spec),
    revision: Number(row.revision),
    createdBy: row.created_by,
    createdAt: readTimestamp(row.created_at),
    updatedBy: row.updated_by ?? row.created_by,
    updatedAt: readTimestamp(row.updated_at),
  };
}

/**
 * PostgreSQL hands back Dates; SQLite's `CURRENT_TIMESTAMP` is text in UTC
 * without a zone (`2026-11-30 10:00:00`), which `new Date` would read as
 * local time.
 * @internal
 */
export function readTimestamp(value: Date | string | number): Date {
  if (value instanceof Date) {
    return value;
  }
  if (
    typeof value === 'string' &&
    /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/.test(value)
  ) {
    return new Date(`${value.replace(' ', 'T')}Z`);
  }
  return new Date(value);
}
