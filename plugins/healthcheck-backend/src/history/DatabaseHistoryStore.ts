import { DatabaseService } from '@backstage/backend-plugin-api';
import { Knex } from 'knex';
import { migratedClient } from '../database/migrations';
import type {
  AggregationResult,
  HistoryHour,
  HistoryStore,
  ListRunsQuery,
  ResponseTimeSummary,
  RunPage,
  SliceUptimeQuery,
  SystemHistoryQuery,
  UptimeSummary,
} from '../model';
import { HistoryAggregator } from './HistoryAggregator';
import { HistoryDatabase } from './historyDatabase';
import { HistoryReader } from './HistoryReader';
import { RunLister } from './RunLister';

/**
 * {@link HistoryStore} on the plugin's database.
 *
 * Raw runs live in `healthcheck_runs` (written by the claim store) and are
 * read by its primary key (slice_id, scheduled_at) only, so history adds no
 * index and no cost to the write path. Hour aggregates live in
 * `healthcheck_run_hours`, read by (system_ref, environment, hour_start).
 * `healthcheck_history_state` remembers up to which hour aggregation got.
 *
 * The work is done by three parts on the same tables:
 * {@link HistoryAggregator} (aggregation and retention), {@link HistoryReader}
 * (up-time, response time, hours) and {@link RunLister} (raw runs, paged).
 *
 * @internal
 */
export class DatabaseHistoryStore implements HistoryStore {
  readonly #aggregator: HistoryAggregator;
  readonly #reader: HistoryReader;
  readonly #runs: RunLister;

  static async create(options: {
    database: DatabaseService;
    now?: () => number;
  }): Promise<DatabaseHistoryStore> {
    const client = await migratedClient(options.database);
    return new DatabaseHistoryStore(client, options.now);
  }

  constructor(
    db: Knex,
    now: () => number = Date.now,
    options: { statementTimeoutMs?: number } = {},
  ) {
    const history = new HistoryDatabase(db, now, options);
    this.#aggregator = new HistoryAggregator(history);
    this.#reader = new HistoryReader(history);
    this.#runs = new RunLister(history);
  }

  aggregateHours(
    untilHourStart: number,
    options?: { from?: number; signal?: AbortSignal },
  ): Promise<AggregationResult> {
    return this.#aggregator.aggregateHours(untilHourStart, options);
  }

  pruneRuns(before: number): Promise<number> {
    return this.#aggregator.pruneRuns(before);
  }

  pruneHours(before: number): Promise<number> {
    return this.#aggregator.pruneHours(before);
  }

  uptime(query: SystemHistoryQuery): Promise<UptimeSummary> {
    return this.#reader.uptime(query);
  }

  sliceUptimes(query: SliceUptimeQuery): Promise<Map<string, UptimeSummary[]>> {
    return this.#reader.sliceUptimes(query);
  }

  responseTime(query: SystemHistoryQuery): Promise<ResponseTimeSummary> {
    return this.#reader.responseTime(query);
  }

  summary(query: SystemHistoryQuery): Promise<{
    uptime: UptimeSummary;
    responseTime: ResponseTimeSummary;
  }> {
    return this.#reader.summary(query);
  }

  listHours(query: SystemHistoryQuery): Promise<HistoryHour[]> {
    return this.#reader.listHours(query);
  }

  listRuns(query: ListRunsQuery): Promise<RunPage> {
    return this.#runs.listRuns(query);
  }
}
