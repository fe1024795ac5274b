import { DatabaseService } from '@backstage/backend-plugin-api';
import { migratedClient } from '../database/migrations';
import { Knex } from 'knex';
import { Engine, engineOf, rowsOf } from '../database/engine';
import type { PrimingRun } from '../admission/primeBulkhead';
import type {
  ClaimStore,
  CompletedRun,
  PauseMarker,
  SliceClaim,
  TickKey,
} from '../model';

/**
 * Ticks per claim statement. The ticks travel as two arrays (PostgreSQL) or
 * one JSON text (SQLite), so no parameter limit applies; the cap only keeps
 * one statement's locks and memory bounded.
 */
const CLAIM_CHUNK_SIZE = 5_000;

/** Results per update statement; each carries its conditions as JSON. */
const COMPLETE_CHUNK_SIZE = 1_000;

/** The columns a run's result fills in, after its claim. */
const RESULT_COLUMNS = [
  'started_at',
  'duration_ms',
  'outcome',
  'status',
  'conditions',
  'error_kind',
  'error_message',
  'lane',
  'timeout_ms',
] as const;

/** `started_at = <from>.started_at, ...` for every result column. */
function setResultColumns(from: 'result' | 'excluded'): string {
  return RESULT_COLUMNS.map(column => `${column} = ${from}.${column}`).join(
    ', ',
  );
}

/**
 * A set of ticks as a relation `tick(slice_id, scheduled_at)` that a
 * statement can select from, with its bindings.
 */
interface TickRelation {
  sql: string;
  bindings: Knex.Value[];
}

/**
 * {@link ClaimStore} on the plugin's database. The hot statements are raw
 * SQL so that a whole batch is one statement with a fixed number of
 * parameters: on PostgreSQL the ticks are `unnest`ed from arrays, on SQLite
 * read with `json_each`.
 *
 * @internal
 */
export class DatabaseClaimStore implements ClaimStore {
  readonly #db: Knex;
  readonly #engine: Engine;

  static async create(options: {
    database: DatabaseService;
  }): Promise<DatabaseClaimStore> {
    const client = await migratedClient(options.database);
    return new DatabaseClaimStore(client);
  }

  private constructor(db: Knex) {
    this.#db = db;
    this.#engine = engineOf(db);
  }

  get isShared(): boolean {
    return this.#engine === 'postgres';
  }

