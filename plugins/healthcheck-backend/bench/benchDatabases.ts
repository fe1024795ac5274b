/*
 * The databases the benches run on: an in-memory SQLite, and a
 * PostgreSQL database of its own, created for the run and dropped after.
 */
import { resolvePackagePath } from '@backstage/backend-plugin-api';
import knexFactory, { Knex } from 'knex';

const MIGRATIONS_DIR = resolvePackagePath(
  '@vigil/plugin-healthcheck-backend',
  'migrations',
);

/**
 * The PostgreSQL server a bench uses without `--postgres`: the one the tests
 * use, else the local one.
 */
export const DEFAULT_POSTGRES_URL =
  process.env.BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING ??
  'postgresql://postgres@127.0.0.1:5432';

/** A migrated database for one engine, and how to get rid of it. */
export interface BenchDatabase {
  name: 'SQLite' | 'PostgreSQL';
  /** The server's version and where the data lives. */
  description: string;
  /** PostgreSQL's database name, for a backend told to use it. */
  databaseName?: string;
  knex: Knex;
  close(): Promise<void>;
}

async function migrate(knex: Knex) {
  await knex.migrate.latest({ directory: MIGRATIONS_DIR });
}

/** SQLite in memory, through better-sqlite3, as a single-instance install runs. */
export async function openSqlite(): Promise<BenchDatabase> {
  const knex = knexFactory({
    client: 'better-sqlite3',
    connection: ':memory:',
    useNullAsDefault: true,
  });
  await migrate(knex);
  const [{ version }] = await knex.raw('SELECT sqlite_version() AS version');
  return {
    name: 'SQLite',
    description: `SQLite ${version} (better-sqlite3, in memory)`,
    knex,
    close: () => knex.destroy(),
  };
}

/**
 * A fresh PostgreSQL database (`vigil_bench_<pid>`) on the server of
 * `connectionString`, or `undefined` with the reason when the server does
 * not answer.
 */
export async function openPostgres(
  connectionString: string,
): Promise<BenchDatabase | { unreachable: string }> {
  const server = new URL(connectionString);
  const database = `vigil_bench_${process.pid}`;
  const adminUrl = new URL(server.href);
  adminUrl.pathname = '/postgres';
  const admin = knexFactory({
    client: 'pg',
    connection: adminUrl.href,
    pool: { min: 0, max: 1 },
    acquireConnectionTimeout: 5_000,
  });
  try {
    await admin.raw('SELECT 1');
  } catch (error) {
    await admin.destroy();
    return {
      unreachable: `${redact(adminUrl)}: ${(error as Error).message}`,
    };
  }
  try {
    await admin.raw('DROP DATABASE IF EXISTS ??', [database]);
    await admin.raw('CREATE DATABASE ??', [database]);
  } catch (error) {
    await admin.destroy();
    throw error;
  }
  const benchUrl = new URL(server.href);
  benchUrl.pathname = `/${database}`;
  const knex = knexFactory({ client: 'pg', connection: benchUrl.href });
  const close = async () => {
    try {
      await knex.destroy();
    } finally {
      try {
        await admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [database]);
      } finally {
        await admin.destroy();
      }
    }
  };
  let version: string;
  try {
    await migrate(knex);
    version = (await knex.raw('SHOW server_version')).rows[0].server_version;
  } catch (error) {
    await close();
    throw error;
  }
  return {
    name: 'PostgreSQL',
    description: `PostgreSQL ${version} at ${server.host} (database ${database}, dropped after)`,
    databaseName: database,
    knex,
    close,
  };
}

/** Empties the slices table and puts the revision counter back to 0. */
export async function resetSlices(knex: Knex): Promise<void> {
  await knex('healthcheck_slices').truncate();
  await knex('healthcheck_reconcile_state')
    .where('name', 'slices')
    .update({ revision: 0 });
}

function redact(url: URL): string {
  const copy = new URL(url.href);
  copy.password = copy.password ? '***' : '';
  return copy.href;
}
