/*
 * What the chaos suite and the outage test set up alike: a fleet of
 * backend instances on the suite's databases through the fault proxy, the
 * catalog of the systems they check and of their owners, and the
 * notifications the owner has, read back as the figures want them.
 */
import type { Entity } from '@backstage/catalog-model';
import type { JsonObject } from '@backstage/types';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  notificationsOfUser,
  type SentNotification,
  sentNotificationOf,
} from './chaosFigures';
import { ChaosFleet } from './ChaosFleet';
import type { RecordedNotification } from './chaosInstanceProcess';
import { ENVIRONMENTS } from './chaosScenarios';
import type { FaultProxy } from './FaultProxy';
import type { SuiteDatabase } from './SuiteDatabase';

/** The group that owns every system of the suite. @internal */
export const CHAOS_TEAM = 'group:default/chaos-team';
/** The team's one member: whom Backstage's notifications backend tells. @internal */
export const CHAOS_OWNER = 'user:default/chaos-owner';

/**
 * A System in the instances' catalog, with the suite's environments. Its
 * owner is in its relations too, as the catalog would stitch it: the
 * notifications backend finds the users to tell from those.
 * @internal
 */
export function chaosSystem(name: string): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: {
      name,
      namespace: 'default',
      annotations: { 'vigil.dev/environments': ENVIRONMENTS.join(',') },
    },
    spec: { owner: CHAOS_TEAM },
    relations: [{ type: 'ownedBy', targetRef: CHAOS_TEAM }],
  };
}

/** The owning group and its member, related as the catalog relates them. */
function chaosOwners(): Entity[] {
  return [
    {
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'Group',
      metadata: { name: 'chaos-team', namespace: 'default' },
      spec: { type: 'team', children: [] },
      relations: [{ type: 'hasMember', targetRef: CHAOS_OWNER }],
    },
    {
      apiVersion: 'backstage.io/v1alpha1',
      kind: 'User',
      metadata: { name: 'chaos-owner', namespace: 'default' },
      spec: { memberOf: [CHAOS_TEAM] },
      relations: [{ type: 'memberOf', targetRef: CHAOS_TEAM }],
    },
  ];
}

/**
 * The instances, each told to reach the databases through the proxy (the
 * health-check plugin's and Backstage's plugins' own), to run with
 * `healthcheck` as its plugin config, and to hold `entities` and their
 * owners in its catalog. The first to start runs the migrations.
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
  const databaseOfPlugin = Object.fromEntries(
    Object.entries({
      healthcheck: options.database.name,
      ...options.database.pluginDatabases,
    }).map(([pluginId, database]) => [pluginId, { connection: { database } }]),
  );
  return new ChaosFleet({
    logDir: options.outputDir,
    optionsOf: (_name, first) => ({
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
        // The suite made the databases; only their names are the plugins'.
        ensureExists: false,
        plugin: databaseOfPlugin,
      },
      migrate: first,
      entities: [...options.entities, ...chaosOwners()],
      healthcheck: options.healthcheck,
    }),
  });
}

/**
 * The notifications the owner has in Backstage's notifications backend,
 * as the figures read them: what the owner sees, whatever went over the
 * wire (a delivery repeated in one scope updates the notification).
 * @internal
 */
export async function readOwnerNotifications(
  database: SuiteDatabase,
): Promise<SentNotification[]> {
  return notificationsOfUser(
    await database.readOwnerNotifications(),
    CHAOS_OWNER,
  );
}

/** Where an instance records its notifications when told to (the probe-cost bench). */
function notificationsFileOf(outputDir: string, instance: string): string {
  return path.join(outputDir, `notifications-${instance}.jsonl`);
}

/**
 * Every notification the instances recorded to files instead of sending
 * (see `notificationsFile`), as the figures read them: deliveries repeated
 * in one scope count once, as Backstage's notifications backend keeps one.
 * @internal
 */
export function readNotifications(
  outputDir: string,
  instances: readonly string[],
): SentNotification[] {
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
    .map(sent => ({ ...sentNotificationOf(sent), instance: sent.instance }));
}
