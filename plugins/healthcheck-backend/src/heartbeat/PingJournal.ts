import type { LoggerService } from '@backstage/backend-plugin-api';
import { stringifyError } from '@backstage/errors';
import { answerWithin } from '../database/answerWithin';
import { lastFlush } from '../outage/lastFlush';
import { OutageJournal } from '../outage/OutageJournal';
import { RetryTimer } from '../outage/RetryTimer';
import type { JournalMetrics } from '../outage/journalMetrics';
import type {
  DatabaseHeartbeatStore,
  PingKind,
} from './DatabaseHeartbeatStore';

/**
 * A ping the database could not take when it came. `scheduledAt` is when
 * it was received (the journal keys its entries by slice and time), and is
 * the time it is written with.
 * @internal
 */
export interface JournaledPing {
  sliceId: string;
  checkId: string;
  scheduledAt: number;
  kind: PingKind;
  /** Its token, as a hash: checked again when written (it may be replaced). */
  tokenHash: string;
  message?: string;
}

/** Between attempts to write the journal while the database is away. */
const DEFAULT_RETRY_MS = 1_000;

/** Pings a write. */
const BATCH_SIZE = 100;

/** A database call of a write that has no answer by then fails it (retried). */
const WRITE_DEADLINE_MS = 5_000;

/**
 * Pings taken while the database was away, in memory, as the outage journal
 * keeps runs: at most `maxEntries` (past it the oldest go, counted), written
 * in the order they came, each with the time it was received, once the
 * database answers (retried every second). A ping whose token was replaced
 * meanwhile is dropped. Once written, `onWritten` hears of them, to record
 * their slices' runs.
 * @internal
 */
export class PingJournal {
  readonly #journal: OutageJournal<JournaledPing>;
  readonly #store: Pick<
    DatabaseHeartbeatStore,
    'findByTokenHash' | 'recordPing'
  >;
  readonly #logger: LoggerService;
  readonly #retry: RetryTimer;
  readonly #onDatabaseAnswered: () => void;
  #onWritten: (pings: JournaledPing[]) => void = () => {};

  constructor(options: {
    store: Pick<DatabaseHeartbeatStore, 'findByTokenHash' | 'recordPing'>;
    logger: LoggerService;
    /** `healthcheck.outage.maxJournaledPings`. */
    maxEntries: number;
    metrics?: JournalMetrics;
    /** Told when a write of the journal succeeded. */
    onDatabaseAnswered?: () => void;
    retryMs?: number;
  }) {
    this.#journal = new OutageJournal<JournaledPing>({
      maxEntries: options.maxEntries,
      metrics: options.metrics,
    });
    this.#store = options.store;
    this.#logger = options.logger;
    this.#retry = new RetryTimer(
      options.retryMs ?? DEFAULT_RETRY_MS,
      () => void this.flush(),
    );
    this.#onDatabaseAnswered = options.onDatabaseAnswered ?? (() => {});
  }

  /** Pings waiting for the database. */
  get size(): number {
    return this.#journal.size;
  }

  /** Calls `listener` with the pings of each write that succeeded. */
  onWritten(listener: (pings: JournaledPing[]) => void): void {
    this.#onWritten = listener;
  }

  /** Keeps a ping until the database takes it. */
  keep(ping: JournaledPing): void {
    this.#journal.add(ping);
    this.#retry.arm();
  }

  /** Writes what the journal holds; never rejects, retries on failure. */
  async flush(): Promise<void> {
    if (this.#journal.size === 0) {
      return;
    }
    const flushed = await this.#journal.flush(
      async batch => {
        const written: JournaledPing[] = [];
        for (const ping of batch) {
          const found = await answerWithin(
            this.#store.findByTokenHash(ping.tokenHash),
            WRITE_DEADLINE_MS,
            'The database did not answer the ping URL lookup',
          );
          if (found?.sliceId !== ping.sliceId) {
            this.#logger.info(
              `Dropped a ping of ${ping.sliceId} taken while the database was away: its ping URL was replaced since`,
            );
            continue;
          }
          await answerWithin(
            this.#store.recordPing(
              ping.sliceId,
              ping.kind,
              ping.scheduledAt,
              ping.message,
            ),
            WRITE_DEADLINE_MS,
            'The database did not answer the write of a ping',
          );
          written.push(ping);
        }
        this.#onDatabaseAnswered();
        this.#onWritten(written);
      },
      { batchSize: BATCH_SIZE },
    );
    if (flushed.written > 0) {
      this.#logger.info(
        `Wrote ${flushed.written} ping(s) taken while the database was away, each at the time it came`,
      );
    }
    if (flushed.error !== undefined) {
      this.#logger.debug(
        `Could not write ${
          flushed.remaining
        } journaled ping(s) yet: ${stringifyError(flushed.error)}`,
      );
      this.#retry.arm();
    } else if (flushed.remaining > 0) {
      this.#retry.arm();
    }
  }

  /** Stops retrying, after one last bounded attempt to write the journal. */
  async stop(): Promise<void> {
    this.#retry.stop();
    await lastFlush({
      journal: this.#journal,
      flush: () => this.flush(),
      logger: this.#logger,
      what: 'ping(s)',
    });
  }
}
