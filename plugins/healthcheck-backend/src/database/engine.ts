import { Knex } from 'knex';

/** The databases the plugin's raw SQL is written for. */
export type Engine = 'postgres' | 'sqlite';

/**
 * Which of the two supported databases a client talks to.
 * @throws Error for any other database, naming it.
 * @internal
 */
export function engineOf(db: Knex): Engine {
  const dialect = (db.client as { dialect?: string }).dialect;
  if (dialect === 'postgresql') {
    return 'postgres';
  }
  if (dialect === 'sqlite3') {
    return 'sqlite';
  }
  throw new Error(
    `The health-check plugin needs PostgreSQL or SQLite, not ${
      dialect ?? 'an unknown database'
    }`,
  );
}

/**
 * The rows of a raw query: pg returns `{ rows }`, SQLite the rows.
 * @internal
 */
export function rowsOf<TRow = unknown>(result: unknown): TRow[] {
  if (Array.isArray(result)) {
    return result as TRow[];
  }
  return ((result as { rows?: TRow[] } | undefined)?.rows ?? []) as TRow[];
}