  async claimTicks<TTick extends TickKey>(
    instanceId: string,
    ticks: ReadonlyArray<TTick>,
    claimedAt: number,
  ): Promise<TTick[]> {
    const byKey = new Map<string, TTick>();
    for (const tick of ticks) {
      const key = tickKey(tick.sliceId, tick.scheduledAt);
      if (!byKey.has(key)) {
        byKey.set(key, tick);
      }
    }
    const unique = [...byKey.values()];
    const claimed: TTick[] = [];
    for (let at = 0; at < unique.length; at += CLAIM_CHUNK_SIZE) {
      const chunk = unique.slice(at, at + CLAIM_CHUNK_SIZE);
      const ticksRelation = this.#tickRelation(chunk);
      // Inserting in one global order means two instances contending for
      // the same ticks wait on each other in that order and never deadlock.
      // `WHERE true` settles an SQLite parsing ambiguity before ON CONFLICT.
      const result = await this.#db.raw(
        `INSERT INTO healthcheck_runs
           (slice_id, scheduled_at, claimed_by, claimed_at)
         SELECT tick.slice_id, tick.scheduled_at,
                CAST(? AS VARCHAR(255)), CAST(? AS BIGINT)
         FROM ${ticksRelation.sql}
         WHERE true
         ORDER BY tick.slice_id, tick.scheduled_at
         ON CONFLICT (slice_id, scheduled_at) DO NOTHING
         RETURNING slice_id, scheduled_at`,
        [instanceId, Math.round(claimedAt), ...ticksRelation.bindings],
      );
      for (const row of rowsOf<{ slice_id: string; scheduled_at: unknown }>(
        result,
      )) {
        const tick = byKey.get(tickKey(row.slice_id, Number(row.scheduled_at)));
        if (tick) {
          claimed.push(tick);
        }
      }
    }
    return claimed;
  }

  async releaseClaims(
    instanceId: string,
    ticks: ReadonlyArray<TickKey>,
  ): Promise<number> {
    let released = 0;
    for (let at = 0; at < ticks.length; at += CLAIM_CHUNK_SIZE) {
      const ticksRelation = this.#tickRelation(
        ticks.slice(at, at + CLAIM_CHUNK_SIZE),
      );
      const result = await this.#db.raw(
        `DELETE FROM healthcheck_runs
         WHERE claimed_by = ?
           AND started_at IS NULL
           AND (slice_id, scheduled_at) IN (
             SELECT tick.slice_id, tick.scheduled_at FROM ${ticksRelation.sql}
           )
         RETURNING slice_id`,
        [instanceId, ...ticksRelation.bindings],
      );
      released += rowsOf(result).length;
    }
    return released;
  }

  async readSliceClaims(
    sliceId: string,
    from: number,
    to: number,
  ): Promise<SliceClaim[]> {
    const rows = await this.#db('healthcheck_runs')
      .where('slice_id', sliceId)
      .andWhere('scheduled_at', '>=', Math.floor(from))
      .andWhere('scheduled_at', '<=', Math.ceil(to))
      .orderBy('scheduled_at')
      .select<
        Array<{
          scheduled_at: unknown;
          claimed_by: string;
          claimed_at: unknown;
          started_at: unknown;
        }>
      >('scheduled_at', 'claimed_by', 'claimed_at', 'started_at');
    return rows.map(row => ({
      scheduledAt: Number(row.scheduled_at),
      claimedBy: row.claimed_by,
      claimedAt: Number(row.claimed_at),
      completed: row.started_at !== null,
    }));
  }

  /**
   * The latest `perSlice` finished runs of each slice, newest first, of
   * those at or after `since` (which bounds each slice's range scan), for
   * the bulkhead to start from after a restart.
   */
  async readRecentRuns(
    sliceIds: readonly string[],
    since: number,
    perSlice: number,
  ): Promise<Map<string, PrimingRun[]>> {
    const recent = new Map<string, PrimingRun[]>();
    if (sliceIds.length === 0) {
      return recent;
    }
    const ranked = this.#db('healthcheck_runs')
      .whereIn('slice_id', sliceIds)
      .andWhere('scheduled_at', '>=', Math.floor(since))
      .whereNotNull('outcome')
      .select(
        'slice_id',
        'scheduled_at',
        'outcome',
        'duration_ms',
        'error_kind',
        'timeout_ms',
        this.#db.raw(
          'row_number() OVER (PARTITION BY slice_id ORDER BY scheduled_at DESC) AS rank',
        ),
      )
      .as('ranked');
    const rows = await this.#db
      .from(ranked)
      .where('rank', '<=', perSlice)
      .orderBy([
        { column: 'slice_id' },
        { column: 'scheduled_at', order: 'desc' },
      ])
      .select<
        Array<{
          slice_id: string;
          outcome: PrimingRun['outcome'];
          duration_ms: unknown;
          error_kind: string | null;
          timeout_ms: unknown;
        }>
      >('slice_id', 'outcome', 'duration_ms', 'error_kind', 'timeout_ms');
    for (const row of rows) {
      let runs = recent.get(row.slice_id);
      if (!runs) {
        runs = [];
        recent.set(row.slice_id, runs);
      }
      runs.push({
        outcome: row.outcome,
        durationMs: Number(row.duration_ms ?? 0),
        errorKind: (row.error_kind ?? undefined) as PrimingRun['errorKind'],
        timeoutMs: row.timeout_ms === null ? undefined : Number(row.timeout_ms),
      });
    }
    return recent;
  }

  async writeRuns(
    instanceId: string,
    runs: ReadonlyArray<CompletedRun>,
    writtenAt: number,
  ): Promise<number> {
    let written = 0;
    for (let at = 0; at < runs.length; at += COMPLETE_CHUNK_SIZE) {
      const json = JSON.stringify(
        runs.slice(at, at + COMPLETE_CHUNK_SIZE).map(toResultRow),
      );
      // In the claims' global order, so it never deadlocks with them.
      const result = await this.#db.raw(
        `INSERT INTO healthcheck_runs
           (slice_id, scheduled_at, claimed_by, claimed_at,
            ${RESULT_COLUMNS.join(', ')})
         SELECT result.slice_id, result.scheduled_at,
                CAST(? AS VARCHAR(255)), CAST(? AS BIGINT),
                ${RESULT_COLUMNS.map(column => `result.${column}`).join(', ')}
         FROM ${this.#resultRelationSql()}
         WHERE true
         ORDER BY result.slice_id, result.scheduled_at
         ON CONFLICT (slice_id, scheduled_at) DO UPDATE
         SET ${setResultColumns('excluded')}
         WHERE healthcheck_runs.started_at IS NULL
         RETURNING slice_id`,
        [instanceId, Math.round(writtenAt), json],
      );
      written += rowsOf(result).length;
    }
    return written;
  }

  async heartbeat(instanceId: string, now: number): Promise<void> {
    const at = Math.round(now);
    await this.#db('healthcheck_instances')
      .insert({ id: instanceId, started_at: at, heartbeat_at: at })
      .onConflict('id')
      .merge(['heartbeat_at']);
  }

  async liveInstances(now: number, ttlMs: number): Promise<string[]> {
    const rows = await this.#db('healthcheck_instances')
      .where('heartbeat_at', '>', Math.round(now - ttlMs))
      .orderBy('id')
      .select<{ id: string }[]>('id');
    return rows.map(row => row.id);
  }

  async removeInstance(instanceId: string): Promise<void> {
    await this.#db('healthcheck_instances').where('id', instanceId).delete();
  }

  async removeExpiredInstances(now: number, ttlMs: number): Promise<number> {
    return await this.#db('healthcheck_instances')
      .where('heartbeat_at', '<=', Math.round(now - ttlMs))
      .delete();
  }

  #tickRelation(ticks: ReadonlyArray<TickKey>): TickRelation {
    if (this.#engine === 'postgres') {
      return {
        sql: 'unnest(?::text[], ?::bigint[]) AS tick(slice_id, scheduled_at)',
        bindings: [
          ticks.map(tick => tick.sliceId),
          ticks.map(tick => Math.round(tick.scheduledAt)),
        ],
      };
    }
    return {
      sql: `(SELECT value ->> 0 AS slice_id, value ->> 1 AS scheduled_at
             FROM json_each(?)) AS tick`,
      bindings: [
        JSON.stringify(
          ticks.map(tick => [tick.sliceId, Math.round(tick.scheduledAt)]),
        ),
      ],
    };
  }

  #resultRelationSql(): string {
    if (this.#engine === 'postgres') {
      return `json_to_recordset(?::json) AS result(
        slice_id text, scheduled_at bigint, started_at bigint,
        duration_ms integer, outcome text, status text, conditions text,
        error_kind text, error_message text, lane text, timeout_ms integer)`;
    }
    return `(SELECT
        value ->> '$.slice_id' AS slice_id,
        value ->> '$.scheduled_at' AS scheduled_at,
        value ->> '$.started_at' AS started_at,
        value ->> '$.duration_ms' AS duration_ms,
        value ->> '$.outcome' AS outcome,
        value ->> '$.status' AS status,
        value ->> '$.conditions' AS conditions,
        value ->> '$.error_kind' AS error_kind,
        value ->> '$.error_message' AS error_message,
        value ->> '$.lane' AS lane,
        value ->> '$.timeout_ms' AS timeout_ms
      FROM json_each(?)) AS result`;
  }
}

