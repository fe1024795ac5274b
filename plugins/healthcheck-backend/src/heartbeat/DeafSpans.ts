import type { LoggerService } from '@backstage/backend-plugin-api';
import { stringifyError } from '@backstage/errors';
import { answerWithin } from '../database/answerWithin';
import type {
  DatabaseDeafSpanStore,
  RecordedDeafSpan,
} from './DatabaseDeafSpanStore';
import { MAX_DEAF_SPANS } from './DatabaseDeafSpanStore';
import { type DeafSpan, mergedSpans } from './heartbeatDeadline';

/** How often an instance says it can hear, and reads the others' spans. */
const DEFAULT_MARK_EVERY_MS = 5_000;

/** A mark that has no answer by then is given up (the next one tries again). */
const MARK_DEADLINE_MS = 5_000;

/**
 * Spans are read back from this far: beyond it a deadline is moved only by
 * the spans this instance saw itself. A monthly job's period, with its
 * longest grace.
 */
const READ_BACK_MS = 38 * 24 * 3_600_000;

/**
 * The time Vigil could not hear pings, as heartbeat deadlines are moved by
 * it: this instance's own (from the first database failure of a heartbeat
 * read or a ping's write until one succeeds again), and every instance's,
 * read back from the database every few seconds; at start, the time since
 * any instance last said it could hear, when that is longer than the
 * spacing of those marks (no instance was running).
 *
 * Nothing here ever fails a caller: a write that fails is retried with the
 * next mark, and a read that fails keeps the spans read before.
 * @internal
 */
export class DeafSpans {
  readonly #store: DatabaseDeafSpanStore;
  readonly #instanceId: string;
  readonly #logger: LoggerService;
  readonly #now: () => number;
  readonly #markEveryMs: number;
  /** When this instance's database last began to fail, while it does. */
  #deafSince: number | undefined;
  /** Spans this instance saw and has not written yet (bounded). */
  #unwritten: RecordedDeafSpan[] = [];
  /** Every instance's spans, as last read, and this one's since, merged. */
  #known: DeafSpan[] = [];
  /** Set until the span before this instance started has been looked for. */
  #startedAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #marking: Promise<void> | undefined;

  constructor(options: {
    store: DatabaseDeafSpanStore;
    instanceId: string;
    logger: LoggerService;
    now?: () => number;
    markEveryMs?: number;
  }) {
    this.#store = options.store;
    this.#instanceId = options.instanceId;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
    this.#markEveryMs = options.markEveryMs ?? DEFAULT_MARK_EVERY_MS;
  }

  /** A heartbeat read or a ping's write failed on the database. */
  deaf(at: number = this.#now()): void {
    this.#deafSince ??= at;
  }

  /** A heartbeat read or a ping's write succeeded: the database answers. */
  heard(at: number = this.#now()): void {
    if (this.#endSpan(at)) {
      void this.#mark();
    }
  }

  /** Ends this instance's span at `at`, if it has one open. */
  #endSpan(at: number): boolean {
    const since = this.#deafSince;
    if (since === undefined) {
      return false;
    }
    this.#deafSince = undefined;
    this.#keep({ from: since, to: at, cause: 'database' });
    this.#logger.info(
      `Heartbeat deadlines move by ${Math.round(
        (at - since) / 1000,
      )} s: the database could not keep or read pings from ${new Date(
        since,
      ).toISOString()}`,
    );
    return true;
  }

  /** A span this instance saw: known here at once, shared at the next mark. */
  #keep(span: RecordedDeafSpan): void {
    this.#unwritten.push(span);
    if (this.#unwritten.length > MAX_DEAF_SPANS) {
      this.#unwritten.shift();
    }
    this.#known = mergedSpans([...this.#known, span]).slice(-MAX_DEAF_SPANS);
  }

  /** Every span known here, this instance's current one up to `now`. */
  spans(now: number = this.#now()): DeafSpan[] {
    const open: DeafSpan[] =
      this.#deafSince === undefined ? [] : [{ from: this.#deafSince, to: now }];
    return [...this.#known, ...open];
  }

  /**
   * Looks for the time no instance ran before this one, then says every
   * few seconds that this instance can hear and reads the others' spans.
   */
  async start(): Promise<void> {
    this.#startedAt = this.#now();
    await this.#mark();
    this.#timer = setInterval(() => void this.#mark(), this.#markEveryMs);
    this.#timer.unref?.();
  }

  /** Stops marking, with a last mark so a restart counts from here. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#mark();
  }

  /** One mark at a time; a call while one runs joins it. */
  #mark(): Promise<void> {
    if (!this.#marking) {
      this.#marking = answerWithin(
        this.#markOnce(),
        MARK_DEADLINE_MS,
        'The database did not answer the mark',
      )
        .catch(() => {})
        .finally(() => {
          this.#marking = undefined;
        });
    }
    return this.#marking;
  }

  async #markOnce(): Promise<void> {
    const now = this.#now();
    try {
      if (this.#startedAt !== undefined) {
        await this.#lookForDowntime(this.#startedAt);
        this.#startedAt = undefined;
      }
      await this.#store.markHeard(this.#instanceId, now);
      // The database answered: pings can be kept again.
      this.#endSpan(now);
      const unwritten = this.#unwritten;
      this.#unwritten = [];
      await this.#store.add(unwritten, now).catch(error => {
        this.#unwritten = [...unwritten, ...this.#unwritten];
        throw error;
      });
      this.#known = mergedSpans([
        ...(await this.#store.readSince(now - READ_BACK_MS)),
        ...this.#unwritten,
      ]);
    } catch (error) {
      // The database is away: what this instance sees of it is its own span.
      this.#logger.debug(
        `Could not share the time pings could not be heard: ${stringifyError(
          error,
        )}`,
      );
    }
  }

  /** The time since any instance last heard, if none was running then. */
  async #lookForDowntime(startedAt: number): Promise<void> {
    const lastHeard = await this.#store.lastHeard();
    if (lastHeard === undefined || startedAt - lastHeard <= this.#markEveryMs) {
      return;
    }
    this.#keep({ from: lastHeard, to: startedAt, cause: 'down' });
    this.#logger.info(
      `No instance could hear heartbeat pings for ${Math.round(
        (startedAt - lastHeard) / 1000,
      )} s before this one started; their deadlines move by that much`,
    );
  }
}
