import { LoggerService } from '@backstage/backend-plugin-api';
import { EventsService } from '@backstage/plugin-events-node';
import pLimit from 'p-limit';
import { NotificationService } from '@backstage/plugin-notifications-node';
import {
  ENVIRONMENT_CHANGED_TOPIC,
  EnvironmentChangedEvent,
  HealthStatus,
} from '@vigil/plugin-healthcheck-common';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import {
  buildEnvironmentNotification,
  componentsOfFailingChecks,
  NotificationSettings,
} from './buildNotification';
import { computeRollup, environmentVerdict } from './computeRollup';
import type { RollupService } from './RollupService';
import type { EnvironmentSlice } from '../model';

/**
 * Systems checked at once. Each system's environments take a few round
 * trips apiece, one after another; a batch of runs after a start or an
 * outage changes thousands of environments, and checked one system at a
 * time those round trips outran the probes (results waited in the journal
 * for minutes at 10k slices). Systems are independent of each other.
 */
const SYSTEMS_AT_ONCE = 4;

/** Compare-and-set rounds an environment's move takes before leaving it to the sweep. */
const MOVE_ATTEMPTS = 3;

/**
 * What may hold an environment's notification back (maintenance): `true`
 * when it takes the notification of this transition over.
 * @internal
 */
export interface NotificationHold {
  holds(
    event: EnvironmentChangedEvent,
    slices: readonly EnvironmentSlice[],
  ): Promise<boolean>;
}

/**
 * Turns slice state changes into environment transitions: recomputes the
 * status of each affected environment from durable state, moves the stored
 * status with a compare-and-set (so of several instances that see one
 * change, one publishes it), publishes `healthcheck.environment.changed`,
 * and sends the owner's notification. Never the rollup's job.
 * @internal
 */
export class EnvironmentTransitions {
  readonly #store: DatabaseStateStore;
  readonly #logger: LoggerService;
  readonly #events?: EventsService;
  readonly #notifications?: NotificationService;
  readonly #rollups?: RollupService;
  readonly #settings?: NotificationSettings;
  readonly #hold?: NotificationHold;
  readonly #now: () => number;

  constructor(options: {
    store: DatabaseStateStore;
    logger: LoggerService;
    events?: EventsService;
    notifications?: NotificationService;
    /**
     * For the upstream systems a notification mentions, and the systems of
     * the components its failing checks target.
     */
    rollups?: RollupService;
    notificationSettings?: NotificationSettings;
    /** Holds notifications back during maintenance; none without it. */
    notificationHold?: NotificationHold;
    now?: () => number;
  }) {
    this.#store = options.store;
    this.#logger = options.logger;
    this.#events = options.events;
    this.#notifications = options.notifications;
    this.#rollups = options.rollups;
    this.#settings = options.notificationSettings;
    this.#hold = options.notificationHold;
    this.#now = options.now ?? Date.now;
  }

