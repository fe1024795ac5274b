import type { LoggerService } from '@backstage/backend-plugin-api';
import type { Knex } from 'knex';
import pLimit from 'p-limit';
import type {
  ClaimedOutboxEntry,
  DatabaseOutbox,
  OutboxEntry,
  OutboxMeasure,
} from './DatabaseOutbox';
import { noopOutboxMetrics, OutboxMetrics } from './outboxMetrics';
import { retryDelay } from './retryDelay';

/**
 * Delivers one entry's payload; resolves once the receiver accepted it,
 * or with `{ again }` to be called again at that time (epoch ms) with the
 * same payload: a reminder, a follow-up that waits for its moment.
 * Called at least once per entry, more than once only after a failure or
 * a lease that ran out: deliveries make repeats harmless (a notification's
 * `scope` updates the one the owner has instead of adding another).
 * @internal
 */
export type OutboxDelivery = (
  payload: any,
) => Promise<void | { again: number }>;

/**
 * Where the state changes that call for side effects write them: in their
 * own transaction, then a nudge so this instance delivers at once.
 * @internal
 */
export interface OutboxWriter {
  write(
    entries: readonly OutboxEntry[],
    now: number,
    tx: Knex.Transaction,
  ): Promise<void>;
  /** Runs `work` in a transaction of the outbox's database. */
  transaction<T>(work: (tx: Knex.Transaction) => Promise<T>): Promise<T>;
  /** Entries were committed: deliver them now rather than at the next poll. */
  wake(): void;
}

/** @internal */
export interface OutboxDispatcherSettings {
  /** How often the outbox is read for entries other instances wrote or put back. */
  pollMs: number;
  /** How long a claim holds an entry from other instances. */
  leaseMs: number;
  /** How long one delivery may take before it counts as failed. */
  deliveryTimeoutMs: number;
  /** Retry delays: doubling from the first, up to the last. */
  retryBaseMs: number;
  retryMaxMs: number;
  /** Entries older than this are dropped undelivered, with an error logged. */
  maxAgeMs: number;
  /** Entries kept at most; past it the oldest are dropped. */
  maxPending: number;
  /** Entries claimed per round. */
  batchSize: number;
  /** How often the outbox is measured and pruned. */
  maintenanceMs: number;
}

/** @internal */
export const DEFAULT_OUTBOX_DISPATCHER_SETTINGS: OutboxDispatcherSettings = {
  pollMs: 1_000,
  // Longer than a delivery may take, so a live instance keeps its entries.
  leaseMs: 60_000,
  deliveryTimeoutMs: 15_000,
  retryBaseMs: 1_000,
  retryMaxMs: 30_000,
  maxAgeMs: 24 * 60 * 60_000,
  maxPending: 100_000,
  batchSize: 50,
  maintenanceMs: 15_000,
};

/** Deliveries under way at once, each to a different stream. */
const DELIVERIES_AT_ONCE = 8;

/**
 * Delivers the outbox on every instance: claims the due head of each
 * stream for a lease, hands each entry to the delivery of its kind, deletes
 * what was accepted and puts back what failed, due again after a growing
 * delay. Whichever instance is alive delivers; one that dies mid-delivery
 * leaves its entries to the others when its lease runs out.
 * @internal
 */
export class OutboxDispatcher implements OutboxWriter {
  readonly #outbox: DatabaseOutbox;
  readonly #deliveries = new Map<string, OutboxDelivery>();
  readonly #instanceId: string;
  readonly #logger: LoggerService;
  readonly #metrics: OutboxMetrics;
  readonly #settings: OutboxDispatcherSettings;
  readonly #now: () => number;
  readonly #random: () => number;
  #running?: Promise<void>;
  #stopped = false;
  #woken = false;
  #wakeSleeper?: () => void;
  #lastMaintenance = -Infinity;
  #measure?: OutboxMeasure;
  #failingRounds = 0;

