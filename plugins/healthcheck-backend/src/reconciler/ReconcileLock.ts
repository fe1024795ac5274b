import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Knex } from 'knex';
import { engineOf } from '../database/engine';

/**
 * Makes reconcile passes take turns, so two cannot interleave the writes of
 * their plans.
 * @internal
 */
export interface ReconcileLock {
  /** Runs `fn` if the lock is free now; otherwise does nothing. */
  tryWith<T>(
    fn: () => Promise<T>,
  ): Promise<{ ran: true; value: T } | { ran: false }>;
  /**
   * Runs `fn` once the lock is free.
   * @throws Error if it stays taken for `waitMs`.
   */
  with<T>(fn: () => Promise<T>, options?: { waitMs?: number }): Promise<T>;
}

const DEFAULT_WAIT_MS = 30_000;
const RETRY_DELAY_MS = 50;

/**
 * The advisory-lock key, as PostgreSQL's two-int form: the first names this
 * plugin (a hash, so other users of advisory locks on a shared database do
 * not collide with it), the second the lock within it.
 */
const LOCK_NAMESPACE = createHash('sha256')
  .update('vigil.dev/healthcheck')
  .digest()
  .readInt32BE(0);
const RECONCILE_LOCK_ID = 1;

/** @internal */
export class InProcessReconcileLock implements ReconcileLock {
  #held = false;
  readonly #waiters: Array<() => void> = [];

  async tryWith<T>(fn: () => Promise<T>) {
    if (this.#held) {
      return { ran: false as const };
    }
    return { ran: true as const, value: await this.#hold(fn) };
  }

  async with<T>(fn: () => Promise<T>, options: { waitMs?: number } = {}) {
    if (this.#held) {
      const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
      await new Promise<void>((resolve, reject) => {
        let timer: NodeJS.Timeout | undefined = undefined;
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        timer = setTimeout(() => {
          this.#waiters.splice(this.#waiters.indexOf(wake), 1);
          reject(lockTimeout(waitMs));
        }, waitMs);
        this.#waiters.push(wake);
      });
    }
    return await this.#hold(fn);
  }

  async #hold<T>(fn: () => Promise<T>): Promise<T> {
    this.#held = true;
    try {
      return await fn();
    } finally {
      const next = this.#waiters.shift();
      if (next) {
        next(); // the lock passes on, still held
      } else {
        this.#held = false;
      }
    }
  }
}

/** @internal */
export class AdvisoryReconcileLock implements ReconcileLock {
  readonly #db: Knex;

  constructor(db: Knex) {
    this.#db = db;
  }

  async tryWith<T>(fn: () => Promise<T>) {
    const connection = await this.#db.client.acquireConnection();
    try {
      if (!(await this.#tryLock(connection))) {
        return { ran: false as const };
      }
      return {
        ran: true as const,
        value: await this.#unlockAfter(connection, fn),
      };
    } finally {
      await this.#db.client.releaseConnection(connection);
    }
  }

  async with<T>(fn: () => Promise<T>, options: { waitMs?: number } = {}) {
    const waitMs = options.waitMs ?? DEFAULT_WAIT_MS;
    const deadline = Date.now() + waitMs;
    const connection = await this.#db.client.acquireConnection();
    try {
      // Polling try-locks rather than a blocking lock: the wait stays
      // bounded without changing the session's lock_timeout.
      while (!(await this.#tryLock(connection))) {
        if (Date.now() >= deadline) {
          throw lockTimeout(waitMs);
        }
        await sleep(RETRY_DELAY_MS);
      }
      return await this.#unlockAfter(connection, fn);
    } finally {
      await this.#db.client.releaseConnection(connection);
    }
  }

  async #tryLock(connection: unknown): Promise<boolean> {
    const result = await this.#db
      .raw('SELECT pg_try_advisory_lock(?, ?) AS locked', [
        LOCK_NAMESPACE,
        RECONCILE_LOCK_ID,
      ])
      .connection(connection);
    return result.rows[0].locked === true;
  }

  async #unlockAfter<T>(connection: unknown, fn: () => Promise<T>) {
    try {
      return await fn();
    } finally {
      await this.#db
        .raw('SELECT pg_advisory_unlock(?, ?)', [
          LOCK_NAMESPACE,
          RECONCILE_LOCK_ID,
        ])
        .connection(connection);
    }
  }
}

/**
 * The reconcile lock for the plugin's database: on PostgreSQL a session
 * advisory lock, held on a connection of its own for the pass (so it lasts
 * exactly as long as the pass and dies with the process); on SQLite, where
 * one instance runs, an in-process mutex.
 * @internal
 */
export function createReconcileLock(db: Knex): ReconcileLock {
  return engineOf(db) === 'postgres'
    ? new AdvisoryReconcileLock(db)
    : new InProcessReconcileLock();
}

function lockTimeout(waitMs: number): Error {
  return new Error(
    `Another reconcile pass held the reconcile lock for more than ${Math.round(
      waitMs / 1000,
    )} s`,
  );
}
