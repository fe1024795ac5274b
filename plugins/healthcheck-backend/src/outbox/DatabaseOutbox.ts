import { DatabaseService } from '@backstage/backend-plugin-api';
import { Knex } from 'knex';
import { Engine, engineOf, rowsOf } from '../database/engine';
import { migratedClient } from '../database/migrations';

const TABLE = 'healthcheck_outbox';

/** Rows per insert statement. */
const WRITE_CHUNK_SIZE = 200;

/** Ids per `IN (...)` list: below SQLite's and PostgreSQL's parameter limits. */
const ID_CHUNK_SIZE = 900;

/** The longest error text kept with an entry. */
const ERROR_CHARS = 1_000;

/**
 * A side effect to deliver: `kind` names what delivers it (see
 * `OutboxDispatcher`), `stream` orders it: of one stream, only the oldest
 * entry waiting is delivered, so an owner never reads a recovery before the
 * outage it ends.
 * @internal
 */
export interface OutboxEntry {
  stream: string;
  kind: string;
  payload: unknown;
  /** Epoch ms before which it is not delivered; now when absent. */
  dueAt?: number;
}

/** An entry an instance claimed for delivery. @internal */
export interface ClaimedOutboxEntry {
  id: string;
  stream: string;
  kind: string;
  payload: unknown;
  createdAt: number;
  /** Failed deliveries before this one. */
  attempts: number;
}

/** What the outbox holds, for the metrics. @internal */
export interface OutboxMeasure {
  pending: number;
  /** Entries whose last delivery failed. */
  failing: number;
  /** Epoch ms of the oldest entry waiting, when any does. */
  oldestCreatedAt?: number;
}

interface OutboxRow {
  id: string | number;
  stream: string;
  kind: string;
  payload: string;
  created_at: string | number;
  attempts: string | number;
}

/**
 * The durable outbox every instance shares (table `healthcheck_outbox`):
 * side effects are written in the transaction of the state change that
 * calls for them, claimed for a lease by one instance at a time, deleted
 * once delivered, and put back with a later due time when delivery fails.
 * @internal
 */
export class DatabaseOutbox {
  readonly #db: Knex;
  readonly #engine: Engine;

  static async create(options: {
    database: DatabaseService;
  }): Promise<DatabaseOutbox> {
    return new DatabaseOutbox(await migratedClient(options.database));
  }

  constructor(db: Knex) {
    this.#db = db;
    this.#engine = engineOf(db);
  }

  /** Runs `work` in a transaction of the outbox's database. */
  async transaction<T>(work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
    return await this.#db.transaction(work);
  }

  /**
   * Writes entries, in the given transaction when there is one (so they
   * exist exactly when the change that calls for them does).
   */
  async write(
    entries: readonly OutboxEntry[],
    now: number,
    tx?: Knex.Transaction,
  ): Promise<void> {
    const db = tx ?? this.#db;
    for (let at = 0; at < entries.length; at += WRITE_CHUNK_SIZE) {
      await db(TABLE).insert(
        entries.slice(at, at + WRITE_CHUNK_SIZE).map(entry => ({
          stream: entry.stream,
          kind: entry.kind,
          payload: JSON.stringify(entry.payload),
          created_at: Math.round(now),
          due_at: Math.round(entry.dueAt ?? now),
          attempts: 0,
        })),
      );
    }
  }

