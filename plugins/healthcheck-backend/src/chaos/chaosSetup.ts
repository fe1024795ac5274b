/*
 * What the chaos suite and the outage test set up alike: a fleet of
 * backend instances on the suite's database through the fault proxy, the
 * catalog of the systems they check, and the notifications the instances
 * recorded, read back as the figures want them.
 */
import type { Entity } from '@backstage/catalog-model';
import type { JsonObject } from '@backstage/types';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { SentNotification } from './chaosFigures';
import type { RecordedNotification } from './chaosInstanceProcess';
import { ChaosFleet } from './ChaosFleet';
import { ENVIRONMENTS } from './chaosScenarios';
import type { FaultProxy } from './FaultProxy';
import type { SuiteDatabase } from './SuiteDatabase';

/** A System in the instances' catalog, with the suite's environments. @internal */
export function chaosSystem(name: string): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: {
      name,
      namespace: 'default',
      annotations: { 'vigil.dev/environments': ENVIRONMENTS.join(',') },
    },
    spec: { owner: 'group:default/chaos-team' },
  };
}

/**
 * The instances, each told to reach the database through the proxy, to
 * record its notifications in `outputDir`, and to run with `healthcheck`
 * as its plugin config. The first to start runs the migrations.
 * @internal
 */
export function chaosFleet(options: {
  outputDir: string;
  postgresUrl: string;
  proxy: FaultProxy;
  database: SuiteDatabase;
  entities: Entity[];
  healthcheck: JsonObject;
}): ChaosFleet {
  const postgres = new URL(options.postgresUrl);
  return new ChaosFleet({
    logDir: options.outputDir,
    optionsOf: (name, first) => ({
      database: {
        client: 'pg',
        connection: {
          host: '127.0.0.1',
          port: options.proxy.port,
          user: decodeURIComponent(postgres.username) || 'postgres',
          ...(postgres.password
            ? { password: decodeURIComponent(postgres.password) }
            : {}),
        },
        // The suite made the database; only its name is the plugin's.
        ensureExists: false,
        plugin: {
          healthcheck: { connection: { database: options.database.name } },
        },
      },
      migrate: first,
      notificationsFile: notificationsFileOf(options.outputDir, name),
      entities: options.entities,
      healthcheck: options.healthcheck,
    }),
  });
}

function notificationsFileOf(outputDir: string, instance: string): string {
  return path.join(outputDir, `notifications-${instance}.jsonl`);
}

/** Every notification the instances recorded, as the figures read them. @internal */
export function readNotifications(
  outputDir: string,
  instances: readonly string[],
): SentNotification[] {
  // What the owner sees: deliveries repeated in one scope (after a lost
  // lease or a failed answer) update one notification.
  const seen = new Set<string>();
  return instances
    .flatMap(name => {
      const file = notificationsFileOf(outputDir, name);
      if (!existsSync(file)) {
        return [];
      }
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map(line => JSON.parse(line) as RecordedNotification);
    })
    .sort((a, b) => a.at - b.at)
    .filter(sent => {
      const key = `${sent.entityRef} ${sent.scope}`;
      if (seen.has(key)) {
        return false;
      }
      seen.add(key);
      return true;
    })
    .map(sent => {
      // scope: healthcheck:system:default/<name>:<environment>:<transition ms>
      const scope = (sent.scope ?? '').split(':');
      const systemRef = scope.slice(1, 3).join(':');
      return {
        at: sent.at,
        system: systemRef.slice(systemRef.indexOf('/') + 1),
        environment: scope[3] ?? '',
        kind: / recovered$/.test(sent.title) ? 'recovered' : 'unhealthy',
        instance: sent.instance,
      };
    });
}