  constructor(options: {
    outbox: DatabaseOutbox;
    instanceId: string;
    logger: LoggerService;
    metrics?: OutboxMetrics;
    settings?: Partial<OutboxDispatcherSettings>;
    now?: () => number;
    random?: () => number;
  }) {
    this.#outbox = options.outbox;
    this.#instanceId = options.instanceId;
    this.#logger = options.logger;
    this.#metrics = options.metrics ?? noopOutboxMetrics;
    this.#settings = {
      ...DEFAULT_OUTBOX_DISPATCHER_SETTINGS,
      ...options.settings,
    };
    this.#now = options.now ?? Date.now;
    this.#random = options.random ?? Math.random;
    this.#metrics.observe(() => this.#measure);
  }

  /** Says how entries of `kind` are delivered; before {@link start}. */
  handle(kind: string, delivery: OutboxDelivery): void {
    this.#deliveries.set(kind, delivery);
  }

  async write(
    entries: readonly OutboxEntry[],
    now: number,
    tx: Knex.Transaction,
  ): Promise<void> {
    await this.#outbox.write(entries, now, tx);
  }

  async transaction<T>(work: (tx: Knex.Transaction) => Promise<T>): Promise<T> {
    return await this.#outbox.transaction(work);
  }

  wake(): void {
    this.#woken = true;
    this.#wakeSleeper?.();
  }

  start(): void {
    if (this.#running || this.#stopped) {
      return;
    }
    this.#running = this.#loop();
  }

  /**
   * Stops claiming, lets the deliveries under way finish (each within the
   * delivery timeout), and gives up this instance's claims so the others
   * deliver them without waiting for the lease.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wakeSleeper?.();
    await this.#running;
    await this.#outbox
      .release(this.#instanceId)
      .catch(error =>
        this.#logger.warn(
          'Could not give up the outbox entries this instance claimed; others take them when the lease runs out',
          error,
        ),
      );
  }

  /**
   * One round: claims the due entries (up to a batch) and delivers them.
   * @returns how many were claimed
   */
  async deliverDue(): Promise<number> {
    const claimed = await this.#outbox.claimDue({
      instanceId: this.#instanceId,
      now: this.#now(),
      leaseMs: this.#settings.leaseMs,
      limit: this.#settings.batchSize,
    });
    if (claimed.length === 0) {
      return 0;
    }
    const limit = pLimit(DELIVERIES_AT_ONCE);
    const outcomes = await Promise.all(
      claimed.map(entry => limit(() => this.#deliver(entry))),
    );
    const delivered = claimed.filter((_, index) => outcomes[index] === true);
    await Promise.all(
      claimed.map((entry, index) => {
        const outcome = outcomes[index];
        return typeof outcome === 'number'
          ? this.#outbox.reschedule(
              { id: entry.id, instanceId: this.#instanceId },
              outcome,
            )
          : undefined;
      }),
    );
    await this.#outbox.delivered(delivered.map(entry => entry.id));
    for (const entry of delivered) {
      this.#metrics.addDeliveries(1, entry.kind, 'delivered');
    }
    return claimed.length;
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      this.#woken = false;
      let claimed = 0;
      try {
        await this.#maintain();
        claimed = await this.deliverDue();
        this.#failingRounds = 0;
      } catch (error) {
        // Once per outage, not once a second: the journal and the claims
        // say the same louder.
        if (this.#failingRounds++ === 0) {
          this.#logger.warn(
            'Could not read the outbox; notifications and events wait in it until the database answers',
            error as Error,
          );
        }
      }
      if (this.#stopped || claimed >= this.#settings.batchSize || this.#woken) {
        continue;
      }
      await new Promise<void>(resolve => {
        const timer = setTimeout(resolve, this.#settings.pollMs);
        this.#wakeSleeper = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wakeSleeper = undefined;
    }
  }

  /**
   * Delivers one entry: `true` when the receiver accepted it, `false` when
   * it failed (put back), or when to deliver it again.
   */
  async #deliver(entry: ClaimedOutboxEntry): Promise<boolean | number> {
    const delivery = this.#deliveries.get(entry.kind);
    try {
      if (!delivery) {
        // Written by a newer version of the plugin, maybe: left for it.
        throw new Error(`no delivery for outbox entries of kind ${entry.kind}`);
      }
      const outcome = await withTimeout(
        delivery(entry.payload),
        this.#settings.deliveryTimeoutMs,
        `${entry.kind} was not delivered within ${
          this.#settings.deliveryTimeoutMs
        } ms`,
      );
      return outcome ? outcome.again : true;
    } catch (error) {
      const attempts = entry.attempts + 1;
      const delayMs = retryDelay(
        attempts,
        {
          baseMs: this.#settings.retryBaseMs,
          maxMs: this.#settings.retryMaxMs,
        },
        this.#random,
      );
      const message = String((error as Error)?.message ?? error);
      this.#metrics.addDeliveries(1, entry.kind, 'failed');
      // The first failure of an entry and every tenth after: a receiver
      // down for an hour logs a line every few minutes, not every retry.
      if (attempts === 1 || attempts % 10 === 0) {
        this.#logger.warn(
          `Could not deliver ${entry.kind} of ${
            entry.stream
          } (attempt ${attempts}); retrying in ${Math.round(
            delayMs / 1000,
          )} s: ${message}`,
        );
      }
      await this.#outbox
        .retryLater(
          { id: entry.id, instanceId: this.#instanceId },
          this.#now() + delayMs,
          message,
        )
        .catch(() => {
          // The lease runs out and another instance retries it.
        });
      return false;
    }
  }

  /** Drops what waited too long and measures the rest, now and then. */
  async #maintain(): Promise<void> {
    const now = this.#now();
    if (now - this.#lastMaintenance < this.#settings.maintenanceMs) {
      return;
    }
    this.#lastMaintenance = now;
    const dropped = await this.#outbox.dropUndeliverable({
      writtenBefore: now - this.#settings.maxAgeMs,
      maxPending: this.#settings.maxPending,
    });
    if (dropped.length > 0) {
      const kinds = new Map<string, number>();
      for (const entry of dropped) {
        kinds.set(entry.kind, (kinds.get(entry.kind) ?? 0) + 1);
      }
      for (const [kind, count] of kinds) {
        this.#metrics.addDeliveries(count, kind, 'dropped');
      }
      this.#logger.error(
        `Dropped ${dropped.length} outbox entries undelivered (${[...kinds]
          .map(([kind, count]) => `${count} ${kind}`)
          .join(', ')}): older than ${Math.round(
          this.#settings.maxAgeMs / 60_000,
        )} min or over ${this.#settings.maxPending} waiting; first: ${
          dropped[0].stream
        } after ${dropped[0].attempts} attempts`,
      );
    }
    this.#measure = await this.#outbox.measure();
  }
}

async function withTimeout<T>(
  work: Promise<T>,
  timeoutMs: number,
  message: string,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(message)), timeoutMs);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}
