import { DatabaseService } from '@backstage/backend-plugin-api';
import { migratedClient } from './migrations';
import { Knex } from 'knex';
import { insertPauseMarkers } from '../claims/DatabaseClaimStore';
import type { DesiredSlice } from '../model';
import { Engine, engineOf, rowsOf } from './engine';
import type {
  CatalogPollRecord,
  SliceChanges,
  SliceStore,
  SliceWrite,
  StoredSliceHeader,
} from '../model';

const SLICES_TABLE = 'healthcheck_slices';
const STATE_TABLE = 'healthcheck_reconcile_state';
const FINGERPRINTS_TABLE = 'healthcheck_catalog_fingerprints';
/** The counters' row of the catalog poll: polls run, the last one's start and time. */
const CATALOG_POLL_ROW = 'catalog-poll';

/**
 * Rows per write statement. They travel as one JSON parameter, so no
 * parameter limit applies; the cap keeps one statement's memory bounded.
 */
const WRITE_CHUNK_SIZE = 2_000;

/** Ids per `IN (...)` list: below SQLite's and PostgreSQL's parameter limits. */
const ID_CHUNK_SIZE = 900;

/**
 * Rows per read statement. Whole-table reads go a page at a time, so no
 * statement's result (and no driver buffer) grows with the slice count.
 */
const READ_PAGE_SIZE = 5_000;

/** Rows one write changes past which PostgreSQL's statistics are renewed. */
const ANALYZE_AFTER_ROWS = 10_000;

/** The configHash of a paused slice: it has no run definition. */
const PAUSED_HASH = 'paused';

type SliceRow = {
  id: string;
  check_id: string;
  system_ref: string;
  paused: boolean | number;
  removed: boolean | number;
  interval_ms: number;
  timeout_ms: number;
  config_hash: string;
  definition: string | null;
  components: string | null;
  revision: number | string;
};

/**
 * {@link SliceStore} on the plugin's database. Every write takes the next
 * revision from one counter row inside its transaction; on PostgreSQL that
 * row lock orders concurrent writers, so revisions commit in order and a
 * reader that asks for "changes after r" misses nothing.
 *
 * @internal
 */
export class DatabaseSliceStore implements SliceStore {
  readonly #db: Knex;
  readonly #engine: Engine;
  readonly #now: () => number;
  readonly #pageSize: number;

  static async create(options: {
    database: DatabaseService;
    now?: () => number;
    /** Rows per read statement; small ones let tests cross many pages. */
    pageSize?: number;
  }): Promise<DatabaseSliceStore> {
    const client = await migratedClient(options.database);
    return new DatabaseSliceStore(client, options.now, options.pageSize);
  }

  constructor(
    db: Knex,
    now: () => number = Date.now,
    pageSize: number = READ_PAGE_SIZE,
  ) {
    if (!Number.isInteger(pageSize) || pageSize < 1) {
      throw new Error(
        `DatabaseSliceStore: pageSize must be a whole number >= 1, not ${pageSize}`,
      );
    }
    this.#db = db;
    this.#engine = engineOf(db);
    this.#now = now;
    this.#pageSize = pageSize;
  }

  /** The client, for the reconcile lock's dedicated connection. */
  get knex(): Knex {
    return this.#db;
  }

