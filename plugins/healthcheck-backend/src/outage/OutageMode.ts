import type { LoggerService } from '@backstage/backend-plugin-api';
import { stringifyError } from '@backstage/errors';
import type { RederiveHealth } from '../sweep';
import { lastFlush } from './lastFlush';
import { RetryTimer } from './RetryTimer';
import type { OutageJournal } from './OutageJournal';
import type { ClaimStore, RunRecord, TickKey } from '../model';

/**
 * A run as the journal keeps it: the run row's fields and what its
 * follow-up needs (the slice's state, whether its status changed); not the
 * probe's details, which only the live path logs.
 * @internal
 */
export type JournaledRun = Omit<RunRecord, 'probe' | 'queueWaitMs'>;

/** Between attempts to write the journal while the database is away. */
const DEFAULT_RETRY_MS = 1_000;

/**
 * Least time between two writes of results while the database answers.
 * Runs finish one by one; without it a steady few hundred a second make
 * a write (and its follow-up writes) of a few runs each, which costs more
 * CPU, here and in the database, than the runs themselves. Results land
 * at most this much later: a tenth of a second, against the seconds that
 * a status takes to change.
 */
const DEFAULT_WRITE_SPACING_MS = 100;

/** Runs per write statement when the journal is written back. */
const DEFAULT_BATCH_SIZE = 1_000;

/**
 * Unclaimed ticks remembered until their result comes in; entries of runs
 * that never report (a stale tick) go first past this.
 */
const MAX_UNCLAIMED_REMEMBERED = 100_000;

/** Going away is logged at most this often. */
const AWAY_LOG_EVERY_MS = 60_000;

/** A write that fails while claims succeed is logged at most this often. */
const FAILURE_LOG_EVERY_MS = 30_000;

/**
 * The way run results reach the database, and what keeps probing when it
 * cannot be reached.
 *
 * Every finished run is journaled ({@link OutageJournal}) and written
 * behind the probe, so a slow database never holds a slice's next tick
 * back: in batches, in the order the runs finished, at most one run of a
 * slice a batch, so that the transitions a batch makes are checked on the
 * states as they were then. A run's row is inserted, or its claim filled in; a row
 * that has a result keeps it, so a tick another instance also ran keeps
 * one result.
 *
 * When a claim fails or has no answer within a second, or a write fails,
 * the database is away: the claim stage hands over the owned ticks it
 * could not claim, and they run unclaimed on the last membership and
 * slices; the journal holds their results (up to
 * its bound) and is retried every second and whenever a claim succeeds.
 * Once it is written, the environments and rollups of the systems
 * concerned are re-derived from durable state.
 *
 * The guarantee: exactly once per tick while the database is up; during an
 * outage, at least once per tick and at most once per instance.
 * @internal
 */
export class OutageMode {
  readonly #instanceId: string;
  readonly #store: Pick<ClaimStore, 'writeRuns'>;
  readonly #journal: OutageJournal<JournaledRun>;
  readonly #afterWrite?: (runs: JournaledRun[]) => Promise<void>;
  readonly #rederive?: RederiveHealth;
  #onDatabaseBack?: () => void;
  readonly #logger: LoggerService;
  readonly #now: () => number;
  readonly #batchSize: number;
  readonly #writeSpacingMs: number;
  /** When the last write of results started. */
  #lastWriteAt = -Infinity;
  /** Set while results wait for the write spacing to pass. */
  #spacedWrite: NodeJS.Timeout | undefined;
  /** Ticks running unclaimed, by key, until their result comes in. */
  readonly #unclaimed = new Set<string>();
  /** Systems with runs journaled since the journal was last empty. */
  readonly #systems = new Set<string>();
  /** When this instance last found the database away; unset while it answers. */
  #awaySince: number | undefined;
  readonly #retry: RetryTimer;
  /** A claim succeeded since the last write of the journal failed. */
  #answeredSinceFailure = false;
  /** When going away was last logged. */
  #loggedAwayAt = -Infinity;
  /** When a failed write was last logged while claims succeed. */
  #loggedFailureAt = -Infinity;
  #stopped = false;

