import { LoggerService } from '@backstage/backend-plugin-api';
import {
  EnvironmentChangedEvent,
  HealthStatus,
} from '@vigil/plugin-healthcheck-common';
import type { EnvironmentSlice } from '../model';
import type { EnvironmentTransitions } from '../rollup/EnvironmentTransitions';
import type { NotificationHold } from '../rollup/OwnerNotifier';
import type { DatabaseMaintenanceStore } from './DatabaseMaintenanceStore';
import type { MaintenanceCalendar } from './MaintenanceCalendar';
import { windowsActiveAt } from './occurrences';

/** How long an instance has to tell a due hold before another may. */
const RELEASE_LEASE_MS = 5 * 60_000;

/** Holds released per round; the rest wait for the next. */
const RELEASES_PER_ROUND = 200;

const FAILING: ReadonlySet<string> = new Set<HealthStatus>([
  'unhealthy',
  'degraded',
]);

/**
 * Holds back the notifications of environments in maintenance: a
 * transition to a failing status whose every responsible slice is covered
 * by a window in force waits, stored, until the windows end; a recovery of
 * a failure that waited cancels it (nobody was told it failed). Statuses,
 * events and rollups are not held: only the owner's notification.
 * @internal
 */
export class MaintenanceNotificationHold implements NotificationHold {
  readonly #calendar: Pick<MaintenanceCalendar, 'covering'>;
  readonly #store: Pick<
    DatabaseMaintenanceStore,
    'hold' | 'getHeld' | 'dropHeld' | 'claimDueHolds'
  >;
  readonly #now: () => number;

  constructor(options: {
    calendar: Pick<MaintenanceCalendar, 'covering'>;
    store: Pick<
      DatabaseMaintenanceStore,
      'hold' | 'getHeld' | 'dropHeld' | 'claimDueHolds'
    >;
    now?: () => number;
  }) {
    this.#calendar = options.calendar;
    this.#store = options.store;
    this.#now = options.now ?? Date.now;
  }

  async holds(
    event: EnvironmentChangedEvent,
    slices: readonly EnvironmentSlice[],
  ): Promise<boolean> {
    const { systemRef, environment } = event;
    if (!FAILING.has(event.to)) {
      // A failure that waited and is over: there is nothing to tell.
      return await this.#store.dropHeld(systemRef, environment);
    }
    const responsible = slices.filter(slice =>
      event.slices.some(s => s.sliceId === slice.sliceId),
    );
    // Judged at the transition, not at delivery: a notification delivered
    // late (its receiver was down) is held as it would have been on time.
    const ends = await this.#maintenanceEnds(
      responsible.length > 0 ? responsible : slices,
      Date.parse(event.at),
    );
    if (ends === undefined) {
      // Told now; a failure held before is told with it.
      await this.#store.dropHeld(systemRef, environment);
      return false;
    }
    await this.#store.hold({
      systemRef,
      environment,
      fromStatus: event.from,
      releaseAt: ends,
    });
    return true;
  }

  /**
   * Tells what the holds that fell due have to tell (see
   * `EnvironmentTransitions.releaseHeld`): each hold is dropped in the
   * transaction that writes its notification to the outbox, so neither
   * happens without the other; the delivery holds it anew while another
   * window goes on. Returns how many notifications were written.
   */
  async releaseDue(
    transitions: Pick<EnvironmentTransitions, 'releaseHeld'>,
    logger: LoggerService,
  ): Promise<number> {
    let told = 0;
    for (const held of await this.#store.claimDueHolds(
      RELEASE_LEASE_MS,
      RELEASES_PER_ROUND,
    )) {
      try {
        // If maintenance goes on, the notification's delivery holds anew.
        const event = await transitions.releaseHeld(
          {
            systemRef: held.systemRef,
            environment: held.environment,
            from: held.fromStatus as HealthStatus,
          },
          tx => this.#store.dropHeld(held.systemRef, held.environment, tx),
        );
        if (event) told += 1;
      } catch (error) {
        logger.warn(
          `Could not tell ${held.systemRef} in ${held.environment} after maintenance`,
          error as Error,
        );
      }
    }
    return told;
  }

  /**
   * When every slice is out of maintenance: the latest end among the
   * earliest-ending windows of each; `undefined` when some slice is in none.
   */
  async #maintenanceEnds(
    slices: readonly EnvironmentSlice[],
    at: number,
  ): Promise<number | undefined> {
    if (slices.length === 0) {
      return undefined;
    }
    const now = Number.isNaN(at) ? this.#now() : at;
    let latest = now;
    for (const slice of slices) {
      const active = windowsActiveAt(await this.#calendar.covering(slice), now);
      if (active.length === 0) {
        return undefined;
      }
      latest = Math.max(latest, Math.min(...active.map(o => o.endMs)));
    }
    return latest;
  }
}