/** Who a pause marker's run row names as its claimant. */
const PAUSE_MARKER_CLAIMANT = 'reconciler';

/** Seven columns a marker row: 100 rows stay below SQLite's parameter limit. */
const PAUSE_CHUNK_SIZE = 100;

/**
 * Records that slices were paused, as `paused` marker runs in
 * `healthcheck_runs`, whose only writer is this module: the slice store runs
 * this inside the transaction that pauses the slices. A marker where a run
 * already is at that time is left out.
 *
 * @internal
 */
export async function insertPauseMarkers(
  db: Knex,
  markers: ReadonlyArray<PauseMarker>,
): Promise<void> {
  const rows = markers.map(marker => {
    const at = Math.round(marker.at);
    return {
      slice_id: marker.sliceId,
      scheduled_at: at,
      claimed_by: PAUSE_MARKER_CLAIMANT,
      claimed_at: at,
      started_at: at,
      duration_ms: 0,
      status: 'paused',
    };
  });
  for (let at = 0; at < rows.length; at += PAUSE_CHUNK_SIZE) {
    await db('healthcheck_runs')
      .insert(rows.slice(at, at + PAUSE_CHUNK_SIZE))
      .onConflict(['slice_id', 'scheduled_at'])
      .ignore();
  }
}

function tickKey(sliceId: string, scheduledAt: number): string {
  return `${scheduledAt}\u0000${sliceId}`;
}

function toResultRow(run: CompletedRun) {
  return {
    slice_id: run.sliceId,
    scheduled_at: Math.round(run.scheduledAt),
    started_at: Math.round(run.startedAt),
    duration_ms: Math.round(run.durationMs),
    outcome: run.outcome,
    status: run.status,
    conditions: JSON.stringify(run.conditions),
    error_kind: run.error?.kind ?? null,
    error_message: run.error?.message ?? null,
    lane: run.lane,
    timeout_ms: Math.round(run.timeoutMs),
  };
}
