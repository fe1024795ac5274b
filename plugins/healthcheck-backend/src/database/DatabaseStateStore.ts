import { DatabaseService } from '@backstage/backend-plugin-api';
import { createHash } from 'node:crypto';
import { migratedClient } from './migrations';
import type {
  HealthStatus,
  SystemRollup,
} from '@vigil/plugin-healthcheck-common';
import { Knex } from 'knex';
import { coalescedReads } from './coalescedReads';
import { componentsOfRow } from './DatabaseSliceStore';
import { Engine, engineOf, rowsOf } from './engine';
import type {
  EnvironmentSlice,
  RollupClaim,
  StoredRollup,
  StoredSliceState,
} from '../model';

/**
 * A system's stored rollup as {@link DatabaseStateStore.readRollupsUnlessKnown}
 * reads it: with the digest of its stored text, or `unchanged` when that is
 * the digest the caller holds.
 * @internal
 */
export type RollupRead = { rollup: SystemRollup; digest: string } | 'unchanged';

/**
 * What the owner of an environment was told of its outage under way (see
 * `EnvironmentTransitions.deliverNotification`).
 * @internal
 */
export interface EnvironmentNotice {
  systemRef: string;
  environment: string;
  /** The notification's scope; none while nothing was told. */
  scope?: string;
  /** The upstream system the outage was put down to, and since when it fails. */
  upstreamRef?: string;
  upstreamSince?: number;
  /** When the outage began (the transition's time). */
  at: number;
}

/** Ids per `IN (...)` list: below SQLite's and PostgreSQL's parameter limits. */
const ID_CHUNK_SIZE = 900;
/** States per upsert statement; they travel as one JSON parameter. */
const WRITE_CHUNK_SIZE = 1_000;
/** Rollup claims one statement prunes: short statements, whatever the backlog. */
const PRUNE_CHUNK_SIZE = 10_000;

/**
 * The durable health state every instance reads and writes: slice states,
 * environment statuses, system rollups and the rollup debounce claims.
 * @internal
 */
