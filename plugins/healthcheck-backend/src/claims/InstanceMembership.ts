import type { LoggerService } from '@backstage/backend-plugin-api';
import { InputError, stringifyError } from '@backstage/errors';
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { systemClock } from '../scheduler/clock';
import type { SchedulerClock, TimerHandle } from '../scheduler/types';
import { ownerOf } from './rendezvous';
import type { ClaimStore } from '../model';

/**
 * How often and for how long instances vouch for themselves.
 *
 * @internal
 */
export interface InstanceMembershipOptions {
  /** Between heartbeats, which also refresh the live set. Default 5 s. */
  heartbeatMs?: number;
  /**
   * An instance silent this long is dead and its slices move. At least two
   * heartbeats, so one slow heartbeat does not drop a healthy instance.
   * Default 15 s, which with the default heartbeat moves a dead instance's
   * slices within 20 s.
   */
  ttlMs?: number;
  /**
   * Whether this instance shares the database with others: `auto` (the
   * default) is yes on PostgreSQL and no on SQLite. A single instance owns
   * every slice and writes no heartbeats.
   */
  mode?: 'auto' | 'shared' | 'single';
  /** Default: this host's name and a random UUID, new at every start. */
  instanceId?: string;
}

/** @internal */
export const DEFAULT_HEARTBEAT_MS = 5_000;
/** @internal */
export const DEFAULT_INSTANCE_TTL_MS = 15_000;

/** A silent instance's row is kept a while past its expiry, for operators to see. */
const PRUNE_AFTER_TTLS = 10;

const MAX_INSTANCE_ID_LENGTH = 255;

/**
 * This backend instance among those that share the database: heartbeats
 * through the {@link ClaimStore}, keeps the live set fresh, and says which
 * slices this instance owns by rendezvous hashing over that set.
 *
 * Instances may briefly disagree while one joins or leaves; the claim on
 * each run row keeps that from running a tick twice.
 *
 * Time the database was away does not count against anyone's TTL: nobody
 * could heartbeat then. After heartbeats failed, for one TTL the live set
 * forgives the length of the gap, so the first instance back keeps the
 * view the others still have instead of taking their slices, and an
 * instance that died during the outage leaves one TTL after it ends.
 *
 * @internal
 */
export class InstanceMembership {
  readonly instanceId: string;
  /** False on a database only one instance uses: this one owns everything. */
  readonly isShared: boolean;

  readonly #store: ClaimStore;
  readonly #logger: LoggerService;
  readonly #clock: SchedulerClock;
  readonly #heartbeatMs: number;
  readonly #ttlMs: number;
  #live: readonly string[];
  /** When this instance's heartbeat last landed. */
  #lastBeatAt: number | undefined;
  /** Silence forgiven after heartbeats failed, until `untilMs`. */
  #forgiven = { ms: 0, untilMs: -Infinity };
  #timer: TimerHandle | undefined;
  #refreshing: Promise<void> | undefined;
  #joined = false;
  #stopped = false;

  /** Creates the membership and joins at once (see {@link join}). */
  static async start(deps: {
    store: ClaimStore;
    logger: LoggerService;
    clock?: SchedulerClock;
    options?: InstanceMembershipOptions;
  }): Promise<InstanceMembership> {
    const membership = InstanceMembership.create(deps);
    await membership.join();
    return membership;
  }

  /**
   * The membership of an instance that has not joined yet: nobody else
   * counts on it, and it sees itself alone until it joins.
   */
  static create(deps: {
    store: ClaimStore;
    logger: LoggerService;
    clock?: SchedulerClock;
    options?: InstanceMembershipOptions;
  }): InstanceMembership {
    return new InstanceMembership(deps);
  }

  /**
   * Joins the instances: writes the first heartbeat and reads the live set
   * before returning, so the instance claims nothing on a view it has not
   * read; from then on the others count on it to probe its slices, so an
   * instance joins when it starts probing, not before. Once only.
   */
  async join(): Promise<void> {
    if (!this.isShared || this.#joined || this.#stopped) {
      return;
    }
    this.#joined = true;
    await this.refresh();
    this.#arm();
  }

  private constructor(deps: {
    store: ClaimStore;
    logger: LoggerService;
    clock?: SchedulerClock;
    options?: InstanceMembershipOptions;
  }) {
    const options = deps.options ?? {};
    this.#heartbeatMs = options.heartbeatMs ?? DEFAULT_HEARTBEAT_MS;
    this.#ttlMs = options.ttlMs ?? DEFAULT_INSTANCE_TTL_MS;
    requireTiming(this.#heartbeatMs, this.#ttlMs);
    this.instanceId = options.instanceId ?? defaultInstanceId();
    const mode = options.mode ?? 'auto';
    this.isShared =
      mode === 'shared' || (mode === 'auto' && deps.store.isShared);
    this.#store = deps.store;
    this.#clock = deps.clock ?? systemClock;
    this.#logger = deps.logger.child({ instanceId: this.instanceId });
    this.#live = [this.instanceId];
  }

  /** The instances this one believes alive, itself included, sorted. */
  liveInstances(): readonly string[] {
    return this.#live;
  }

  /** The instance that runs the slice's ticks, as this instance sees it. */
  ownerOf(sliceId: string): string {
    if (!this.isShared) {
      return this.instanceId;
    }
    return ownerOf(sliceId, this.#live) ?? this.instanceId;
  }

  isOwner(sliceId: string): boolean {
    return this.ownerOf(sliceId) === this.instanceId;
  }

  /**
   * Heartbeats and re-reads the live set now. Never rejects: on a database
   * error it logs and keeps the last live set. A call while one is running
   * joins it.
   */
  refresh(): Promise<void> {
    if (!this.isShared) {
      return Promise.resolve();
    }
    if (!this.#refreshing) {
      this.#refreshing = this.#heartbeatAndRead().finally(() => {
        this.#refreshing = undefined;
      });
    }
    return this.#refreshing;
  }

