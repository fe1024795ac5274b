import type { Knex } from 'knex';
import type { DeafSpan } from './heartbeatDeadline';

const SPANS_TABLE = 'healthcheck_ping_deaf_spans';
const LISTENERS_TABLE = 'healthcheck_ping_listeners';

/**
 * Why Vigil could not hear pings: an instance could not reach its
 * database, or no instance was running.
 * @internal
 */
export type DeafCause = 'database' | 'down';

/** @internal */
export interface RecordedDeafSpan extends DeafSpan {
  cause: DeafCause;
}

/**
 * Spans kept at most: the newest. A deadline is moved by spans after the
 * last ping, and a thousand outages since a job's last ping is a deployment
 * with other problems.
 */
export const MAX_DEAF_SPANS = 1_000;

/**
 * Spans are kept this long: the longest a heartbeat waits for a ping (a
 * yearly schedule's, searched 400 days ahead).
 */
const DEAF_SPAN_RETENTION_MS = 400 * 24 * 3_600_000;

/**
 * An instance's row is deleted this long after it last heard, once another
 * instance has started since (which read it first).
 */
const LISTENER_ROW_RETENTION_MS = 3_600_000;

/**
 * When Vigil could not hear pings, in the database every instance reads, and
 * when each instance last could. Bounded: the newest {@link MAX_DEAF_SPANS}
 * spans within 400 days, and a row per instance that heard within the hour.
 * @internal
 */
export class DatabaseDeafSpanStore {
  readonly #db: Knex;

  constructor(db: Knex) {
    this.#db = db;
  }

  /** Keeps spans, then drops those past the bounds. */
  async add(spans: readonly RecordedDeafSpan[], now: number): Promise<void> {
    if (spans.length === 0) {
      return;
    }
    const db = this.#db;
    await db(SPANS_TABLE).insert(
      spans.map(span => ({
        from_at: Math.floor(span.from),
        to_at: Math.ceil(span.to),
        cause: span.cause,
      })),
    );
    await db(SPANS_TABLE)
      .where('to_at', '<', now - DEAF_SPAN_RETENTION_MS)
      .delete();
    const oldestKept: { id: string | number } | undefined = await db(
      SPANS_TABLE,
    )
      .orderBy('id', 'desc')
      .offset(MAX_DEAF_SPANS - 1)
      .first('id');
    if (oldestKept) {
      await db(SPANS_TABLE).where('id', '<', oldestKept.id).delete();
    }
  }

  /** The spans that end after `since`, earliest first. */
  async readSince(since: number): Promise<RecordedDeafSpan[]> {
    const rows: Array<{
      from_at: string | number;
      to_at: string | number;
      cause: DeafCause;
    }> = await this.#db(SPANS_TABLE)
      .where('to_at', '>', since)
      .orderBy('from_at')
      .limit(MAX_DEAF_SPANS)
      .select('from_at', 'to_at', 'cause');
    return rows.map(row => ({
      from: Number(row.from_at),
      to: Number(row.to_at),
      cause: row.cause,
    }));
  }

  /** The last time any instance said it could hear; none before the first. */
  async lastHeard(): Promise<number | undefined> {
    const row: { heard?: string | number | null } | undefined = await this.#db(
      LISTENERS_TABLE,
    )
      .max({ heard: 'heard_until' })
      .first();
    return row?.heard === null || row?.heard === undefined
      ? undefined
      : Number(row.heard);
  }

  /**
   * Says this instance could hear until `at`, and forgets instances that
   * have been silent for an hour.
   */
  async markHeard(instanceId: string, at: number): Promise<void> {
    const db = this.#db;
    await db(LISTENERS_TABLE)
      .insert({ instance_id: instanceId, heard_until: at })
      .onConflict('instance_id')
      .merge(['heard_until']);
    await db(LISTENERS_TABLE)
      .where('heard_until', '<', at - LISTENER_ROW_RETENTION_MS)
      .delete();
  }
}