export class DatabaseStateStore {
  readonly #db: Knex;
  readonly #engine: Engine;
  readonly #readRollupCoalesced: (
    systemRef: string,
  ) => Promise<SystemRollup | undefined>;
  readonly #readSystemSlicesCoalesced: (
    systemRef: string,
  ) => Promise<EnvironmentSlice[]>;

  static async create(options: {
    database: DatabaseService;
  }): Promise<DatabaseStateStore> {
    const client = await migratedClient(options.database);
    return new DatabaseStateStore(client);
  }

  constructor(db: Knex) {
    this.#db = db;
    this.#engine = engineOf(db);
    this.#readRollupCoalesced = coalescedReads(refs => this.readRollups(refs), {
      fallback: () => undefined,
      maxBatchSize: ID_CHUNK_SIZE,
    });
    this.#readSystemSlicesCoalesced = coalescedReads(
      async (refs: readonly string[]) => {
        const bySystem = new Map<string, EnvironmentSlice[]>();
        const slices = await this.readEnvironmentSlices(
          refs.map(systemRef => ({ systemRef })),
        );
        for (const slice of slices) {
          const list = bySystem.get(slice.systemRef) ?? [];
          list.push(slice);
          bySystem.set(slice.systemRef, list);
        }
        return bySystem;
      },
      { fallback: () => [], maxBatchSize: ID_CHUNK_SIZE },
    );
  }

  async readSliceStates(
    sliceIds: readonly string[],
  ): Promise<Map<string, StoredSliceState>> {
    const states = new Map<string, StoredSliceState>();
    for (let at = 0; at < sliceIds.length; at += ID_CHUNK_SIZE) {
      const rows = await this.#db('healthcheck_slice_states').whereIn(
        'slice_id',
        sliceIds.slice(at, at + ID_CHUNK_SIZE),
      );
      for (const row of rows) {
        states.set(row.slice_id, sliceStateOfRow(row));
      }
    }
    return states;
  }

  /**
   * Upserts slice states; a state never replaces one that follows a later
   * run (two instances finishing runs of one slice out of order).
   */
  async writeSliceStates(states: readonly StoredSliceState[]): Promise<void> {
    for (let at = 0; at < states.length; at += WRITE_CHUNK_SIZE) {
      const rows = states.slice(at, at + WRITE_CHUNK_SIZE).map(fromSliceState);
      const columns = Object.keys(rows[0]);
      const source =
        this.#engine === 'postgres'
          ? `json_to_recordset(?::json) AS s(
               slice_id text, check_id text, system_ref text, environment text,
               status text, consecutive_failures integer,
               consecutive_successes integer, since bigint, last_outcome text,
               last_scheduled_at bigint, last_run_at bigint,
               last_duration_ms integer, last_reason text)`
          : `(SELECT ${columns
              .map(c => `value ->> '$.${c}' AS ${c}`)
              .join(', ')} FROM json_each(?)) AS s`;
      await this.#db.raw(
        `INSERT INTO healthcheck_slice_states (${columns.join(', ')})
         SELECT ${columns.map(c => `s.${c}`).join(', ')} FROM ${source}
         WHERE true
         ON CONFLICT (slice_id) DO UPDATE SET ${columns
           .filter(c => c !== 'slice_id')
           .map(c => `${c} = excluded.${c}`)
           .join(', ')}
         WHERE excluded.last_scheduled_at >= healthcheck_slice_states.last_scheduled_at`,
        [JSON.stringify(rows)],
      );
    }
  }

  /**
   * The slices of some environments, paused ones included, with their
   * states; only slices the reconciler keeps count.
   */
  async readEnvironmentSlices(
    environments: ReadonlyArray<{ systemRef: string; environment?: string }>,
  ): Promise<EnvironmentSlice[]> {
    const systems = [
      ...new Set(environments.map(e => e.systemRef.toLowerCase())),
    ];
    const wanted = new Set(
      environments.map(e =>
        e.environment === undefined
          ? e.systemRef.toLowerCase()
          : `${e.systemRef.toLowerCase()}\u0000${e.environment}`,
      ),
    );
    const result: EnvironmentSlice[] = [];
    for (let at = 0; at < systems.length; at += ID_CHUNK_SIZE) {
      const chunk = systems.slice(at, at + ID_CHUNK_SIZE);
      const rows = await this.#slicesWithStates(
        query => query.whereIn('s.system_ref', chunk),
        join => join.andOnIn('st.system_ref', chunk),
      );
      for (const row of rows) {
        const key = `${row.slice_system_ref}\u0000${row.slice_environment}`;
        if (wanted.has(key) || wanted.has(row.slice_system_ref)) {
          result.push(toEnvironmentSlice(row));
        }
      }
    }
    return result;
  }

  /**
   * What the sweep compares of the systems from `first` to `last` (both
   * included, in order): their slices with states, their environments'
   * stored statuses and their stored rollups. Range reads, which each
   * table's index answers in the time of the rows they return, however
   * large the tables grow.
   */
  async readSystemsBetween(
    first: string,
    last: string,
  ): Promise<{
    slices: EnvironmentSlice[];
    environmentStates: Map<
      string,
      Map<string, { status: HealthStatus; since: number }>
    >;
    rollups: Map<string, StoredRollup>;
  }> {
    const range = [first.toLowerCase(), last.toLowerCase()] as const;
    const [slices, states, rollups] = await Promise.all([
      this.#slicesWithStates(
        query => query.whereBetween('s.system_ref', range),
        join => join.andOnBetween('st.system_ref', range),
      ),
      this.#db('healthcheck_environment_states').whereBetween(
        'system_ref',
        range,
      ),
      this.#db('healthcheck_rollups')
        .whereBetween('system_ref', range)
        .select('system_ref', 'rollup', 'computed_at'),
    ]);
    return {
      slices: slices.map(toEnvironmentSlice),
      environmentStates: environmentStatesBySystem(states),
      rollups: new Map(rollups.map(storedRollupOf)),
    };
  }

  /**
   * Slices not removed, joined with their states. The states are matched
   * by system too (`joinStates`), so both sides are read through their
   * system index: joined on the slice id alone, PostgreSQL scans every
   * state to join a few hundred slices.
   */
  #slicesWithStates(
    whereSlices: (query: Knex.QueryBuilder) => Knex.QueryBuilder,
    joinStates: (join: Knex.JoinClause) => Knex.JoinClause,
  ): Promise<Record<string, any>[]> {
    return whereSlices(
      this.#db('healthcheck_slices as s').leftJoin(
        'healthcheck_slice_states as st',
        function joinOn() {
          joinStates(this.on('st.slice_id', 's.id'));
        },
      ),
    )
      .andWhere('s.removed', false)
      .select(
        's.id as id',
        's.check_id as slice_check_id',
        's.system_ref as slice_system_ref',
        's.environment as slice_environment',
        's.paused as paused',
        's.components as slice_components',
        'st.*',
      );
  }

  /** The stored statuses of a system's environments. */
  async readEnvironmentStates(
    systemRef: string,
  ): Promise<Map<string, { status: HealthStatus; since: number }>> {
    const rows = await this.#db('healthcheck_environment_states').where(
      'system_ref',
      systemRef.toLowerCase(),
    );
    return new Map(
      rows.map(row => [
        row.environment,
        { status: row.status, since: Number(row.since) },
      ]),
    );
  }

  /** The stored statuses of the environments of some systems, by system. */
  async readEnvironmentStatesOf(
    systemRefs: readonly string[],
  ): Promise<
    Map<string, Map<string, { status: HealthStatus; since: number }>>
  > {
    const refs = [...new Set(systemRefs.map(ref => ref.toLowerCase()))];
    const rows: Record<string, any>[] = [];
    for (let at = 0; at < refs.length; at += ID_CHUNK_SIZE) {
      const chunk = await this.#db('healthcheck_environment_states').whereIn(
        'system_ref',
        refs.slice(at, at + ID_CHUNK_SIZE),
      );
      // One by one: spreading rows into push() overflows the stack past
      // about 120,000 of them.
      for (const row of chunk) {
        rows.push(row);
      }
    }
    return environmentStatesBySystem(rows);
  }

  /**
   * Up to `limit` systems after `after` (all from the first when absent),
   * in order: those with slices and those with a stored rollup. Reading a
   * page at a time keeps each statement short however many systems there
   * are.
   */
  async listSystemsPage(
    after: string | undefined,
    limit: number,
  ): Promise<string[]> {
    const withSlices = this.#db('healthcheck_slices')
      .distinct('system_ref')
      .where('removed', false)
      .orderBy('system_ref')
      .limit(limit);
    const withRollups = this.#db('healthcheck_rollups')
      .select('system_ref')
      .orderBy('system_ref')
      .limit(limit);
    if (after !== undefined) {
      withSlices.andWhere('system_ref', '>', after);
      withRollups.where('system_ref', '>', after);
    }
    const [a, b] = await Promise.all([withSlices, withRollups]);
    // The first `limit` of either list are the first `limit` of both.
    return [...new Set([...a, ...b].map(row => row.system_ref as string))]
      .sort()
      .slice(0, limit);
  }

  /**
   * Forgets the stored statuses of the environments of these systems that
   * have no slice any more. One statement, so an environment whose slices
   * come back meanwhile keeps its status.
   */
  async forgetGoneEnvironments(systemRefs: readonly string[]): Promise<number> {
    let forgotten = 0;
    const refs = [...new Set(systemRefs.map(ref => ref.toLowerCase()))];
    for (let at = 0; at < refs.length; at += ID_CHUNK_SIZE) {
      forgotten += await this.#db('healthcheck_environment_states as e')
        .whereIn('e.system_ref', refs.slice(at, at + ID_CHUNK_SIZE))
        .whereNotExists(
          this.#db('healthcheck_slices as s')
            .select(this.#db.raw('1'))
            .whereRaw('s.system_ref = e.system_ref')
            .andWhereRaw('s.environment = e.environment')
            .andWhere('s.removed', false),
        )
        .delete();
      // Their notices go with them.
      await this.#db('healthcheck_environment_notices as n')
        .whereIn('n.system_ref', refs.slice(at, at + ID_CHUNK_SIZE))
        .whereNotExists(
          this.#db('healthcheck_environment_states as e')
            .select(this.#db.raw('1'))
            .whereRaw('e.system_ref = n.system_ref')
            .andWhereRaw('e.environment = n.environment'),
        )
        .delete();
    }
    return forgotten;
  }

  /** What the owner of an environment was told of its outage under way. */
  async readNotice(
    systemRef: string,
    environment: string,
  ): Promise<EnvironmentNotice | undefined> {
    const row = await this.#db('healthcheck_environment_notices')
      .where({ system_ref: systemRef.toLowerCase(), environment })
      .first();
    return row
      ? {
          systemRef: row.system_ref,
          environment: row.environment,
          scope: row.scope ?? undefined,
          upstreamRef: row.upstream_ref ?? undefined,
          upstreamSince:
            row.upstream_since === null || row.upstream_since === undefined
              ? undefined
              : Number(row.upstream_since),
          at: Number(row.at),
        }
      : undefined;
  }

  /** Records what the owner was told (or that nothing was) of an outage. */
  async writeNotice(notice: EnvironmentNotice): Promise<void> {
    const row = {
      system_ref: notice.systemRef.toLowerCase(),
      environment: notice.environment,
      scope: notice.scope ?? null,
      upstream_ref: notice.upstreamRef ?? null,
      upstream_since: notice.upstreamSince ?? null,
      at: Math.round(notice.at),
    };
    await this.#db('healthcheck_environment_notices')
      .insert(row)
      .onConflict(['system_ref', 'environment'])
      .merge();
  }

  /** Forgets the notice of an outage that ended. */
  async dropNotice(systemRef: string, environment: string): Promise<void> {
    await this.#db('healthcheck_environment_notices')
      .where({ system_ref: systemRef.toLowerCase(), environment })
      .delete();
  }

  /**
   * Moves an environment from `from` (undefined: no row yet) to `to`, only if
   * it still has `from`: of several instances that see the same change, one
   * wins and tells the others' work apart from a real transition.
   */
  async transitionEnvironment(
    change: {
      systemRef: string;
      environment: string;
      from: HealthStatus | undefined;
      to: HealthStatus;
      at: number;
    },
    /**
     * Runs in the transaction of a move that won: what the move calls for
     * (its notifications, its event) exists exactly when the move does.
     */
    alongside?: (tx: Knex.Transaction) => Promise<void>,
  ): Promise<boolean> {
    const systemRef = change.systemRef.toLowerCase();
    return await this.#db.transaction(async tx => {
      let won: boolean;
      if (change.from === undefined) {
        const result = await tx.raw(
          `INSERT INTO healthcheck_environment_states (system_ref, environment, status, since)
           VALUES (?, ?, ?, ?)
           ON CONFLICT (system_ref, environment) DO NOTHING
           RETURNING system_ref`,
          [systemRef, change.environment, change.to, Math.round(change.at)],
        );
        won = rowsOf(result).length === 1;
      } else {
        const updated = await tx('healthcheck_environment_states')
          .where({
            system_ref: systemRef,
            environment: change.environment,
            status: change.from,
          })
          .update({ status: change.to, since: Math.round(change.at) });
        won = updated === 1;
      }
      if (won) {
        await alongside?.(tx);
      }
      return won;
    });
  }

  /** Forgets environments a system no longer has. */
  async removeEnvironmentStates(
    systemRef: string,
    keep: readonly string[],
  ): Promise<void> {
    await this.#db('healthcheck_environment_states')
      .where('system_ref', systemRef.toLowerCase())
      .whereNotIn('environment', keep.length > 0 ? [...keep] : [''])
      .delete();
  }

  /**
   * One system's stored rollup. Reads asked for together (in one turn of
   * the event loop) share one query.
   */
  async readRollup(systemRef: string): Promise<SystemRollup | undefined> {
    return this.#readRollupCoalesced(systemRef.toLowerCase());
  }

  /**
   * One system's slices, paused ones included, with their states. Reads
   * asked for together share one query.
   */
  async readSystemSlices(systemRef: string): Promise<EnvironmentSlice[]> {
    return this.#readSystemSlicesCoalesced(systemRef.toLowerCase());
  }

  async readRollups(
    systemRefs: readonly string[],
  ): Promise<Map<string, SystemRollup>> {
    const rollups = new Map<string, SystemRollup>();
    const refs = systemRefs.map(ref => ref.toLowerCase());
    for (let at = 0; at < refs.length; at += ID_CHUNK_SIZE) {
      const rows = await this.#db('healthcheck_rollups')
        .whereIn('system_ref', refs.slice(at, at + ID_CHUNK_SIZE))
        .select('system_ref', 'rollup');
      for (const row of rows) {
        rollups.set(row.system_ref, JSON.parse(row.rollup));
      }
    }
    return rollups;
  }

  /** Stored rollups with the time each was computed at, by system. */
  async readStoredRollups(
    systemRefs: readonly string[],
  ): Promise<Map<string, StoredRollup>> {
    const stored = new Map<string, StoredRollup>();
    const refs = [...new Set(systemRefs.map(ref => ref.toLowerCase()))];
    for (let at = 0; at < refs.length; at += ID_CHUNK_SIZE) {
      const rows = await this.#db('healthcheck_rollups')
        .whereIn('system_ref', refs.slice(at, at + ID_CHUNK_SIZE))
        .select('system_ref', 'rollup', 'computed_at');
      for (const [systemRef, rollup] of rows.map(storedRollupOf)) {
        stored.set(systemRef, rollup);
      }
    }
    return stored;
  }

  /**
   * When each of these systems' stored rollups was computed (epoch ms), by
   * lower-case ref; a system without one is not in the answer. Reads no
   * rollup itself: whoever only compares times parses nothing.
   */
  async readRollupTimes(
    systemRefs: readonly string[],
  ): Promise<Map<string, number>> {
    const times = new Map<string, number>();
    const refs = [...new Set(systemRefs.map(ref => ref.toLowerCase()))];
    for (let at = 0; at < refs.length; at += ID_CHUNK_SIZE) {
      const rows = await this.#db('healthcheck_rollups')
        .whereIn('system_ref', refs.slice(at, at + ID_CHUNK_SIZE))
        .select('system_ref', 'computed_at');
      for (const row of rows) {
        times.set(row.system_ref, Number(row.computed_at));
      }
    }
    return times;
  }

  /**
   * The stored rollups of these systems, by lower-case ref, except those
   * whose stored text still has the digest the caller holds: the read model
   * reads a system again after every run of its slices, and its rollup
   * seldom changes with them, so an unchanged one is neither sent nor
   * parsed. A system with no stored rollup is not in the answer.
   */
  async readRollupsUnlessKnown(
    known: ReadonlyMap<string, string | undefined>,
  ): Promise<Map<string, RollupRead>> {
    const read = new Map<string, RollupRead>();
    const refs = [...known.keys()].map(ref => ref.toLowerCase());
    const digests = new Set(
      [...known.values()].filter((d): d is string => d !== undefined),
    );
    for (let at = 0; at < refs.length; at += ID_CHUNK_SIZE) {
      const chunk = refs.slice(at, at + ID_CHUNK_SIZE);
      const rows =
        this.#engine === 'postgres'
          ? await this.#db('healthcheck_rollups')
              .whereIn('system_ref', chunk)
              .select(
                'system_ref',
                this.#db.raw('md5(rollup) AS digest'),
                this.#db.raw(
                  'CASE WHEN md5(rollup) = ANY(?::text[]) THEN NULL ELSE rollup END AS rollup',
                  [[...digests]],
                ),
              )
          : // SQLite has no md5; its single instance keeps no read model.
            (
              await this.#db('healthcheck_rollups')
                .whereIn('system_ref', chunk)
                .select('system_ref', 'rollup')
            ).map(row => ({ ...row, digest: md5Of(row.rollup) }));
      for (const row of rows) {
        read.set(
          row.system_ref,
          row.rollup === null || digests.has(row.digest)
            ? 'unchanged'
            : { rollup: JSON.parse(row.rollup), digest: row.digest },
        );
      }
    }
    return read;
  }

  /** Every stored rollup, for listing; the caller filters and pages. */
  async listRollups(): Promise<SystemRollup[]> {
    const rows = await this.#db('healthcheck_rollups').select('rollup');
    return rows.map(row => JSON.parse(row.rollup) as SystemRollup);
  }

  /**
   * Stores a rollup computed from state read at `computedAt`, unless one
   * computed later is already stored.
   * @returns the status stored before, or `undefined` when there was none;
   *   `false` when a newer rollup won
   */
  async writeRollup(
    rollup: SystemRollup,
    computedAt: number,
    /**
     * Runs in the transaction of a write that stores, with the rollup
     * stored before: what a status change calls for exists exactly when
     * the change does.
     */
    alongside?: (
      tx: Knex.Transaction,
      previous: SystemRollup | undefined,
    ) => Promise<void>,
  ): Promise<{ stored: boolean; previous?: SystemRollup }> {
    return await this.#db.transaction(async tx => {
      const systemRef = rollup.systemRef.toLowerCase();
      // SQLite serializes writers already; PostgreSQL locks the row so two
      // instances cannot both read the old rollup and both store theirs.
      const query = tx('healthcheck_rollups').where('system_ref', systemRef);
      const existing = await (this.#engine === 'postgres'
        ? query.forUpdate()
        : query
      ).first('rollup', 'computed_at');
      if (existing && Number(existing.computed_at) > computedAt) {
        return { stored: false };
      }
      const row = {
        system_ref: systemRef,
        status: rollup.status,
        rollup: JSON.stringify(rollup),
        since: Date.parse(rollup.since),
        computed_at: Math.round(computedAt),
      };
      await tx('healthcheck_rollups')
        .insert(row)
        .onConflict('system_ref')
        .merge();
      const previous = existing ? JSON.parse(existing.rollup) : undefined;
      await alongside?.(tx, previous);
      return { stored: true, previous };
    });
  }

  /** Claims a debounce id; true for the one caller that inserted it. */
  async claimRollup(
    id: string,
    instanceId: string,
    now: number,
  ): Promise<boolean> {
    const result = await this.#db.raw(
      `INSERT INTO healthcheck_rollup_claims (id, claimed_by, claimed_at)
       VALUES (?, ?, ?)
       ON CONFLICT (id) DO NOTHING
       RETURNING id`,
      [id, instanceId, Math.round(now)],
    );
    return rowsOf(result).length === 1;
  }

  /**
   * Gives a debounce id up, if `instanceId` still holds it: after a window
   * computed early (at shutdown), so a change later in the window can
   * claim it again.
   */
  async releaseRollupClaim(id: string, instanceId: string): Promise<void> {
    await this.#db('healthcheck_rollup_claims')
      .where({ id, claimed_by: instanceId })
      .delete();
  }

  /** The claims made from `from` until before `to` (epoch ms), oldest first. */
  async readRollupClaims(range: {
    from: number;
    to: number;
  }): Promise<RollupClaim[]> {
    const rows = await this.#db('healthcheck_rollup_claims')
      .where('claimed_at', '>=', Math.round(range.from))
      .andWhere('claimed_at', '<', Math.round(range.to))
      .orderBy('claimed_at')
      .select('id', 'claimed_by', 'claimed_at');
    return rows.map(row => ({
      id: row.id,
      claimedBy: row.claimed_by,
      claimedAt: Number(row.claimed_at),
    }));
  }

  /** Deletes the claims made before `before` (epoch ms), 10,000 a statement. */
  async pruneRollupClaims(before: number): Promise<number> {
    let pruned = 0;
    for (;;) {
      const deleted = await this.#db('healthcheck_rollup_claims')
        .whereIn(
          'id',
          this.#db('healthcheck_rollup_claims')
            .select('id')
            .where('claimed_at', '<', Math.round(before))
            .limit(PRUNE_CHUNK_SIZE),
        )
        .delete();
      pruned += deleted;
      if (deleted < PRUNE_CHUNK_SIZE) {
        return pruned;
      }
    }
  }
}