  constructor(deps: {
    instanceId: string;
    store: Pick<ClaimStore, 'writeRuns'>;
    journal: OutageJournal<JournaledRun>;
    /** What follows the write of runs: slice states, transitions. */
    afterWrite?: (runs: JournaledRun[]) => Promise<void>;
    /** Re-derives environments and rollups once the journal is written. */
    rederive?: RederiveHealth;
    logger: LoggerService;
    clock?: { now(): number };
    retryMs?: number;
    batchSize?: number;
    /** Least time between two writes of results; default 100 ms. */
    writeSpacingMs?: number;
  }) {
    this.#instanceId = deps.instanceId;
    this.#store = deps.store;
    this.#journal = deps.journal;
    this.#afterWrite = deps.afterWrite;
    this.#rederive = deps.rederive;
    this.#logger = deps.logger;
    const clock = deps.clock ?? Date;
    this.#now = () => clock.now();
    this.#retry = new RetryTimer(
      deps.retryMs ?? DEFAULT_RETRY_MS,
      () => void this.flush(),
    );
    this.#batchSize = deps.batchSize ?? DEFAULT_BATCH_SIZE;
    this.#writeSpacingMs = deps.writeSpacingMs ?? DEFAULT_WRITE_SPACING_MS;
  }

  /** Calls `listener` whenever the database answers again after an outage. */
  onDatabaseBack(listener: () => void): void {
    this.#onDatabaseBack = listener;
  }

  /** Whether this instance has found the database away and not back yet. */
  get isAway(): boolean {
    return this.#awaySince !== undefined;
  }

  /** Results waiting for the database. */
  get journaled(): number {
    return this.#journal.size;
  }

  /**
   * The claim of these owned ticks failed: they run unclaimed, and their
   * results are journaled.
   */
  runUnclaimed<T extends TickKey>(ticks: T[], error: unknown): T[] {
    this.#wentAway(error);
    for (const tick of ticks) {
      this.#unclaimed.add(keyOf(tick));
      if (this.#unclaimed.size > MAX_UNCLAIMED_REMEMBERED) {
        this.#unclaimed.delete(this.#unclaimed.values().next().value!);
      }
    }
    return ticks;
  }

  /**
   * Of ticks given back unprobed, those that were claimed (their claims
   * are to be given back); unclaimed ones are forgotten here.
   */
  claimedOf<T extends TickKey>(ticks: ReadonlyArray<T>): T[] {
    return ticks.filter(tick => !this.#unclaimed.delete(keyOf(tick)));
  }

  /** A claim statement succeeded: the database answers. */
  databaseAnswered(): void {
    this.#answeredSinceFailure = true;
    if (this.isAway) {
      void this.flush();
    } else if (this.#journal.size > 0) {
      this.#writeSoon();
    }
  }

  /**
   * Takes a finished run for the database: it is journaled and written
   * behind the probe, at once while the database answers, else when it
   * answers again. Results land in the order they finished.
   */
  record(run: RunRecord): void {
    this.#unclaimed.delete(keyOf(run));
    const { probe: _probe, queueWaitMs: _wait, ...journaled } = run;
    this.#journal.add(journaled);
    this.#systems.add(run.systemRef);
    if (this.#awaySince === undefined) {
      this.#writeSoon();
    } else {
      this.#retry.arm();
    }
  }

  /**
   * Writes the journal back. The first pass that writes what the outage
   * journaled ends the outage: the database is back, and the systems
   * concerned are re-derived, even while new runs keep coming (those are
   * written by the passes after). Never rejects; a failed write leaves the
   * rest for the next attempt.
   */
  async flush(): Promise<void> {
    // A run journaled during a pass waits for the next one.
    for (;;) {
      if ((await this.#writePass()) === 'done') {
        return;
      }
    }
  }

  /**
   * One pass over the journal; `more` when runs came in meanwhile. The
   * first pass that writes what an outage journaled ends it.
   */
  async #writePass(): Promise<'done' | 'more'> {
    this.#lastWriteAt = this.#now();
    const flushed = await this.#journal.flush(
      async batch => {
        await this.#store.writeRuns(this.#instanceId, batch, this.#now());
        await this.#afterWrite?.(batch);
      },
      // A run of each slice a batch: the states it writes, and the
      // transitions checked on them, are of one moment, in order.
      { batchSize: this.#batchSize, groupOf: run => run.sliceId },
    );
    if (flushed.error !== undefined) {
      this.#writeFailed(flushed.error);
      return 'done';
    }
    this.#cameBack(flushed.written);
    return flushed.remaining > 0 && flushed.written > 0 ? 'more' : 'done';
  }

  /**
   * Writes the results behind the probes: at once after a quiet spell,
   * else once the spacing since the last write has passed, a pass at a
   * time while runs keep coming.
   */
  #writeSoon(): void {
    if (this.#spacedWrite !== undefined || this.#stopped) {
      return;
    }
    const spacedPass = async () => {
      if ((await this.#writePass()) === 'more') {
        this.#writeSoon();
      }
    };
    const wait = this.#lastWriteAt + this.#writeSpacingMs - this.#now();
    if (wait <= 0) {
      void spacedPass();
      return;
    }
    this.#spacedWrite = setTimeout(() => {
      this.#spacedWrite = undefined;
      void spacedPass();
    }, wait);
  }

  /** After a pass wrote what was journaled: the outage, if any, is over. */
  #cameBack(written: number): void {
    const awaySince = this.#awaySince;
    this.#awaySince = undefined;
    const systemRefs = [...this.#systems];
    this.#systems.clear();
    if (awaySince === undefined) {
      return;
    }
    this.#logger.info(
      `The database answers again after ${Math.round(
        (this.#now() - awaySince) / 1000,
      )} s; wrote ${written} run(s) probed meanwhile`,
    );
    this.#onDatabaseBack?.();
    // In the background: re-deriving a thousand systems takes seconds on a
    // loaded database, and the results that keep coming meanwhile must not
    // wait for it (they did, and the journal filled). The sweep runs one
    // re-derive at a time and joins the scopes asked for meanwhile.
    if (systemRefs.length > 0 && this.#rederive) {
      void this.#rederive({ systemRefs }).catch(error =>
        this.#logger.warn(
          `Could not re-derive the health of ${
            systemRefs.length
          } system(s) after writing journaled runs; the sweep will: ${stringifyError(
            error,
          )}`,
        ),
      );
    }
  }

  /** Stops retrying, after one last bounded attempt to write the journal. */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#retry.stop();
    clearTimeout(this.#spacedWrite);
    this.#spacedWrite = undefined;
    await lastFlush({
      journal: this.#journal,
      flush: () => this.flush(),
      logger: this.#logger,
      what: 'run(s)',
    });
  }

  #wentAway(error: unknown): void {
    if (this.#awaySince !== undefined) {
      return;
    }
    const now = this.#now();
    this.#awaySince = now;
    // A database that is slow rather than gone comes and goes: once a minute.
    if (now - this.#loggedAwayAt >= AWAY_LOG_EVERY_MS) {
      this.#loggedAwayAt = now;
      this.#logger.warn(
        `The database cannot be reached in time; probing the slices this instance owned without claims, keeping results in memory until it answers: ${stringifyError(
          error,
        )}`,
      );
    }
  }

  #writeFailed(error: unknown): void {
    this.#wentAway(error);
    // Claims work, so the database answers, yet the write fails: say so,
    // now and then, for that is no outage.
    const now = this.#now();
    if (
      this.#answeredSinceFailure &&
      now - this.#loggedFailureAt >= FAILURE_LOG_EVERY_MS
    ) {
      this.#loggedFailureAt = now;
      this.#logger.warn(
        `Claims succeed, yet writing ${
          this.#journal.size
        } journaled run(s) fails; retrying: ${stringifyError(error)}`,
      );
    }
    this.#answeredSinceFailure = false;
    this.#retry.arm();
  }
}

function keyOf(tick: TickKey): string {
  return `${tick.sliceId}@${tick.scheduledAt}`;
}
