import type {
  DatabaseService,
  LoggerService,
} from '@backstage/backend-plugin-api';
import type { MetricsService } from '@backstage/backend-plugin-api/alpha';
import type { Config } from '@backstage/config';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { migratedClient } from '../database/migrations';
import { createJournalMetrics } from '../outage/journalMetrics';
import { readOutageSettings } from '../outage/outageSettings';
import type { DatabaseHeartbeatStore } from './DatabaseHeartbeatStore';
import { DatabaseDeafSpanStore } from './DatabaseDeafSpanStore';
import { DeafSpans } from './DeafSpans';
import { PingJournal } from './PingJournal';

/**
 * What keeps heartbeats from failing for Vigil's own faults: the time it
 * could not hear pings, which moves their deadlines, and the journal of
 * pings taken while the database was away.
 * @internal
 */
export interface HeartbeatOutage {
  deafSpans: DeafSpans;
  pings: PingJournal;
  start(): Promise<void>;
  /** Writes what it can of both before the instance goes. */
  stop(): Promise<void>;
}

/** @internal */
export async function createHeartbeatOutage(options: {
  database: DatabaseService;
  store: DatabaseHeartbeatStore;
  config: Config;
  logger: LoggerService;
  metrics?: MetricsService;
}): Promise<HeartbeatOutage> {
  const { logger, metrics } = options;
  const deafSpans = new DeafSpans({
    store: new DatabaseDeafSpanStore(await migratedClient(options.database)),
    instanceId: `${hostname()}-${randomUUID()}`,
    logger,
  });
  const pings = new PingJournal({
    store: options.store,
    logger,
    maxEntries: readOutageSettings(options.config).maxJournaledPings,
    metrics:
      metrics &&
      createJournalMetrics(metrics, {
        entries: 'healthcheck.pings.journal.entries',
        size: 'healthcheck.pings.journal.size',
        what: 'Heartbeat pings',
      }),
    onDatabaseAnswered: () => deafSpans.heard(),
  });
  return {
    deafSpans,
    pings,
    start: () => deafSpans.start(),
    stop: async () => {
      await pings.stop();
      await deafSpans.stop();
    },
  };
}
