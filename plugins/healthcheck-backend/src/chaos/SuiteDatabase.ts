import knexFactory, { type Knex } from 'knex';
import type { RunRow, StoredNotification, SuiteSlice } from './chaosFigures';
import type { HeartbeatRun } from './heartbeatFigures';

/**
 * The instance's name in an instance id: the plugin's ids are
 * `<host name>-<uuid>`, and each instance's host name is its name.
 * @internal
 */
export function instanceNameOf(instanceId: string): string {
  return /^(chaos-[a-z])-/.exec(instanceId)?.[1] ?? instanceId;
}

/** `system:default/alpha` -> `alpha`. */
function systemNameOf(systemRef: string): string {
  return systemRef.slice(systemRef.indexOf('/') + 1);
}

/**
 * Backstage's plugins in each instance that keep tables, each on a
 * database of its own beside the health-check plugin's: each records its
 * migrations in knex's default table, so two in one database would take
 * each other's migrations for missing files.
 * @internal
 */
export const BACKSTAGE_PLUGINS_WITH_TABLES = ['notifications', 'events'];

/** An entry waiting in the plugin's outbox. @internal */
export interface WaitingEntry {
  kind: string;
  stream: string;
  createdAt: number;
  attempts: number;
  /** The instance's name, while one holds it to deliver it. */
  claimedBy?: string;
  lastError?: string;
}

/** A system's stored rollup, as far as the suite reads it. @internal */
export interface StoredRollup {
  status: string;
  environments: Map<string, string>;
}

/**
 * The suite's own PostgreSQL database, created for one run, and what the
 * suite reads in it. The suite connects directly, never through the fault
 * proxy: it is the observer, and sees the database as it is.
 * @internal
 */
export class SuiteDatabase {
  /** The health-check plugin's database. */
  readonly name: string;
  /** The database of each of {@link BACKSTAGE_PLUGINS_WITH_TABLES}, by plugin id. */
  readonly pluginDatabases: Readonly<Record<string, string>>;
  readonly knex: Knex;
  readonly #notifications: Knex;
  readonly #admin: Knex;

  /** Creates the databases, named after the time, on the server at `url`. */
  static async create(url: string): Promise<SuiteDatabase> {
    const server = url.replace(/\/$/, '');
    const admin = knexFactory({
      client: 'pg',
      connection: `${server}/postgres`,
      pool: { min: 0, max: 1 },
    });
    const name = `vigil_chaos_${Date.now()}`;
    const pluginDatabases = Object.fromEntries(
      BACKSTAGE_PLUGINS_WITH_TABLES.map(id => [id, `${name}_${id}`]),
    );
    for (const database of [name, ...Object.values(pluginDatabases)]) {
      await admin.raw('CREATE DATABASE ??', [database]);
    }
    const connect = (database: string, poolSize: number) =>
      knexFactory({
        client: 'pg',
        connection: `${server}/${database}`,
        pool: { min: 0, max: poolSize },
        // A restart of PostgreSQL breaks these connections too; say whose.
        log: {
          warn: message =>
            process.stderr.write(
              `[chaos] the suite's own connection: ${message}\n`,
            ),
        },
      });
    return new SuiteDatabase({
      name,
      pluginDatabases,
      knex: connect(name, 4),
      notifications: connect(pluginDatabases.notifications, 1),
      admin,
    });
  }

  private constructor(options: {
    name: string;
    pluginDatabases: Record<string, string>;
    knex: Knex;
    notifications: Knex;
    admin: Knex;
  }) {
    this.name = options.name;
    this.pluginDatabases = options.pluginDatabases;
    this.knex = options.knex;
    this.#notifications = options.notifications;
    this.#admin = options.admin;
  }

  /** Slices of the given checks, with the check as its id. */
  async readSlices(checkIds: readonly string[]): Promise<SuiteSlice[]> {
    const rows = await this.knex('healthcheck_slices')
      .whereIn('check_id', checkIds)
      .andWhere('removed', false)
      .select('id', 'check_id', 'system_ref', 'environment', 'interval_ms');
    return rows.map(row => ({
      id: row.id,
      check: row.check_id,
      system: systemNameOf(row.system_ref),
      environment: row.environment,
      intervalMs: Number(row.interval_ms),
    }));
  }

