import type { Knex } from 'knex';

/**
 * A switch that makes a knex client fail to reach its database, on any
 * engine: while cut, every query that needs a connection fails as a refused
 * connection does (queries under way finish). For tests of what the plugin
 * does while its database is away, in the process.
 * @internal
 */
export function cutDatabase(knex: Knex): {
  cut(): void;
  restore(): void;
} {
  const client = knex.client as { acquireConnection(): Promise<unknown> };
  const acquire = client.acquireConnection.bind(client);
  let cut = false;
  client.acquireConnection = () =>
    cut
      ? Promise.reject(
          new Error('connect ECONNREFUSED (the test cut the database)'),
        )
      : acquire();
  return {
    cut: () => {
      cut = true;
    },
    restore: () => {
      cut = false;
    },
  };
}