  /**
   * Claims up to `limit` due entries for `leaseMs`, each the oldest of its
   * stream, whose lease (if any) ran out: an instance that died while
   * delivering leaves its entries to the next claim after its lease.
   */
  async claimDue(options: {
    instanceId: string;
    now: number;
    leaseMs: number;
    limit: number;
  }): Promise<ClaimedOutboxEntry[]> {
    const now = Math.round(options.now);
    // SKIP LOCKED: two instances claiming at once take different entries
    // instead of queueing behind each other; SQLite has one writer anyway.
    const lock = this.#engine === 'postgres' ? 'FOR UPDATE SKIP LOCKED' : '';
    const result = await this.#db.raw(
      `UPDATE ${TABLE}
       SET claimed_by = ?, claimed_until = ?
       WHERE id IN (
         SELECT waiting.id FROM ${TABLE} waiting
         WHERE waiting.due_at <= ?
           AND (waiting.claimed_until IS NULL OR waiting.claimed_until < ?)
           AND NOT EXISTS (
             SELECT 1 FROM ${TABLE} earlier
             WHERE earlier.stream = waiting.stream AND earlier.id < waiting.id
           )
         ORDER BY waiting.due_at, waiting.id
         LIMIT ?
         ${lock}
       )
       AND (claimed_until IS NULL OR claimed_until < ?)
       RETURNING id, stream, kind, payload, created_at, attempts`,
      [
        options.instanceId,
        now + Math.round(options.leaseMs),
        now,
        now,
        options.limit,
        now,
      ],
    );
    return rowsOf<OutboxRow>(result)
      .map(row => ({
        id: String(row.id),
        stream: row.stream,
        kind: row.kind,
        payload: JSON.parse(row.payload),
        createdAt: Number(row.created_at),
        attempts: Number(row.attempts),
      }))
      .sort((a, b) => Number(a.id) - Number(b.id));
  }

  /** Deletes delivered entries: their streams' next entries fall due. */
  async delivered(ids: readonly string[]): Promise<void> {
    for (let at = 0; at < ids.length; at += ID_CHUNK_SIZE) {
      await this.#db(TABLE)
        .whereIn('id', ids.slice(at, at + ID_CHUNK_SIZE))
        .delete();
    }
  }

  /**
   * Puts an entry whose delivery failed back, due again at `dueAt`, if
   * `instanceId` still holds it (a lease that ran out belongs to another).
   */
  async retryLater(
    entry: { id: string; instanceId: string },
    dueAt: number,
    error: string,
  ): Promise<void> {
    await this.#db(TABLE)
      .where({ id: entry.id, claimed_by: entry.instanceId })
      .update({
        due_at: Math.round(dueAt),
        attempts: this.#db.raw('attempts + 1'),
        last_error: error.slice(0, ERROR_CHARS),
        claimed_by: null,
        claimed_until: null,
      });
  }

  /**
   * Puts an entry back, due again at `dueAt`, without counting a failure:
   * a delivery that has more to do later (a reminder, a follow-up).
   */
  async reschedule(
    entry: { id: string; instanceId: string },
    dueAt: number,
  ): Promise<void> {
    await this.#db(TABLE)
      .where({ id: entry.id, claimed_by: entry.instanceId })
      .update({
        due_at: Math.round(dueAt),
        claimed_by: null,
        claimed_until: null,
      });
  }

  /** Gives up the claims of an instance that stops: others take them at once. */
  async release(instanceId: string): Promise<void> {
    await this.#db(TABLE)
      .where({ claimed_by: instanceId })
      .update({ claimed_by: null, claimed_until: null });
  }

  /**
   * Drops what can no longer be delivered in time to matter: entries
   * written before `writtenBefore`, and the oldest beyond `maxPending`.
   * Returns what was dropped, for the log.
   */
  async dropUndeliverable(options: {
    writtenBefore: number;
    maxPending: number;
  }): Promise<Array<{ stream: string; kind: string; attempts: number }>> {
    const expired: OutboxRow[] = await this.#db(TABLE)
      .where('created_at', '<', Math.round(options.writtenBefore))
      .select('id', 'stream', 'kind', 'attempts');
    const [{ count }] = await this.#db(TABLE).count({ count: '*' });
    const over = Number(count) - expired.length - options.maxPending;
    const overflow: OutboxRow[] =
      over > 0
        ? await this.#db(TABLE)
            .where('created_at', '>=', Math.round(options.writtenBefore))
            .orderBy('id')
            .limit(over)
            .select('id', 'stream', 'kind', 'attempts')
        : [];
    const dropped = [...expired, ...overflow];
    await this.delivered(dropped.map(row => String(row.id)));
    return dropped.map(row => ({
      stream: row.stream,
      kind: row.kind,
      attempts: Number(row.attempts),
    }));
  }

  /** How many entries wait, how many failed, and the oldest's age. */
  async measure(): Promise<OutboxMeasure> {
    const [row] = rowsOf<{
      pending: string | number;
      failing: string | number | null;
      oldest: string | number | null;
    }>(
      await this.#db.raw(
        `SELECT count(*) AS pending,
           sum(CASE WHEN attempts > 0 THEN 1 ELSE 0 END) AS failing,
           min(created_at) AS oldest
         FROM ${TABLE}`,
      ),
    );
    return {
      pending: Number(row.pending),
      failing: Number(row.failing ?? 0),
      oldestCreatedAt:
        row.oldest === null || row.oldest === undefined
          ? undefined
          : Number(row.oldest),
    };
  }
}
