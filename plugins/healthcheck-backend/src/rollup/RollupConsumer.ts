import { LoggerService } from '@backstage/backend-plugin-api';
import { EventsService } from '@backstage/plugin-events-node';
import pLimit from 'p-limit';
import {
  ENVIRONMENT_CHANGED_TOPIC,
  EnvironmentChangedEvent,
} from '@vigil/plugin-healthcheck-common';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { RollupService } from './RollupService';

/** The debounce window unless configured. */
export const DEFAULT_ROLLUP_WINDOW_MS = 2_000;

/**
 * The debounce id of a system in the time bucket of `at`: every environment
 * change of the system in one window, on any instance, maps to it.
 * @internal
 */
export function rollupBucketId(
  systemRef: string,
  at: number,
  windowMs: number,
): { id: string; endsAt: number } {
  const bucket = Math.floor(at / windowMs);
  return {
    id: `healthrollup:${systemRef.toLowerCase()}:${bucket}`,
    endsAt: (bucket + 1) * windowMs,
  };
}

/**
 * The system a debounce id of {@link rollupBucketId} is of; `undefined` for
 * an id of another shape.
 * @internal
 */
export function systemOfRollupBucket(id: string): string | undefined {
  const match = /^healthrollup:(.+):\d+$/.exec(id);
  return match?.[1];
}

/**
 * Recomputes one instance runs at once. A burst (a shared dependency down,
 * a full reconcile) ends windows of thousands of systems together; each
 * recompute reads the database and may ask the catalog.
 */
const RECOMPUTES_AT_ONCE = 8;

/**
 * How long after its window a claimed window may stay uncomputed before
 * another instance computes it: its instance died, or it is far behind.
 * Computing a window twice is safe; a dead instance's outage left unshown
 * for a minute (the sweep's grace) is not.
 * @internal
 */
export const RESCUE_LEASE_MS = 3_000;

/** How often each instance looks for such windows: one indexed read. */
const RESCUE_EVERY_MS = 2_000;

/** How far back it looks; older windows are the sweep's. */
const RESCUE_HORIZON_MS = 60_000;

/** The claim of the rescue of a window: one instance computes it. */
function rescueIdOf(windowId: string): string {
  return `healthrollup-rescue:${windowId}`;
}

/**
 * How long `stop()` waits for the windows it runs, unless told.
 * @internal
 */
export const DEFAULT_STOP_TIMEOUT_MS = 5_000;

/**
 * Owns the system rollup: subscribes to per-environment changes (never to
 * its own output), and for each system and time window lets one instance,
 * the one that claims the window's id in the database, recompute the
 * rollup once at the window's end. A window claimed and still not computed
 * {@link RESCUE_LEASE_MS} after its end (the instance died, or its
 * recompute failed) is computed by the first instance to find it, every
 * instance looking every 2 s; the sweep finds what is older.
 *
 * Holds at most one timer per system per window it claimed, and runs at
 * most {@link RECOMPUTES_AT_ONCE} recomputes at once.
 * @internal
 */
