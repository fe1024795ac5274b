import knexFactory, { type Knex } from 'knex';
import type { RunRow, SuiteSlice } from './chaosFigures';
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
  readonly name: string;
  readonly knex: Knex;
  readonly #admin: Knex;

  /** Creates a database named after the time on the server at `url`. */
  static async create(url: string): Promise<SuiteDatabase> {
    const admin = knexFactory({
      client: 'pg',
      connection: `${url.replace(/\/$/, '')}/postgres`,
      pool: { min: 0, max: 1 },
    });
    const name = `vigil_chaos_${Date.now()}`;
    await admin.raw('CREATE DATABASE ??', [name]);
    const knex = knexFactory({
      client: 'pg',
      connection: `${url.replace(/\/$/, '')}/${name}`,
      pool: { min: 0, max: 4 },
      // A restart of PostgreSQL breaks these connections too; say whose.
      log: {
        warn: message =>
          process.stderr.write(
            `[chaos] the suite's own connection: ${message}\n`,
          ),
      },
    });
    return new SuiteDatabase(name, knex, admin);
  }

  private constructor(name: string, knex: Knex, admin: Knex) {
    this.name = name;
    this.knex = knex;
    this.#admin = admin;
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

  /** Closes the connections; drops the database unless asked to keep it. */
  async close(options: { keep: boolean }): Promise<void> {
    await this.knex.destroy();
    if (!options.keep) {
      await this.#admin.raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [
        this.name,
      ]);
    }
    await this.#admin.destroy();
  }
}
