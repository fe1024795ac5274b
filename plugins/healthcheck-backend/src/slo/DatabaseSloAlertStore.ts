import { Knex } from 'knex';
import type { BurnRateSeverity } from './burnRateAlerts';

const TABLE = 'healthcheck_slo_alerts';

/** Refs per `IN (...)` list, well below both databases' parameter limits. */
const REF_CHUNK_SIZE = 500;

/**
 * Which burn-rate conditions are firing, per objective: what
 * {@link decideBurnRateAlerts} compares with, kept in the database so the
 * next evaluation, on any instance, notifies only changes.
 *
 * @internal
 */
export class DatabaseSloAlertStore {
  readonly #db: Knex;

  constructor(db: Knex) {
    this.#db = db;
  }

  /** The firing severities of each objective that has any. */
  async readFiring(): Promise<Map<string, Set<BurnRateSeverity>>> {
    const rows: Array<{ objective_ref: string; severity: string }> =
      await this.#db(TABLE).select('objective_ref', 'severity');
    const firing = new Map<string, Set<BurnRateSeverity>>();
    for (const row of rows) {
      const set = firing.get(row.objective_ref) ?? new Set();
      set.add(row.severity as BurnRateSeverity);
      firing.set(row.objective_ref, set);
    }
    return firing;
  }

  /** Records that a condition started (`firing`) or stopped (`resolved`). */
  async record(
    objectiveRef: string,
    severity: BurnRateSeverity,
    kind: 'firing' | 'resolved',
    at: number,
    tx?: Knex.Transaction,
  ): Promise<void> {
    const db = tx ?? this.#db;
    if (kind === 'firing') {
      await db(TABLE)
        .insert({ objective_ref: objectiveRef, severity, since: at })
        .onConflict(['objective_ref', 'severity'])
        .ignore();
    } else {
      await db(TABLE).where({ objective_ref: objectiveRef, severity }).delete();
    }
  }

  /**
   * Forgets the conditions of objectives not in `keep` (deleted from the
   * catalog), so the table holds no more than the objectives that exist.
   * @returns how many rows were deleted
   */
  async prune(keep: ReadonlySet<string>): Promise<number> {
    const stored: Array<{ objective_ref: string }> = await this.#db(
      TABLE,
    ).distinct('objective_ref');
    const gone = stored
      .map(row => row.objective_ref)
      .filter(ref => !keep.has(ref));
    let deleted = 0;
    for (let at = 0; at < gone.length; at += REF_CHUNK_SIZE) {
      deleted += await this.#db(TABLE)
        .whereIn('objective_ref', gone.slice(at, at + REF_CHUNK_SIZE))
        .delete();
    }
    return deleted;
  }
}