  /**
   * Resolves once no refresh is running; lets tests on a fake clock wait for
   * the database work a timer started.
   *
   * @internal
   */
  async settled(): Promise<void> {
    while (this.#refreshing) {
      await this.#refreshing;
    }
  }

  /** Stops heartbeating and leaves, so the others take over at once. */
  async stop(): Promise<void> {
    if (this.#stopped) {
      return;
    }
    this.#stopped = true;
    if (this.#timer !== undefined) {
      this.#clock.clearTimer(this.#timer);
      this.#timer = undefined;
    }
    if (!this.isShared) {
      return;
    }
    await this.settled();
    try {
      await this.#store.removeInstance(this.instanceId);
    } catch (error) {
      this.#logger.warn(
        `Could not remove this instance from the live set; the others take over once its heartbeat expires: ${stringifyError(
          error,
        )}`,
      );
    }
  }

  #arm(): void {
    // Armed before the refresh runs, so the beat keeps its period however
    // long the database takes; a beat that finds one still running skips.
    this.#timer = this.#clock.setTimer(() => {
      if (this.#stopped) {
        return;
      }
      this.#arm();
      if (!this.#refreshing) {
        void this.refresh();
      }
    }, this.#heartbeatMs);
  }

  async #heartbeatAndRead(): Promise<void> {
    const now = this.#clock.now();
    try {
      await this.#store.heartbeat(this.instanceId, now);
      const forgivenMs = this.#forgive(now);
      const live = await this.#store.liveInstances(
        now,
        this.#ttlMs + forgivenMs,
      );
      if (this.#stopped) {
        return;
      }
      this.#setLive(live);
      await this.#store.removeExpiredInstances(
        now,
        this.#ttlMs * PRUNE_AFTER_TTLS + forgivenMs,
      );
    } catch (error) {
      this.#logger.warn(
        `Instance heartbeat failed; keeping the last known ${
          this.#live.length
        } live instance(s): ${stringifyError(error)}`,
      );
    }
  }

  /**
   * The silence to forgive now: after a gap of more than one heartbeat
   * since the last that landed (the database was away or too slow for
   * anyone's heartbeat), the gap beyond that heartbeat, for one TTL.
   */
  #forgive(now: number): number {
    const gap = this.#lastBeatAt === undefined ? 0 : now - this.#lastBeatAt;
    this.#lastBeatAt = now;
    if (now >= this.#forgiven.untilMs) {
      this.#forgiven = { ms: 0, untilMs: -Infinity };
    }
    if (gap > this.#heartbeatMs) {
      this.#forgiven = {
        ms: Math.max(this.#forgiven.ms, gap - this.#heartbeatMs),
        untilMs: now + this.#ttlMs,
      };
    }
    return this.#forgiven.ms;
  }

  #setLive(fromStore: ReadonlyArray<string>): void {
    // Always in its own view: its heartbeat may be what just failed to land.
    const next = [...new Set([...fromStore, this.instanceId])].sort();
    const previous = new Set(this.#live);
    const joined = next.filter(id => !previous.has(id));
    const left = this.#live.filter(id => !next.includes(id));
    this.#live = next;
    if (joined.length > 0 || left.length > 0) {
      const changes = [
        joined.length > 0 ? `joined: ${joined.join(', ')}` : undefined,
        left.length > 0 ? `left: ${left.join(', ')}` : undefined,
      ].filter(Boolean);
      this.#logger.info(
        `${next.length} instance(s) share the health checks; ${changes.join(
          '; ',
        )}`,
      );
    }
  }
}

function defaultInstanceId(): string {
  return `${hostname()}/${randomUUID()}`.slice(-MAX_INSTANCE_ID_LENGTH);
}

function requireTiming(heartbeatMs: number, ttlMs: number): void {
  if (!Number.isSafeInteger(heartbeatMs) || heartbeatMs < 1) {
    throw new InputError(
      `heartbeatMs must be a whole number of at least 1, got ${heartbeatMs}`,
    );
  }
  if (!Number.isSafeInteger(ttlMs) || ttlMs < 2 * heartbeatMs) {
    throw new InputError(
      `ttlMs must be a whole number of at least two heartbeats (${
        2 * heartbeatMs
      }), got ${ttlMs}`,
    );
  }
}
