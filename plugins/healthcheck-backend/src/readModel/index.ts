import type { LoggerService } from '@backstage/backend-plugin-api';
import type { Knex } from 'knex';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import { engineOf } from '../database/engine';
import { SystemReadModel } from './SystemReadModel';
import { listenForSystemChanges } from './systemChanges';

export { SystemReadModel, type SystemView } from './SystemReadModel';

/**
 * The in-memory read model of system health, on PostgreSQL, where
 * instances learn of each other's writes from its notifications; none on
 * SQLite (one instance, whose reads stay with the database). Started in
 * the background, so a large fleet's first read does not hold the plugin's
 * start: reads go to the database until it is current.
 * @internal
 */
export function startSystemReadModel(options: {
  knex: Knex;
  store: DatabaseStateStore;
  logger: LoggerService;
}): SystemReadModel | undefined {
  if (engineOf(options.knex) !== 'postgres') {
    return undefined;
  }
  const model = new SystemReadModel({
    store: options.store,
    listen: handlers => listenForSystemChanges(options.knex, handlers),
    logger: options.logger,
  });
  // start() never throws: it logs, and tries again later.
  void model.start();
  return model;
}