  async listSliceHeaders(
    options: { systemRefs?: readonly string[] } = {},
  ): Promise<StoredSliceHeader[]> {
    const columns = [
      'id',
      'system_ref',
      'interval_ms',
      'timeout_ms',
      'config_hash',
      'components',
    ];
    const rows: SliceRow[] = [];
    if (options.systemRefs) {
      const refs = [...new Set(options.systemRefs.map(r => r.toLowerCase()))];
      for (let at = 0; at < refs.length; at += ID_CHUNK_SIZE) {
        const chunk = await this.#db<SliceRow>(SLICES_TABLE)
          .whereIn('system_ref', refs.slice(at, at + ID_CHUNK_SIZE))
          .andWhere('removed', false)
          .select<SliceRow[]>(columns);
        appendAll(rows, chunk);
      }
    } else {
      for await (const page of this.#pages(columns, q =>
        q.where('removed', false),
      )) {
        appendAll(rows, page);
      }
    }
    return rows.map(row => ({
      id: row.id,
      systemRef: row.system_ref,
      intervalMs: Number(row.interval_ms),
      timeoutMs: Number(row.timeout_ms),
      configHash: row.config_hash,
      ...componentsOfRow(row.components),
    }));
  }

  async applyChanges(changes: {
    write: readonly SliceWrite[];
    remove: readonly string[];
    pausedNow?: readonly string[];
  }): Promise<{ revision: number }> {
    if (changes.write.length === 0 && changes.remove.length === 0) {
      return { revision: await this.#currentRevision(this.#db) };
    }
    const now = Math.round(this.#now());
    const written = await this.#db.transaction(async tx => {
      await tx(STATE_TABLE)
        .where('name', 'slices')
        .update({ revision: tx.raw('revision + 1'), updated_at: now });
      const revision = await this.#currentRevision(tx);
      const rows = changes.write.map(write => toSliceRow(write, revision, now));
      for (let at = 0; at < rows.length; at += WRITE_CHUNK_SIZE) {
        await this.#upsertRows(tx, rows.slice(at, at + WRITE_CHUNK_SIZE));
      }
      for (let at = 0; at < changes.remove.length; at += ID_CHUNK_SIZE) {
        await tx(SLICES_TABLE)
          .whereIn('id', changes.remove.slice(at, at + ID_CHUNK_SIZE))
          .update({
            removed: true,
            paused: false,
            definition: null,
            revision,
            updated_at: now,
          });
      }
      await insertPauseMarkers(
        tx,
        (changes.pausedNow ?? []).map(sliceId => ({ sliceId, at: now })),
      );
      return { revision };
    });
    if (
      this.#engine === 'postgres' &&
      changes.write.length + changes.remove.length >= ANALYZE_AFTER_ROWS
    ) {
      // Until autovacuum comes round, the planner would read the table as
      // it was: the loaders' reads of a few changed rows, on every instance
      // each minute, and scoped reads scanned all 200,000 rows after a full
      // pass from empty. A failure leaves it to autovacuum.
      await this.#db.raw(`ANALYZE ${SLICES_TABLE}`).catch(() => {});
    }
    return written;
  }

  async readRevision(): Promise<number> {
    return await this.#currentRevision(this.#db);
  }

  async readRunning(): Promise<{ revision: number; slices: DesiredSlice[] }> {
    // The revision first, and it alone: SQLite's pages are separate
    // statements, so a row of a later page may carry a newer revision than
    // a change an earlier page missed. Rows committed after it only make the
    // read newer, and the next read of changes re-reads them: harmless.
    const revision = await this.#currentRevision(this.#db);
    const slices: DesiredSlice[] = [];
    for await (const page of this.#pages(['id', 'definition'], q =>
      q.where({ removed: false, paused: false }),
    )) {
      for (const row of page) {
        slices.push(JSON.parse(row.definition!) as DesiredSlice);
      }
    }
    return { revision, slices };
  }

  /** The running (not paused, not removed) slices of one check. */
  async readRunningOfCheck(checkId: string): Promise<DesiredSlice[]> {
    const rows = await this.#db<SliceRow>(SLICES_TABLE)
      .where({ check_id: checkId, removed: false, paused: false })
      .orderBy('id')
      .select('definition');
    return rows.map(row => JSON.parse(row.definition!) as DesiredSlice);
  }

  async readChangesSince(since: number): Promise<SliceChanges> {
    // As in readRunning: the revision read first is the one answered.
    const revision = await this.#currentRevision(this.#db);
    const changes: SliceChanges = { revision, upserted: [], stopped: [] };
    if (revision <= since) {
      return changes;
    }
    for await (const page of this.#pages(
      ['id', 'paused', 'removed', 'definition'],
      q => q.where('revision', '>', since),
      'any order',
    )) {
      for (const row of page) {
        if (row.removed || row.paused || row.definition === null) {
          changes.stopped.push(row.id);
        } else {
          changes.upserted.push(JSON.parse(row.definition) as DesiredSlice);
        }
      }
    }
    return changes;
  }

  async pruneRemoved(before: number): Promise<number> {
    return await this.#db(SLICES_TABLE)
      .where('removed', true)
      .andWhere('updated_at', '<', Math.round(before))
      .delete();
  }

  async readFingerprints(): Promise<Map<string, string>> {
    const rows = await this.#db<{ system_ref: string; fingerprint: string }>(
      FINGERPRINTS_TABLE,
    ).select('system_ref', 'fingerprint');
    return new Map(rows.map(row => [row.system_ref, row.fingerprint]));
  }

  async readCatalogPoll(): Promise<CatalogPollRecord | undefined> {
    const row = await this.#db(STATE_TABLE)
      .where('name', CATALOG_POLL_ROW)
      .first<
        { updated_at: number | string; took_ms: number | null } | undefined
      >('updated_at', 'took_ms');
    if (!row || row.took_ms === null) {
      return undefined;
    }
    return { startedAt: Number(row.updated_at), tookMs: Number(row.took_ms) };
  }

  async writeCatalogPoll(record: CatalogPollRecord): Promise<void> {
    await this.#db(STATE_TABLE)
      .insert({
        name: CATALOG_POLL_ROW,
        revision: 1,
        updated_at: Math.round(record.startedAt),
        took_ms: Math.max(0, Math.round(record.tookMs)),
      })
      .onConflict('name')
      .merge({
        revision: this.#db.raw('?? + 1', [`${STATE_TABLE}.revision`]),
        updated_at: Math.round(record.startedAt),
        took_ms: Math.max(0, Math.round(record.tookMs)),
      });
  }

  async writeFingerprints(
    fingerprints: ReadonlyMap<string, string | undefined>,
  ): Promise<void> {
    const upserts: Array<{ system_ref: string; fingerprint: string }> = [];
    const deletes: string[] = [];
    for (const [systemRef, fingerprint] of fingerprints) {
      if (fingerprint === undefined) {
        deletes.push(systemRef);
      } else {
        upserts.push({ system_ref: systemRef, fingerprint });
      }
    }
    await this.#db.transaction(async tx => {
      // Two columns a row: 450 rows stay below SQLite's parameter limit.
      for (let at = 0; at < upserts.length; at += ID_CHUNK_SIZE / 2) {
        await tx(FINGERPRINTS_TABLE)
          .insert(upserts.slice(at, at + ID_CHUNK_SIZE / 2))
          .onConflict('system_ref')
          .merge(['fingerprint']);
      }
      for (let at = 0; at < deletes.length; at += ID_CHUNK_SIZE) {
        await tx(FINGERPRINTS_TABLE)
          .whereIn('system_ref', deletes.slice(at, at + ID_CHUNK_SIZE))
          .delete();
      }
    });
  }

  /**
   * The rows `filter` keeps, `pageSize` at a time. On PostgreSQL through a
   * cursor: one statement, one snapshot, and a plan that does not depend on
   * the table's statistics (paging by key sorted the whole table for every
   * page while they were stale, right after a big write). On SQLite by key
   * (the primary key's order), or, in `any order`, in one statement: a
   * range on another index plus a key would sort the rest of the table for
   * each page.
   */
  async *#pages(
    columns: string[],
    filter: (query: Knex.QueryBuilder) => Knex.QueryBuilder,
    order: 'by id' | 'any order' = 'by id',
  ): AsyncGenerator<SliceRow[]> {
    if (this.#engine === 'postgres') {
      if (order === 'any order') {
        // Most such reads (a loader's, of what changed) find a few rows:
        // one statement, not a cursor's four round trips, when they fit.
        const rows: SliceRow[] = await filter(this.#db(SLICES_TABLE))
          .select(columns)
          .limit(this.#pageSize + 1);
        if (rows.length <= this.#pageSize) {
          yield rows;
          return;
        }
      }
      yield* this.#cursorPages(columns, filter);
      return;
    }
    if (order === 'any order') {
      yield await filter(this.#db(SLICES_TABLE)).select(columns);
      return;
    }
    let afterId: string | undefined;
    for (;;) {
      const query = filter(this.#db(SLICES_TABLE))
        .orderBy('id')
        .limit(this.#pageSize)
        .select(columns);
      if (afterId !== undefined) {
        query.andWhere('id', '>', afterId);
      }
      const page: SliceRow[] = await query;
      yield page;
      if (page.length < this.#pageSize) {
        return;
      }
      afterId = page[page.length - 1].id;
    }
  }

  async *#cursorPages(
    columns: string[],
    filter: (query: Knex.QueryBuilder) => Knex.QueryBuilder,
  ): AsyncGenerator<SliceRow[]> {
    const tx = await this.#db.transaction();
    try {
      const { sql, bindings } = filter(tx(SLICES_TABLE))
        .select(columns)
        .toSQL();
      await tx.raw(`DECLARE slice_pages NO SCROLL CURSOR FOR ${sql}`, [
        ...bindings,
      ]);
      for (;;) {
        const page = rowsOf(
          await tx.raw(`FETCH ${this.#pageSize} FROM slice_pages`),
        ) as SliceRow[];
        yield page;
        if (page.length < this.#pageSize) {
          return;
        }
      }
    } finally {
      // Read only: nothing to keep. Also ends a read its caller gave up.
      await tx.rollback();
    }
  }

  async #currentRevision(db: Knex): Promise<number> {
    const row = await db(STATE_TABLE)
      .where('name', 'slices')
      .first<{ revision: number | string } | undefined>('revision');
    return Number(row?.revision ?? 0);
  }

  /** One statement per chunk: the rows travel as one JSON array. */
  async #upsertRows(
    tx: Knex.Transaction,
    rows: ReturnType<typeof toSliceRow>[],
  ) {
    const columns = Object.keys(rows[0]);
    const source =
      this.#engine === 'postgres'
        ? `json_to_recordset(?::json) AS s(
             id text, check_id text, system_ref text, environment text,
             paused boolean, removed boolean, interval_ms integer,
             timeout_ms integer, config_hash text, definition text,
             components text, revision bigint, updated_at bigint)`
        : `(SELECT ${columns
            .map(c => `value ->> '$.${c}' AS ${c}`)
            .join(', ')} FROM json_each(?)) AS s`;
    const updates = columns
      .filter(c => c !== 'id')
      .map(c => `${c} = excluded.${c}`)
      .join(', ');
    // `WHERE true` settles an SQLite parsing ambiguity before ON CONFLICT.
    const result = await tx.raw(
      `INSERT INTO ${SLICES_TABLE} (${columns.join(', ')})
       SELECT ${columns.map(c => `s.${c}`).join(', ')} FROM ${source}
       WHERE true
       ON CONFLICT (id) DO UPDATE SET ${updates}`,
      [JSON.stringify(rows)],
    );
    return rowsOf(result).length;
  }
}

/**
 * Appends `items` to `target` one by one: spreading a result set into
 * `push(...)` passes each row as an argument, which overflows the stack
 * above about 120,000 rows.
 */
function appendAll<T>(target: T[], items: readonly T[]): void {
  for (const item of items) {
    target.push(item);
  }
}

/**
 * The row of a slice write.
 * @internal
 */
export function toSliceRow(write: SliceWrite, revision: number, now: number) {
  const { slice } = write;
  return {
    id: slice.id,
    check_id: slice.checkId,
    system_ref: slice.systemRef.toLowerCase(),
    environment: slice.environment,
    paused: write.paused,
    removed: false,
    interval_ms: write.paused ? 0 : write.slice.intervalMs,
    timeout_ms: write.paused ? 0 : write.slice.timeoutMs,
    config_hash: write.paused ? PAUSED_HASH : write.slice.configHash,
    definition: write.paused ? null : JSON.stringify(write.slice),
    components: slice.components?.length
      ? JSON.stringify(slice.components)
      : null,
    revision,
    updated_at: now,
  };
}

/**
 * The `components` of a slice from its column: absent when null or empty.
 * @internal
 */
export function componentsOfRow(column: string | null | undefined): {
  components?: string[];
} {
  if (!column) {
    return {};
  }
  const components = JSON.parse(column) as string[];
  return components.length > 0 ? { components } : {};
}

/**
 * The planner's view of a paused slice: it has no timing, and its hash
 * differs from any running version, so pausing and resuming are reschedules.
 * @internal
 */
export function pausedHeader(slice: {
  id: string;
  systemRef: string;
  components?: string[];
}): StoredSliceHeader {
  return {
    id: slice.id,
    systemRef: slice.systemRef,
    intervalMs: 0,
    timeoutMs: 0,
    configHash: PAUSED_HASH,
    ...(slice.components?.length ? { components: slice.components } : {}),
  };
}

/**
 * Whether a stored header is a paused slice's.
 * @internal
 */
export function isPausedHeader(header: { configHash?: string }): boolean {
  return header.configHash === PAUSED_HASH;
}
