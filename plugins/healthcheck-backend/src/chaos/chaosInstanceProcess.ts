/*
 * One backend instance of the chaos suite, in a process of its own: a
 * backend with the health-check plugin wired as a portal wires it, with
 * Backstage's own database service (PostgreSQL, reached through the suite's
 * fault proxy), scheduler and root HTTP router, and an in-memory catalog of
 * the suite's systems and their owners. The owner is told as in a portal:
 * Backstage's notifications backend runs in the process, reached through
 * discovery over HTTP, beside Backstage's events backend and events
 * service, each of Backstage's plugins on a database of its own. (The
 * probe-cost bench, which measures the plugin's CPU alone, has each
 * notification appended to a file instead, and runs neither backend.)
 *
 *   node --require @backstage/cli/config/nodeTransform.cjs \
 *     chaosInstanceProcess.ts '<ChaosInstanceOptions as JSON>' (or '@<file>')
 *
 * Prints "ready <port>" once the backend serves, and "transition <message>"
 * for each environment transition it stores (see chaosRootLogger); stops
 * cleanly on SIGTERM; on SIGUSR2 collects its garbage and prints "memory
 * <MemoryReport JSON>"; makes its notifications backend answer 503 while
 * the suite says so (see notificationsRefusal); exits when its stdin
 * closes, which it does when the suite dies, however.
 */
import os from 'node:os';
import { appendFileSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import {
  coreServices,
  createServiceFactory,
} from '@backstage/backend-plugin-api';
import { ConfigReader } from '@backstage/config';
// Dev dependencies on purpose: the chaos suite runs from source and is
// never part of the built plugin.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { createBackend } from '@backstage/backend-defaults';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { HostDiscovery } from '@backstage/backend-defaults/discovery';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { rootHttpRouterServiceFactory } from '@backstage/backend-defaults/rootHttpRouter';
// eslint-disable-next-line @backstage/no-undeclared-imports
import { mockServices } from '@backstage/backend-test-utils';
// eslint-disable-next-line @backstage/no-undeclared-imports
import eventsPlugin from '@backstage/plugin-events-backend';
// eslint-disable-next-line @backstage/no-undeclared-imports
import notificationsPlugin from '@backstage/plugin-notifications-backend';
import type { Entity } from '@backstage/catalog-model';
import type { JsonObject } from '@backstage/types';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { notificationService } from '@backstage/plugin-notifications-node';
import { healthcheckPlugin } from '../plugin';
import { createChaosRootLogger, TRANSITION_LINE } from './chaosRootLogger';
import { notificationsRefusal } from './notificationsRefusal';

/** How long a poll of the events backend waits for an event. */
const EVENTS_POLL_MS = 5_000;

/** What the suite tells an instance. @internal */
export interface ChaosInstanceOptions {
  /** `chaos-a`: also this process's host name, see below. */
  name: string;
  /**
   * `backend.database`: the fault proxy's port, and the suite's database
   * of each plugin.
   */
  database: JsonObject;
  /** Runs the plugins' migrations; only the first instance to start does. */
  migrate: boolean;
  /**
   * Set: each notification sent is appended here as one line of JSON, and
   * neither Backstage backend runs. Unset: Backstage's notifications and
   * events backends run, each on its database in `database`.
   */
  notificationsFile?: string;
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

/** Each notification appended to a file, synchronously: a SIGKILL right after loses nothing sent. */
function recordedNotifications(file: string, instance: string) {
  return createServiceFactory({
    service: notificationService,
    deps: {},
    factory: () => ({
      async send(notification) {
        const line: RecordedNotification = {
          at: Date.now(),
          instance,
          entityRef:
            notification.recipients.type === 'entity'
              ? String(notification.recipients.entityRef)
              : undefined,
          title: notification.payload.title,
          scope: notification.payload.scope,
        };
        appendFileSync(file, `${JSON.stringify(line)}\n`);
      },
    }),
  });
}

async function main(options: ChaosInstanceOptions) {
  // The plugin names its instance `<host name>-<uuid>` (see plugin.ts). A
  // host name per process makes the instance ids in the database say which
  // process is which, so the suite can kill the one holding a claim.
  os.hostname = () => options.name;

  // Backstage's root router with the suite's refusal in front, on a port
  // of the system's choosing, which discovery then names.
  let listening: { address(): AddressInfo | string | null } | undefined;
  const port = () => (listening!.address() as AddressInfo).port;
  const rootHttpRouter = rootHttpRouterServiceFactory({
    configure({ app, server, applyDefaults }) {
      listening = server;
      app.use(notificationsRefusal());
      applyDefaults();
    },
  });
  const discovery = createServiceFactory({
    service: coreServices.discovery,
    // The root router listens by the time it is made.
    deps: { rootHttpRouter: coreServices.rootHttpRouter },
    factory: () =>
      HostDiscovery.fromConfig(
        new ConfigReader({
          backend: {
            baseUrl: `http://127.0.0.1:${port()}`,
            listen: { port: port() },
          },
        }),
      ),
  });
  // Synchronous writes to pipes: a line written right before a SIGKILL
  // reaches the suite.
  const rootLogger = createServiceFactory({
    service: coreServices.rootLogger,
    deps: {},
    factory: () =>
      createChaosRootLogger({
        log: line => process.stderr.write(`${line}\n`),
        transition: message =>
          process.stdout.write(`${TRANSITION_LINE} ${message}\n`),
      }),
  });

  // Backstage's own backend and services (database, scheduler, events,
  // HTTP routers with their lifecycle), as a portal runs them, except:
  const backend = createBackend();
  for (const feature of [
    healthcheckPlugin,
    ...(options.notificationsFile
      ? [
          recordedNotifications(options.notificationsFile, options.name),
          // In memory, as no events backend runs.
          mockServices.events.factory(),
        ]
      : [notificationsPlugin, eventsPlugin]),
    catalogServiceMock.factory({ entities: options.entities }),
    rootHttpRouter,
    discovery,
    rootLogger,
    // The suite calls the API with test credentials (mockCredentials),
    // which these accept, and may do anything.
    mockServices.auth.factory(),
    mockServices.httpAuth.factory(),
    mockServices.userInfo.factory(),
    mockServices.permissions.factory(),
    mockServices.rootConfig.factory({
      data: {
        // Where notifications' links lead; nobody follows them here.
        app: { baseUrl: 'http://127.0.0.1:3000' },
        // The events service long-polls its backend, and a stopping
        // backend's HTTP server waits for the polls under way: 55 s by
        // default, past the suite's patience (20 s, then a SIGKILL).
        events: { notifyTimeoutMs: EVENTS_POLL_MS },
        backend: {
          listen: { host: '127.0.0.1', port: 0 },
          database: {
            ...options.database,
            skipMigrations: !options.migrate,
          },
        },
        healthcheck: options.healthcheck,
      },
    }),
  ]) {
    backend.add(feature);
  }
  await backend.start();
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
  process.stdout.write(`ready ${port()}\n`);
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
