import { TestDatabaseId } from '@backstage/backend-test-utils';

const POSTGRES_URL_VARIABLE =
  'BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING';

/**
 * The databases every database test runs on: SQLite always, and the local
 * PostgreSQL 15 when its connection string is set. With
 * `VIGIL_REQUIRE_POSTGRES=1` (as CI sets it) a missing PostgreSQL fails the
 * suite instead of quietly shrinking it to SQLite.
 *
 * @internal
 */
export function requiredTestDatabases(): TestDatabaseId[] {
  const hasPostgres = Boolean(process.env[POSTGRES_URL_VARIABLE]);
  if (!hasPostgres && process.env.VIGIL_REQUIRE_POSTGRES === '1') {
    throw new Error(
      `PostgreSQL tests are required (VIGIL_REQUIRE_POSTGRES=1) but ${POSTGRES_URL_VARIABLE} is not set`,
    );
  }
  return hasPostgres ? ['POSTGRES_15', 'SQLITE_3'] : ['SQLITE_3'];
}
