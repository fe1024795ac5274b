import { DatabaseService } from '@backstage/backend-plugin-api';
import { Knex } from 'knex';
import { migratedClient } from '../database/migrations';
import type { HeartbeatSignals } from './heartbeatDeadline';
import { createPingToken, hashPingToken, pingTokenHint } from './pingTokens';

const TABLE = 'healthcheck_heartbeats';
/** Read only, to find the rows of slices that are gone. */
const SLICES_TABLE = 'healthcheck_slices';

/** What a job sends: it started, it succeeded, or it failed. */
export type PingKind = 'start' | 'success' | 'fail';

/** A heartbeat slice as its managers see it: never its token. */
export interface HeartbeatSlice extends HeartbeatSignals {
  sliceId: string;
  checkId: string;
  tokenHint: string;
}

/** A token made for a slice: shown once, then only its hint. */
export interface IssuedPingToken {
  sliceId: string;
  token: string;
  tokenHint: string;
}

interface HeartbeatRow {
  slice_id: string;
  check_id: string;
  token_hint: string;
  armed_at: string | number;
  last_ping_at: string | number | null;
  last_start_at: string | number | null;
  last_fail_at: string | number | null;
  last_duration_ms: number | null;
  last_message: string | null;
}

/**
 * The ping tokens of heartbeat slices (as hashes) and the last signals of
 * their jobs, in the database every instance reads: a ping taken by one
 * instance moves the deadline that another instance's tick reads.
 */
export class DatabaseHeartbeatStore {
  readonly #db: Knex;

  static async create(options: {
    database: DatabaseService;
  }): Promise<DatabaseHeartbeatStore> {
    return new DatabaseHeartbeatStore(await migratedClient(options.database));
  }

  constructor(db: Knex) {
    this.#db = db;
  }

  /**
   * New tokens for these slices of a check, replacing any they had; a
   * slice's last signals stay, and its first deadline counts from now.
   */
  async issueTokens(
    checkId: string,
    sliceIds: readonly string[],
    now: number,
  ): Promise<IssuedPingToken[]> {
    const issued = sliceIds.map(sliceId => {
      const token = createPingToken();
      return { sliceId, token, tokenHint: pingTokenHint(token) };
    });
    await this.#db.transaction(async tx => {
      for (const { sliceId, token, tokenHint } of issued) {
        await tx(TABLE)
          .insert({
            slice_id: sliceId,
            check_id: checkId,
            token_hash: hashPingToken(token),
            token_hint: tokenHint,
            armed_at: now,
          })
          .onConflict('slice_id')
          .merge(['token_hash', 'token_hint', 'check_id']);
      }
    });
    return issued;
  }

  /**
   * Gives a slice a token that is fixed in configuration (the demo's), so
   * its pinger needs no API call; the slice keeps its signals.
   */
  async fixToken(
    checkId: string,
    sliceId: string,
    token: string,
    now: number,
  ): Promise<void> {
    await this.#db(TABLE)
      .insert({
        slice_id: sliceId,
        check_id: checkId,
        token_hash: hashPingToken(token),
        token_hint: pingTokenHint(token),
        armed_at: now,
      })
      .onConflict('slice_id')
      .merge(['token_hash', 'token_hint', 'check_id']);
  }

  /** The slice a token pings, by the token's hash through a unique index. */
  async findByTokenHash(
    tokenHash: string,
  ): Promise<{ sliceId: string; checkId: string } | undefined> {
    const row = await this.#db(TABLE)
      .where({ token_hash: tokenHash })
      .first('slice_id', 'check_id');
    return row ? { sliceId: row.slice_id, checkId: row.check_id } : undefined;
  }

  async read(sliceId: string): Promise<HeartbeatSlice | undefined> {
    const row: HeartbeatRow | undefined = await this.#db(TABLE)
      .where({ slice_id: sliceId })
      .first();
    return row && heartbeatSliceOf(row);
  }

  async listOfCheck(checkId: string): Promise<HeartbeatSlice[]> {
    const rows: HeartbeatRow[] = await this.#db(TABLE)
      .where({ check_id: checkId })
      .orderBy('slice_id');
    return rows.map(heartbeatSliceOf);
  }

  /**
   * Deletes the rows of slices that are gone from the slice table (their
   * tombstones pruned, so no instance runs them): their tokens die with
   * them, and the table grows with the slices that exist, not with time.
   * A slice that comes back later needs a new ping URL.
   */
  async pruneOrphans(): Promise<number> {
    const db = this.#db;
    return await db(TABLE)
      .whereNotExists(
        db(SLICES_TABLE)
          .select(db.raw('1'))
          .whereRaw(`${SLICES_TABLE}.id = ${TABLE}.slice_id`),
      )
      .delete();
  }

  /**
   * Records one signal in one statement, so two instances taking pings of
   * one slice never lose one. A success measures its run from a start sent
   * after the previous success or failure. A signal older than the one of
   * its kind already kept changes nothing: a ping written late (kept in
   * memory while the database was away) never moves a slice's signals back.
   */
  async recordPing(
    sliceId: string,
    kind: PingKind,
    at: number,
    message: string | undefined,
  ): Promise<void> {
    const db = this.#db;
    const column = {
      start: 'last_start_at',
      fail: 'last_fail_at',
      success: 'last_ping_at',
    }[kind];
    const rows = db(TABLE)
      .where({ slice_id: sliceId })
      .andWhere(newer => newer.whereNull(column).orWhere(column, '<', at));
    // The message is the newest signal's, success or failure.
    const newestMessage = (other: string) =>
      db.raw(
        `CASE WHEN ${other} IS NULL OR ${other} <= ? THEN ? ELSE last_message END`,
        [at, message ?? null],
      );
    if (kind === 'start') {
      await rows.update({ last_start_at: at });
    } else if (kind === 'fail') {
      await rows.update({
        last_fail_at: at,
        last_message: newestMessage('last_ping_at'),
      });
    } else {
      await rows.update({
        last_duration_ms: db.raw(
          `CASE WHEN last_start_at IS NOT NULL
             AND (last_ping_at IS NULL OR last_start_at > last_ping_at)
             AND (last_fail_at IS NULL OR last_start_at > last_fail_at)
           THEN ? - last_start_at ELSE NULL END`,
          [at],
        ),
        last_ping_at: at,
        last_message: newestMessage('last_fail_at'),
      });
    }
  }
}

function heartbeatSliceOf(row: HeartbeatRow): HeartbeatSlice {
  const optional = (value: string | number | null) =>
    value === null ? undefined : Number(value);
  return {
    sliceId: row.slice_id,
    checkId: row.check_id,
    tokenHint: row.token_hint,
    armedAt: Number(row.armed_at),
    lastPingAt: optional(row.last_ping_at),
    lastStartAt: optional(row.last_start_at),
    lastFailAt: optional(row.last_fail_at),
    lastDurationMs: optional(row.last_duration_ms),
    lastMessage: row.last_message ?? undefined,
  };
}
