import { randomUUID } from 'node:crypto';
import { DatabaseService } from '@backstage/backend-plugin-api';
import { ConflictError, NotFoundError } from '@backstage/errors';
import { canonicalEnvironmentName } from '@vigil/plugin-healthcheck-common';
import { Knex } from 'knex';
import { migratedClient } from '../database/migrations';

const TABLE = 'healthcheck_maintenance_windows';
const HELD_TABLE = 'healthcheck_maintenance_held_notifications';

/**
 * A notification held for the end of maintenance: of one environment, one
 * at a time.
 * @internal
 */
export interface HeldNotification {
  systemRef: string;
  environment: string;
  /** The status before the first held transition. */
  fromStatus: string;
  heldAt: number;
  releaseAt: number;
}

/**
 * Windows of one system that may be open or ahead at once: a deploy window
 * per environment and some to spare. More is a loop gone wrong, refused.
 */
export const MAX_OPEN_WINDOWS_PER_SYSTEM = 50;

/**
 * A maintenance window made through the API: one span over one system.
 * @internal
 */
export interface StoredMaintenanceWindow {
  id: string;
  systemRef: string;
  /** Check ids covered; absent for every check of the system. */
  checks?: string[];
  /** Environment names covered; absent for every one. */
  environments?: string[];
  startsAt: number;
  endsAt: number;
  reason?: string;
  createdBy: string;
  createdAt: number;
  /** Who ended it early, if anyone did. */
  endedBy?: string;
}

/**
 * A window to store.
 * @internal
 */
export type NewMaintenanceWindow = Omit<
  StoredMaintenanceWindow,
  'id' | 'createdAt' | 'endedBy'
>;

type WindowRow = {
  id: string;
  system_ref: string;
  checks: string | null;
  environments: string | null;
  starts_at: number | string;
  ends_at: number | string;
  reason: string | null;
  created_by: string;
  created_at: number | string;
  ended_by: string | null;
};

/**
 * The API's maintenance windows on the plugin's database, SQLite or
 * PostgreSQL. Ended windows are kept as long as history is (their time is
 * excluded from up-time), then pruned.
 * @internal
 */
export class DatabaseMaintenanceStore {
  readonly #db: Knex;
  readonly #now: () => number;

  static async create(options: {
    database: DatabaseService;
    now?: () => number;
  }): Promise<DatabaseMaintenanceStore> {
    const client = await migratedClient(options.database);
    return new DatabaseMaintenanceStore(client, options.now ?? Date.now);
  }

  private constructor(db: Knex, now: () => number) {
    this.#db = db;
    this.#now = now;
  }

  /**
   * Stores a window.
   * @throws ConflictError when the system already has
   * {@link MAX_OPEN_WINDOWS_PER_SYSTEM} windows open or ahead.
   */
  async create(window: NewMaintenanceWindow): Promise<StoredMaintenanceWindow> {
    const now = this.#now();
    const systemRef = window.systemRef.toLowerCase();
    const [{ open }] = await this.#db(TABLE)
      .where('system_ref', systemRef)
      .andWhere('ends_at', '>', now)
      .count({ open: '*' });
    if (Number(open) >= MAX_OPEN_WINDOWS_PER_SYSTEM) {
      throw new ConflictError(
        `${systemRef} has ${open} maintenance windows open or ahead, the most it may have; end one first`,
      );
    }
    const row: WindowRow = {
      id: randomUUID(),
      system_ref: systemRef,
      checks: window.checks ? JSON.stringify(window.checks) : null,
      environments: window.environments
        ? JSON.stringify(window.environments)
        : null,
      starts_at: window.startsAt,
      ends_at: window.endsAt,
      reason: window.reason ?? null,
      created_by: window.createdBy,
      created_at: now,
      ended_by: null,
    };
    await this.#db(TABLE).insert(row);
    return toWindow(row);
  }

  async get(id: string): Promise<StoredMaintenanceWindow | undefined> {
    const row = await this.#db<WindowRow>(TABLE).where({ id }).first();
    return row ? toWindow(row) : undefined;
  }

  /**
   * The windows that end after `endingAfter`, of the given systems or of
   * all, earliest start first.
   */
  async list(options: {
    endingAfter: number;
    systemRefs?: readonly string[];
  }): Promise<StoredMaintenanceWindow[]> {
    const query = this.#db<WindowRow>(TABLE)
      .where('ends_at', '>', options.endingAfter)
      .orderBy([{ column: 'starts_at' }, { column: 'id' }]);
    if (options.systemRefs) {
      query.whereIn(
        'system_ref',
        options.systemRefs.map(ref => ref.toLowerCase()),
      );
    }
    return (await query).map(toWindow);
  }