export class RollupConsumer {
  readonly #store: DatabaseStateStore;
  readonly #rollups: RollupService;
  readonly #logger: LoggerService;
  readonly #instanceId: string;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #limit = pLimit(RECOMPUTES_AT_ONCE);
  /** Claimed windows waiting for their end, by window id. */
  readonly #waiting = new Map<
    string,
    { systemRef: string; timer: NodeJS.Timeout }
  >();
  /** Claims in flight, and recomputes queued or running. */
  readonly #pending = new Set<Promise<void>>();
  #rescueTimer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: {
    store: DatabaseStateStore;
    rollups: RollupService;
    logger: LoggerService;
    instanceId: string;
    windowMs?: number;
    now?: () => number;
  }) {
    this.#store = options.store;
    this.#rollups = options.rollups;
    this.#logger = options.logger;
    this.#instanceId = options.instanceId;
    this.#windowMs = options.windowMs ?? DEFAULT_ROLLUP_WINDOW_MS;
    this.#now = options.now ?? Date.now;
  }

  /**
   * Subscribes to environment changes, and starts looking for windows
   * claimed and never computed.
   */
  async subscribe(events: EventsService): Promise<void> {
    this.#rescueTimer = setInterval(() => {
      this.#track(
        this.rescueOverdueWindows().then(
          () => {},
          error =>
            this.#logger.warn(
              'Could not look for rollup windows claimed and never computed',
              error,
            ),
        ),
      );
    }, RESCUE_EVERY_MS);
    this.#rescueTimer.unref?.();
    await events.subscribe({
      id: 'healthcheck-rollup',
      topics: [ENVIRONMENT_CHANGED_TOPIC],
      onEvent: async params => {
        await this.onEnvironmentChanged(
          params.eventPayload as EnvironmentChangedEvent,
        );
      },
    });
  }

  /**
   * Schedules the recompute of the event's system at the end of the
   * current window, if this instance is the first to claim the window.
   */
  async onEnvironmentChanged(event: EnvironmentChangedEvent): Promise<void> {
    if (typeof event?.systemRef === 'string') {
      await this.requestRecompute(event.systemRef);
    }
  }

  /**
   * Asks for a recompute of a system's rollup in the current window, for a
   * change that moved no environment's status but changes what the rollup
   * shows (which slices fail, k of n healthy), or for slices a reconcile
   * pass changed.
   */
  async requestRecompute(systemRef: string): Promise<void> {
    if (this.#stopped) {
      return;
    }
    const claiming = this.#claim(systemRef);
    this.#track(claiming);
    await claiming;
  }

  async #claim(systemRef: string): Promise<void> {
    const now = this.#now();
    const { id, endsAt } = rollupBucketId(systemRef, now, this.#windowMs);
    if (!(await this.#store.claimRollup(id, this.#instanceId, now))) {
      return;
    }
    if (this.#stopped) {
      // Stopping began while the claim was on its way: no window to wait for.
      this.#run(id, systemRef, { early: true });
      return;
    }
    const timer = setTimeout(() => {
      this.#waiting.delete(id);
      this.#run(id, systemRef, { early: false });
    }, Math.max(0, endsAt - now));
    // Shutdown stops the consumer; a waiting window keeps nothing alive.
    timer.unref?.();
    this.#waiting.set(id, { systemRef, timer });
  }

  /**
   * Computes the windows whose claim is over {@link RESCUE_LEASE_MS} past
   * its window's end (and under a minute) while the system's rollup is
   * older than the claim: the instance that claimed them died, or never
   * got to them. Of the instances that find one, the first to claim its
   * rescue computes it.
   * @returns how many this instance computes
   */
  async rescueOverdueWindows(): Promise<number> {
    if (this.#stopped) {
      return 0;
    }
    const now = this.#now();
    const claims = await this.#store.readRollupClaims({
      from: now - this.#windowMs - RESCUE_HORIZON_MS,
      to: now - this.#windowMs - RESCUE_LEASE_MS,
    });
    const windows = claims.flatMap(claim => {
      const systemRef = systemOfRollupBucket(claim.id);
      return systemRef ? [{ ...claim, systemRef }] : [];
    });
    if (windows.length === 0) {
      return 0;
    }
    const computed = await this.#store.readRollupTimes(
      windows.map(w => w.systemRef),
    );
    let rescued = 0;
    for (const window of windows) {
      const computedAt = computed.get(window.systemRef) ?? -Infinity;
      if (
        computedAt < window.claimedAt &&
        (await this.#store.claimRollup(
          rescueIdOf(window.id),
          this.#instanceId,
          now,
        ))
      ) {
        this.#logger.info(
          `Computing the rollup window of ${window.systemRef} that ${window.claimedBy} claimed and never computed`,
        );
        this.#run(window.id, window.systemRef, { early: false });
        rescued += 1;
      }
    }
    return rescued;
  }

  /**
   * Recomputes a window's system. A window run before its end gives its
   * claim up afterwards, so a change later in the window is not left to
   * the sweep.
   */
  #run(id: string, systemRef: string, options: { early: boolean }): void {
    this.#track(
      this.#limit(async () => {
        await this.#rollups.recompute(systemRef);
        if (options.early) {
          await this.#store.releaseRollupClaim(id, this.#instanceId);
        }
      }).catch(error =>
        this.#logger.warn(
          `Could not recompute the rollup of ${systemRef}; the sweep will`,
          error,
        ),
      ),
    );
  }

  #track(work: Promise<void>): void {
    const tracked = work
      .catch(() => {})
      .finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }

  /**
   * Runs the windows still waiting for their end at once, waits for them
   * and for those already running up to `timeoutMs`, and stops. What is
   * still unfinished then keeps its claim, for the sweep.
   */
  async stop(options: { timeoutMs?: number } = {}): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#rescueTimer);
    const timeoutMs = options.timeoutMs ?? DEFAULT_STOP_TIMEOUT_MS;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>(resolve => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
      timer.unref?.();
    });
    try {
      // Claims in flight may add windows, and windows add recomputes.
      while (this.#pending.size > 0 || this.#waiting.size > 0) {
        for (const [id, { systemRef, timer: waiting }] of this.#waiting) {
          clearTimeout(waiting);
          this.#run(id, systemRef, { early: true });
        }
        this.#waiting.clear();
        const settled = await Promise.race([
          Promise.all(this.#pending).then(() => 'settled' as const),
          timedOut,
        ]);
        if (settled === 'timeout') {
          this.#logger.warn(
            `Stopped with ${
              this.#pending.size
            } rollup recomputes unfinished after ${timeoutMs} ms; the sweep will do them`,
          );
          return;
        }
      }
    } finally {
      clearTimeout(timer);
    }
  }
}