function toEnvironmentSlice(row: Record<string, any>): EnvironmentSlice {
  return {
    sliceId: row.id,
    checkId: row.slice_check_id,
    systemRef: row.slice_system_ref,
    environment: row.slice_environment,
    paused: Boolean(row.paused),
    state: row.slice_id ? sliceStateOfRow(row) : undefined,
    ...componentsOfRow(row.slice_components),
  };
}

function environmentStatesBySystem(
  rows: readonly Record<string, any>[],
): Map<string, Map<string, { status: HealthStatus; since: number }>> {
  const bySystem = new Map<
    string,
    Map<string, { status: HealthStatus; since: number }>
  >();
  for (const row of rows) {
    const states = bySystem.get(row.system_ref) ?? new Map();
    states.set(row.environment, {
      status: row.status,
      since: Number(row.since),
    });
    bySystem.set(row.system_ref, states);
  }
  return bySystem;
}

function storedRollupOf(row: Record<string, any>): [string, StoredRollup] {
  return [
    row.system_ref,
    { rollup: JSON.parse(row.rollup), computedAt: Number(row.computed_at) },
  ];
}

/**
 * A slice state from its row, as a query reads it or as a notification of
 * the row (`row_to_json`) carries it.
 * @internal
 */
export function sliceStateOfRow(row: Record<string, any>): StoredSliceState {
  return {
    sliceId: row.slice_id,
    checkId: row.check_id,
    systemRef: row.system_ref,
    environment: row.environment,
    status: row.status,
    consecutiveFailures: Number(row.consecutive_failures),
    consecutiveSuccesses: Number(row.consecutive_successes),
    since: Number(row.since),
    lastOutcome: row.last_outcome ?? null,
    lastScheduledAt: Number(row.last_scheduled_at),
    lastRunAt: Number(row.last_run_at),
    lastDurationMs:
      row.last_duration_ms === null || row.last_duration_ms === undefined
        ? undefined
        : Number(row.last_duration_ms),
    lastReason: row.last_reason ?? undefined,
  };
}

function fromSliceState(state: StoredSliceState) {
  return {
    slice_id: state.sliceId,
    check_id: state.checkId,
    system_ref: state.systemRef.toLowerCase(),
    environment: state.environment,
    status: state.status,
    consecutive_failures: state.consecutiveFailures,
    consecutive_successes: state.consecutiveSuccesses,
    since: Math.round(state.since),
    last_outcome: state.lastOutcome,
    last_scheduled_at: Math.round(state.lastScheduledAt),
    last_run_at: Math.round(state.lastRunAt),
    last_duration_ms:
      state.lastDurationMs === undefined
        ? null
        : Math.round(state.lastDurationMs),
    last_reason: state.lastReason ?? null,
  };
}

/** As PostgreSQL's `md5(text)`: hex of the UTF-8 bytes. */
function md5Of(text: string): string {
  return createHash('md5').update(text, 'utf8').digest('hex');
}