  /** Checks every environment the given systems have slices in. */
  async checkSystems(
    systemRefs: readonly string[],
  ): Promise<EnvironmentChangedEvent[]> {
    const slices = await this.#store.readEnvironmentSlices(
      systemRefs.map(systemRef => ({ systemRef })),
    );
    return await this.check(slices);
  }

  /** Checks the given environments; returns the transitions this call made. */
  async check(
    environments: ReadonlyArray<{ systemRef: string; environment: string }>,
  ): Promise<EnvironmentChangedEvent[]> {
    const unique = new Map<
      string,
      { systemRef: string; environment: string }
    >();
    for (const e of environments) {
      const systemRef = e.systemRef.toLowerCase();
      unique.set(`${systemRef}\u0000${e.environment}`, {
        systemRef,
        environment: e.environment,
      });
    }
    if (unique.size === 0) {
      return [];
    }
    const slices = await this.#store.readEnvironmentSlices([
      ...unique.values(),
    ]);
    const bySystem = new Map<string, Map<string, EnvironmentSlice[]>>();
    for (const { systemRef, environment } of unique.values()) {
      if (!bySystem.has(systemRef)) bySystem.set(systemRef, new Map());
      bySystem.get(systemRef)!.set(environment, []);
    }
    for (const slice of slices) {
      bySystem.get(slice.systemRef)?.get(slice.environment)?.push(slice);
    }
    const limit = pLimit(SYSTEMS_AT_ONCE);
    const madeBySystem = await Promise.all(
      [...bySystem].map(([systemRef, environmentsOf]) =>
        limit(() => this.#checkSystem(systemRef, environmentsOf)),
      ),
    );
    return madeBySystem.flat();
  }

  /** Moves each of a system's environments; the transitions made, in order. */
  async #checkSystem(
    systemRef: string,
    environmentsOf: Map<string, EnvironmentSlice[]>,
  ): Promise<EnvironmentChangedEvent[]> {
    const made: EnvironmentChangedEvent[] = [];
    const stored = await this.#store.readEnvironmentStates(systemRef);
    for (const [environment, environmentSlices] of environmentsOf) {
      if (environmentSlices.length === 0) {
        continue; // the environment is gone; the rollup drops it
      }
      const event = await this.#move(
        systemRef,
        environment,
        environmentSlices,
        stored.get(environment)?.status,
      );
      if (event) {
        made.push(event);
      }
    }
    return made;
  }

  /**
   * Moves one environment's stored status to its verdict, and tells of it.
   * Losing the compare-and-set means another instance moved it first, maybe
   * from slice states read before this one's run was written (each saw the
   * other's slice as not yet run): so read both again and judge afresh,
   * rather than leave a stale status for the sweep to find.
   */
  async #move(
    systemRef: string,
    environment: string,
    slicesRead: EnvironmentSlice[],
    statusRead: HealthStatus | undefined,
  ): Promise<EnvironmentChangedEvent | undefined> {
    let slices = slicesRead;
    let before = statusRead;
    for (let attempt = 1; ; attempt++) {
      const verdict = environmentVerdict(slices);
      if (before === verdict.status) {
        return undefined;
      }
      const at = this.#now();
      const won = await this.#store.transitionEnvironment({
        systemRef,
        environment,
        from: before,
        to: verdict.status,
        at,
      });
      if (won) {
        const event: EnvironmentChangedEvent = {
          systemRef,
          environment,
          from: before ?? 'unknown',
          to: verdict.status,
          at: new Date(at).toISOString(),
          slices: verdict.responsible.map(slice => ({
            sliceId: slice.sliceId,
            checkId: slice.checkId,
            status: (slice.paused
              ? 'paused'
              : slice.state?.status ?? 'unknown') as HealthStatus,
          })),
        };
        if (event.from === event.to) {
          return undefined;
        }
        await this.#tell(event, slices);
        return event;
      }
      if (attempt === MOVE_ATTEMPTS) {
        // Instances keep overtaking each other; the sweep repairs what is left.
        return undefined;
      }
      slices = await this.#store.readEnvironmentSlices([
        { systemRef, environment },
      ]);
      if (slices.length === 0) {
        return undefined;
      }
      before = (await this.#store.readEnvironmentStates(systemRef)).get(
        environment,
      )?.status;
    }
  }

  async #tell(event: EnvironmentChangedEvent, slices: EnvironmentSlice[]) {
    this.#logger.info(
      `${event.systemRef} in ${event.environment}: ${event.from} -> ${event.to}`,
    );
    // The owner is told first: publishing starts the rollup's window, and
    // an instance that dies after that must not have left the owner untold
    // (the stored status has moved; nobody would tell them again).
    if (!(await this.#held(event, slices))) {
      await this.#notify(event, slices);
    }
    try {
      await this.#events?.publish({
        topic: ENVIRONMENT_CHANGED_TOPIC,
        eventPayload: event,
      });
    } catch (error) {
      this.#logger.warn(
        `Could not publish the change of ${event.systemRef} in ${event.environment}`,
        error as Error,
      );
    }
  }

  /**
   * Tells the owner, after maintenance held it back, how an environment is
   * now, if that is not how it was before (`from`) and no maintenance
   * holds it still; returns the transition told, if any.
   */
  async notifyAfterHold(held: {
    systemRef: string;
    environment: string;
    from: HealthStatus;
  }): Promise<EnvironmentChangedEvent | undefined> {
    const slices = await this.#store.readEnvironmentSlices([
      { systemRef: held.systemRef, environment: held.environment },
    ]);
    if (slices.length === 0) {
      return undefined;
    }
    const verdict = environmentVerdict(slices);
    if (verdict.status === held.from) {
      return undefined;
    }
    const event: EnvironmentChangedEvent = {
      systemRef: held.systemRef,
      environment: held.environment,
      from: held.from,
      to: verdict.status,
      at: new Date(this.#now()).toISOString(),
      slices: verdict.responsible.map(slice => ({
        sliceId: slice.sliceId,
        checkId: slice.checkId,
        status: (slice.state?.status ?? 'unknown') as HealthStatus,
      })),
    };
    if (await this.#held(event, slices)) {
      return undefined;
    }
    await this.#notify(event, slices);
    return event;
  }

  async #held(
    event: EnvironmentChangedEvent,
    slices: EnvironmentSlice[],
  ): Promise<boolean> {
    try {
      return (await this.#hold?.holds(event, slices)) ?? false;
    } catch (error) {
      // Better told during maintenance than never.
      this.#logger.warn(
        `Could not tell whether maintenance holds the notification of ${event.systemRef} in ${event.environment}`,
        error as Error,
      );
      return false;
    }
  }

  async #notify(event: EnvironmentChangedEvent, slices: EnvironmentSlice[]) {
    if (!this.#notifications) {
      return;
    }
    try {
      const upstreamRefs = this.#rollups
        ? await this.#rollups.upstreamOf(event.systemRef)
        : [];
      const upstream = await Promise.all(
        upstreamRefs.map(async ref => ({
          systemRef: ref,
          status: ((await this.#rollups?.get(ref))?.status ??
            'unknown') as HealthStatus,
        })),
      );
      // The environment's reasons, as its rollup would list them.
      const { reasons } = computeRollup({
        systemRef: event.systemRef,
        slices,
        environmentSince: new Map(),
        upstream: [],
        now: this.#now(),
      });
      const unhealthyUpstream = upstream.filter(u => u.status === 'unhealthy');
      // Where the failing checks' components belong decides whether an
      // unhealthy upstream system explains the outage; ask the catalog only
      // when the answer can matter. Without an answer the owner is still
      // told, as if the failing checks targeted nothing upstream.
      const targeted = componentsOfFailingChecks(reasons);
      const systemOfComponent =
        unhealthyUpstream.length > 0 && targeted.length > 0 && this.#rollups
          ? await this.#rollups.systemsOfComponents(targeted).catch(error => {
              this.#logger.warn(
                `Could not read the systems of ${targeted.join(', ')}`,
                error,
              );
              return new Map<string, string>();
            })
          : new Map<string, string>();
      const notification = buildEnvironmentNotification(
        {
          systemRef: event.systemRef,
          environment: event.environment,
          from: event.from,
          to: event.to,
          reasons,
          upstream: unhealthyUpstream,
          systemOfComponent,
        },
        this.#settings,
      );
      if (notification) {
        await this.#notifications.send({
          recipients: { type: 'entity', entityRef: notification.entityRef },
          payload: notification.payload,
        });
      }
    } catch (error) {
      this.#logger.warn(
        `Could not notify about ${event.systemRef} in ${event.environment}`,
        error as Error,
      );
    }
  }
}