  /**
   * Ends a window now: its end moves to now, or, for one not begun yet, to
   * its start (it never happens). Compare-and-set on the end, so of two who
   * end it at once, one does.
   * @throws NotFoundError for an unknown window, ConflictError for one
   * already over.
   */
  async end(id: string, endedBy: string): Promise<StoredMaintenanceWindow> {
    const current = await this.get(id);
    if (!current) {
      throw new NotFoundError(`There is no maintenance window with id '${id}'`);
    }
    const now = this.#now();
    if (current.endsAt <= now) {
      throw new ConflictError(
        `Maintenance window '${id}' is already over (it ended at ${new Date(
          current.endsAt,
        ).toISOString()})`,
      );
    }
    const endsAt = Math.max(now, current.startsAt);
    const updated = await this.#db(TABLE)
      .where({ id, ends_at: current.endsAt })
      .update({ ends_at: endsAt, ended_by: endedBy });
    if (updated === 0) {
      throw new ConflictError(
        `Maintenance window '${id}' was ended or changed meanwhile; read it again`,
      );
    }
    await this.#releaseHeldBy(current, endsAt);
    return { ...current, endsAt, endedBy };
  }

  /**
   * Brings the holds a window ended early may have set forward to its new
   * end: they waited for its old one. Releasing judges maintenance again,
   * so a failure another window still covers is held anew, not told.
   */
  async #releaseHeldBy(window: StoredMaintenanceWindow, at: number) {
    const environments =
      window.environments &&
      new Set(window.environments.map(canonicalEnvironmentName));
    const held = await this.#db(HELD_TABLE)
      .where({ system_ref: window.systemRef.toLowerCase() })
      .where('release_at', '>', at);
    for (const row of held.map(toHeld)) {
      if (
        environments &&
        !environments.has(canonicalEnvironmentName(row.environment))
      ) {
        continue;
      }
      // Compare-and-set: a hold moved meanwhile keeps its new release.
      await this.#db(HELD_TABLE)
        .where({
          system_ref: row.systemRef,
          environment: row.environment,
          release_at: row.releaseAt,
        })
        .update({ release_at: at });
    }
  }

  /**
   * Holds an environment's notification until `releaseAt`; a hold already
   * there keeps its `fromStatus` and moves to the later release.
   */
  async hold(held: Omit<HeldNotification, 'heldAt'>): Promise<void> {
    const systemRef = held.systemRef.toLowerCase();
    const current = await this.getHeld(systemRef, held.environment);
    if (current) {
      await this.#db(HELD_TABLE)
        .where({ system_ref: systemRef, environment: held.environment })
        .update({ release_at: Math.max(current.releaseAt, held.releaseAt) });
      return;
    }
    await this.#db(HELD_TABLE)
      .insert({
        system_ref: systemRef,
        environment: held.environment,
        from_status: held.fromStatus,
        held_at: this.#now(),
        release_at: held.releaseAt,
      })
      .onConflict(['system_ref', 'environment'])
      .ignore();
  }

  async getHeld(
    systemRef: string,
    environment: string,
  ): Promise<HeldNotification | undefined> {
    const row = await this.#db(HELD_TABLE)
      .where({ system_ref: systemRef.toLowerCase(), environment })
      .first();
    return row ? toHeld(row) : undefined;
  }

  /** Forgets a hold: its notification was sent, or is no longer owed. */
  async dropHeld(
    systemRef: string,
    environment: string,
    tx?: Knex.Transaction,
  ): Promise<boolean> {
    const deleted = await (tx ?? this.#db)(HELD_TABLE)
      .where({ system_ref: systemRef.toLowerCase(), environment })
      .delete();
    return deleted > 0;
  }

  /**
   * The holds due by now, each claimed for `leaseMs` (its release moved
   * forward by compare-and-set), so of several instances one handles it,
   * and another does when that one dies before dropping it. At most `limit`.
   */
  async claimDueHolds(
    leaseMs: number,
    limit: number,
  ): Promise<HeldNotification[]> {
    const now = this.#now();
    const due = await this.#db(HELD_TABLE)
      .where('release_at', '<=', now)
      .orderBy('release_at')
      .limit(limit);
    const claimed: HeldNotification[] = [];
    for (const row of due.map(toHeld)) {
      const won = await this.#db(HELD_TABLE)
        .where({
          system_ref: row.systemRef,
          environment: row.environment,
          release_at: row.releaseAt,
        })
        .update({ release_at: now + leaseMs });
      if (won > 0) claimed.push(row);
    }
    return claimed;
  }

  /** Deletes windows that ended before `endedBefore`; returns how many. */
  async prune(endedBefore: number): Promise<number> {
    return await this.#db(TABLE).where('ends_at', '<', endedBefore).delete();
  }
}

function toHeld(row: {
  system_ref: string;
  environment: string;
  from_status: string;
  held_at: number | string;
  release_at: number | string;
}): HeldNotification {
  return {
    systemRef: row.system_ref,
    environment: row.environment,
    fromStatus: row.from_status,
    heldAt: Number(row.held_at),
    releaseAt: Number(row.release_at),
  };
}

function toWindow(row: WindowRow): StoredMaintenanceWindow {
  return {
    id: row.id,
    systemRef: row.system_ref,
    ...(row.checks !== null && { checks: JSON.parse(row.checks) }),
    ...(row.environments !== null && {
      environments: JSON.parse(row.environments),
    }),
    startsAt: Number(row.starts_at),
    endsAt: Number(row.ends_at),
    ...(row.reason !== null && { reason: row.reason }),
    createdBy: row.created_by,
    createdAt: Number(row.created_at),
    ...(row.ended_by !== null && { endedBy: row.ended_by }),
  };
}
