import { LoggerService } from '@backstage/backend-plugin-api';
import { EventsService } from '@backstage/plugin-events-node';
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
 * Owns the system rollup: subscribes to per-environment changes (never to
 * its own output), and for each system and time window lets one instance,
 * the one that claims the window's id in the database, recompute the
 * rollup once at the window's end.
 * @internal
 */
export class RollupConsumer {
  readonly #store: DatabaseStateStore;
  readonly #rollups: RollupService;
  readonly #logger: LoggerService;
  readonly #instanceId: string;
  readonly #windowMs: number;
  readonly #now: () => number;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #pending = new Set<Promise<void>>();
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

  async subscribe(events: EventsService): Promise<void> {
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
   * shows (which slices fail, k of n healthy).
   */
  async requestRecompute(systemRef: string): Promise<void> {
    if (this.#stopped) {
      return;
    }
    const event = { systemRef };
    const now = this.#now();
    const { id, endsAt } = rollupBucketId(event.systemRef, now, this.#windowMs);
    if (!(await this.#store.claimRollup(id, this.#instanceId, now))) {
      return;
    }
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      const run = this.#rollups
        .recompute(event.systemRef)
        .then(() => undefined)
        .catch(error =>
          this.#logger.warn(
            `Could not recompute the rollup of ${event.systemRef}`,
            error,
          ),
        )
        .finally(() => this.#pending.delete(run));
      this.#pending.add(run);
    }, Math.max(0, endsAt - now));
    // Shutdown stops the consumer; a pending recompute keeps nothing alive.
    timer.unref?.();
    this.#timers.add(timer);
  }

  /** Runs the recomputes still waiting for their window, then stops. */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) {
      clearTimeout(timer);
    }
    this.#timers.clear();
    await Promise.all(this.#pending);
  }
}
