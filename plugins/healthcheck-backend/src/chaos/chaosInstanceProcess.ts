/*
 * One backend instance of the chaos suite, in a process of its own: a
 * backend with the health-check plugin wired as a portal wires it, with
 * Backstage's own database service (PostgreSQL, reached through the suite's
 * fault proxy) and scheduler, an in-memory catalog of the suite's systems,
 * and a notifications service that appends every notification to a file.
 *
 *   node --require @backstage/cli/config/nodeTransform.cjs \
 *     chaosInstanceProcess.ts '<ChaosInstanceOptions as JSON>' (or '@<file>')
 *
 * Prints "ready <port>" once the backend serves; stops cleanly on SIGTERM;
 * on SIGUSR2 collects its garbage and prints "memory <MemoryReport JSON>";
 * exits when its stdin closes, which it does when the suite dies, however.
 */
import os from 'node:os';
import { appendFileSync, readFileSync } from 'node:fs';
import { createServiceFactory } from '@backstage/backend-plugin-api';
// Dev dependencies on purpose: the chaos suite runs from source and is
// never part of the built plugin.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { databaseServiceFactory } from '@backstage/backend-defaults/database';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { schedulerServiceFactory } from '@backstage/backend-defaults/scheduler';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { mockServices, startTestBackend } from '@backstage/backend-test-utils';
import type { Entity } from '@backstage/catalog-model';
import type { JsonObject } from '@backstage/types';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { notificationService } from '@backstage/plugin-notifications-node';
import { healthcheckPlugin } from '../plugin';

/** What the suite tells an instance. @internal */
export interface ChaosInstanceOptions {
  /** `chaos-a`: also this process's host name, see below. */
  name: string;
  /** `backend.database`: the fault proxy's port, the suite's database. */
  database: JsonObject;
  /** Runs the plugin's migrations; only the first instance to start does. */
  migrate: boolean;
  /** Each notification sent is appended here as one line of JSON. */
  notificationsFile: string;
  entities: Entity[];
  /** `healthcheck` config. */
  healthcheck: JsonObject;
}

/** An instance's memory right after a full collection. @internal */
export interface MemoryReport {
  rssKiB: number;
  heapUsedKiB: number;
}

/** One line of the notifications file. @internal */
export interface RecordedNotification {
  at: number;
  instance: string;
  entityRef?: string;
  title: string;
  scope?: string;
}

async function main(options: ChaosInstanceOptions) {
  // The plugin names its instance `<host name>-<uuid>` (see plugin.ts). A
  // host name per process makes the instance ids in the database say which
  // process is which, so the suite can kill the one holding a claim.
  os.hostname = () => options.name;

  const recordingNotifications = createServiceFactory({
    service: notificationService,
    deps: {},
    factory: () => ({
      async send(notification) {
        const line: RecordedNotification = {
          at: Date.now(),
          instance: options.name,
          entityRef:
            notification.recipients.type === 'entity'
              ? String(notification.recipients.entityRef)
              : undefined,
          title: notification.payload.title,
          scope: notification.payload.scope,
        };
        // Synchronous, so that a SIGKILL right after loses nothing sent.
        appendFileSync(options.notificationsFile, `${JSON.stringify(line)}\n`);
      },
    }),
  });

  const backend = await startTestBackend({
    features: [
      healthcheckPlugin,
      catalogServiceMock.factory({ entities: options.entities }),
      databaseServiceFactory,
      schedulerServiceFactory,
      recordingNotifications,
      mockServices.rootLogger.factory({ level: 'warn' }),
      mockServices.rootConfig.factory({
        data: {
          backend: {
            database: {
              ...options.database,
              skipMigrations: !options.migrate,
            },
          },
          healthcheck: options.healthcheck,
        },
      }),
    ],
  });
  // The suite measures memory after a full collection (node --expose-gc).
  process.on('SIGUSR2', () => {
    globalThis.gc?.();
    const { rss, heapUsed } = process.memoryUsage();
    const report: MemoryReport = {
      rssKiB: Math.round(rss / 1024),
      heapUsedKiB: Math.round(heapUsed / 1024),
    };
    process.stdout.write(`memory ${JSON.stringify(report)}\n`);
  });
  process.stdin.on('end', () => process.exit(1));
  process.stdin.resume();
  process.stdout.write(`ready ${backend.server.port()}\n`);
  process.once('SIGTERM', () => {
    backend
      .stop()
      .then(() => process.exit(0))
      .catch(error => {
        process.stderr.write(`${error?.stack ?? error}\n`);
        process.exit(1);
      });
  });
}

/** The options: JSON, or `@<file>` holding it (see ChaosFleet). */
function readOptions(argument: string): ChaosInstanceOptions {
  return JSON.parse(
    argument.startsWith('@')
      ? readFileSync(argument.slice(1), 'utf8')
      : argument,
  );
}

main(readOptions(process.argv[2])).catch(error => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