  async readRuns(sliceIds: readonly string[]): Promise<RunRow[]> {
    const rows = await this.knex('healthcheck_runs')
      .whereIn('slice_id', sliceIds)
      .select(
        'slice_id',
        'scheduled_at',
        'claimed_by',
        'started_at',
        'duration_ms',
      );
    return rows.map(row => ({
      sliceId: row.slice_id,
      scheduledAt: Number(row.scheduled_at),
      claimedBy: instanceNameOf(row.claimed_by),
      startedAt: row.started_at === null ? undefined : Number(row.started_at),
      durationMs:
        row.duration_ms === null ? undefined : Number(row.duration_ms),
    }));
  }

  /** The completed runs of a check's slices, with the status each left. */
  async readRunStatuses(checkId: string): Promise<HeartbeatRun[]> {
    const rows = await this.knex('healthcheck_runs as r')
      .join('healthcheck_slices as s', 's.id', 'r.slice_id')
      .where('s.check_id', checkId)
      .whereNotNull('r.started_at')
      .select('s.environment', 'r.scheduled_at', 'r.status');
    return rows.map(row => ({
      environment: row.environment,
      scheduledAt: Number(row.scheduled_at),
      status: row.status,
    }));
  }

  /** Stored environment statuses, by `<system name>/<environment>`. */
  async readEnvironmentStatuses(): Promise<Map<string, string>> {
    const rows = await this.knex('healthcheck_environment_states').select(
      'system_ref',
      'environment',
      'status',
    );
    return new Map(
      rows.map(row => [
        `${systemNameOf(row.system_ref)}/${row.environment}`,
        row.status,
      ]),
    );
  }

  /** Stored rollups, by system name. */
  async readRollups(): Promise<Map<string, StoredRollup>> {
    const rows = await this.knex('healthcheck_rollups').select(
      'system_ref',
      'rollup',
    );
    return new Map(
      rows.map(row => {
        const rollup = JSON.parse(row.rollup) as {
          status: string;
          environments: Array<{ name: string; status: string }>;
        };
        return [
          systemNameOf(row.system_ref),
          {
            status: rollup.status,
            environments: new Map(
              rollup.environments.map(e => [e.name, e.status]),
            ),
          },
        ];
      }),
    );
  }

  /**
   * The latest rollup window of a system claimed at or after `since`: who
   * claimed it, and when the window ends (its recompute is due then).
   */
  async latestRollupClaim(
    systemRef: string,
    since: number,
    windowMs: number,
  ): Promise<{ instance: string; endsAt: number } | undefined> {
    const row = await this.knex('healthcheck_rollup_claims')
      .where('id', 'like', `healthrollup:${systemRef.toLowerCase()}:%`)
      .andWhere('claimed_at', '>=', since)
      .orderBy('claimed_at', 'desc')
      .first('id', 'claimed_by');
    if (!row) {
      return undefined;
    }
    const bucket = Number(row.id.slice(row.id.lastIndexOf(':') + 1));
    return {
      instance: instanceNameOf(row.claimed_by),
      endsAt: (bucket + 1) * windowMs,
    };
  }

  /**
   * Every notification the users have in Backstage's notifications
   * backend: what the owners see, one row per user and scope (a delivery
   * repeated in a scope updates its row).
   */
  async readOwnerNotifications(): Promise<StoredNotification[]> {
    const rows = await this.#notifications('notification').select(
      'user',
      'scope',
      'title',
      'created',
      'updated',
    );
    return rows.map(row => ({
      user: row.user,
      scope: row.scope ?? undefined,
      title: row.title,
      createdAt: new Date(row.created).getTime(),
      updatedAt: row.updated ? new Date(row.updated).getTime() : undefined,
    }));
  }

  /** The entries waiting in the plugin's outbox, oldest first. */
  async readOutbox(): Promise<WaitingEntry[]> {
    const rows = await this.knex('healthcheck_outbox')
      .orderBy('id')
      .select(
        'kind',
        'stream',
        'created_at',
        'attempts',
        'claimed_by',
        'last_error',
      );
    return rows.map(row => ({
      kind: row.kind,
      stream: row.stream,
      createdAt: Number(row.created_at),
      attempts: Number(row.attempts),
      claimedBy: row.claimed_by ? instanceNameOf(row.claimed_by) : undefined,
      lastError: row.last_error ?? undefined,
    }));
  }

  /** Closes the connections; drops the databases unless asked to keep them. */
  async close(options: { keep: boolean }): Promise<void> {
    await this.knex.destroy();
    await this.#notifications.destroy();
    if (!options.keep) {
      for (const database of [
        this.name,
        ...Object.values(this.pluginDatabases),
      ]) {
        await this.#admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [
          database,
        ]);
      }
    }
    await this.#admin.destroy();
  }
}
