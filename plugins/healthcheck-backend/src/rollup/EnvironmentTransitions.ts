import { LoggerService } from '@backstage/backend-plugin-api';
import { EventsService } from '@backstage/plugin-events-node';
import type { Knex } from 'knex';
import pLimit from 'p-limit';
import { NotificationService } from '@backstage/plugin-notifications-node';
import {
  ENVIRONMENT_CHANGED_TOPIC,
  EnvironmentChangedEvent,
  HealthStatus,
  RollupReason,
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
import type { OutboxDispatcher, OutboxWriter } from '../outbox';

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
 * The outbox kinds of an environment's transition: the owner's
 * notification, and the `healthcheck.environment.changed` event.
 * @internal
 */
export const ENVIRONMENT_NOTIFICATION_KIND = 'environment-notification';
/** @internal */
export const ENVIRONMENT_CHANGED_KIND = 'environment-changed';

/**
 * What an environment notification's outbox entry holds: the transition,
 * and the reasons as they were when it was made.
 * @internal
 */
export interface EnvironmentNotificationEntry {
  event: EnvironmentChangedEvent;
  reasons: RollupReason[];
}

/**
 * Whether a transition can call for a notification (or end a held one):
 * into or out of `unhealthy`; first runs, degradations and pauses notify
 * nobody and stay out of the outbox.
 */
function mayNotify(from: HealthStatus, to: HealthStatus): boolean {
  return from === 'unhealthy' || to === 'unhealthy';
}

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
 * change, one publishes it) and, in the same transaction, writes what the
 * move calls for to the outbox: the `healthcheck.environment.changed`
 * event and the owner's notification, delivered from there (see
 * {@link EnvironmentTransitions.deliverNotification}) until accepted, by
 * whichever instance is alive. Never the rollup's job.
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
  readonly #outbox: OutboxWriter;
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
    /** Where a transition's event and notification wait for delivery. */
    outbox: OutboxWriter;
    now?: () => number;
  }) {
    this.#store = options.store;
    this.#logger = options.logger;
    this.#events = options.events;
    this.#notifications = options.notifications;
    this.#rollups = options.rollups;
    this.#settings = options.notificationSettings;
    this.#hold = options.notificationHold;
    this.#outbox = options.outbox;
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
      // A first verdict of `unknown` stores a row and tells nothing.
      const effects =
        event.from === event.to ? [] : this.#effectsOf(event, slices);
      const won = await this.#store.transitionEnvironment(
        { systemRef, environment, from: before, to: verdict.status, at },
        tx => this.#outbox.write(effects, at, tx),
      );
      if (won && effects.length === 0) {
        return undefined;
      }
      if (won) {
        this.#logger.info(
          `${systemRef} in ${environment}: ${event.from} -> ${event.to}`,
        );
        this.#outbox.wake();
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

  /** The outbox entries of a transition: its event, and its notification. */
  #effectsOf(event: EnvironmentChangedEvent, slices: EnvironmentSlice[]) {
    // JSON: unambiguous whatever the names hold.
    const streamOf = (effect: string) =>
      JSON.stringify([effect, event.systemRef, event.environment]);
    const effects = [
      {
        stream: streamOf('environment-changed'),
        kind: ENVIRONMENT_CHANGED_KIND,
        payload: event,
      },
    ];
    if (this.#notifications && mayNotify(event.from, event.to)) {
      effects.push({
        stream: streamOf('notification'),
        kind: ENVIRONMENT_NOTIFICATION_KIND,
        payload: {
          event,
          reasons: this.#reasonsOf(event, slices),
        } satisfies EnvironmentNotificationEntry as any,
      });
    }
    return effects;
  }

  /** The environment's reasons, as its rollup would list them. */
  #reasonsOf(
    event: EnvironmentChangedEvent,
    slices: EnvironmentSlice[],
  ): RollupReason[] {
    return computeRollup({
      systemRef: event.systemRef,
      slices,
      environmentSince: new Map(),
      upstream: [],
      now: this.#now(),
    }).reasons;
  }

  /** Publishes a transition's `healthcheck.environment.changed` event. */
  async deliverChange(event: EnvironmentChangedEvent): Promise<void> {
    await this.#events?.publish({
      topic: ENVIRONMENT_CHANGED_TOPIC,
      eventPayload: event,
    });
  }

  /**
   * Tells the owner of a transition, unless maintenance holds it back; a
   * failure throws, and the outbox delivers it again later.
   */
  async deliverNotification(
    entry: EnvironmentNotificationEntry,
  ): Promise<void> {
    const { event } = entry;
    const slices = await this.#store.readEnvironmentSlices([
      { systemRef: event.systemRef, environment: event.environment },
    ]);
    if (await this.#held(event, slices)) {
      return;
    }
    await this.#notify(entry);
  }

  /**
   * Ends a hold that fell due: drops it (`drop`, in the same transaction)
   * and, if the environment is no longer how it was before (`from`), writes
   * the owner's notification of how it is now to the outbox, whose
   * delivery holds it anew if maintenance goes on. Returns the transition
   * to be told, if any.
   */
  async releaseHeld(
    held: {
      systemRef: string;
      environment: string;
      from: HealthStatus;
    },
    drop: (tx: Knex.Transaction) => Promise<unknown>,
  ): Promise<EnvironmentChangedEvent | undefined> {
    const slices = await this.#store.readEnvironmentSlices([
      { systemRef: held.systemRef, environment: held.environment },
    ]);
    const verdict = slices.length > 0 ? environmentVerdict(slices) : undefined;
    const at = this.#now();
    const event: EnvironmentChangedEvent | undefined =
      verdict && verdict.status !== held.from
        ? {
            systemRef: held.systemRef,
            environment: held.environment,
            from: held.from,
            to: verdict.status,
            at: new Date(at).toISOString(),
            slices: verdict.responsible.map(slice => ({
              sliceId: slice.sliceId,
              checkId: slice.checkId,
              status: (slice.state?.status ?? 'unknown') as HealthStatus,
            })),
          }
        : undefined;
    const effects =
      event && this.#notifications
        ? this.#effectsOf(event, slices).filter(
            e => e.kind === ENVIRONMENT_NOTIFICATION_KIND,
          )
        : [];
    await this.#outbox.transaction(async tx => {
      await drop(tx);
      await this.#outbox.write(effects, at, tx);
    });
    this.#outbox.wake();
    return effects.length > 0 ? event : undefined;
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

  async #notify(entry: EnvironmentNotificationEntry): Promise<void> {
    if (!this.#notifications) {
      return;
    }
    const { event, reasons } = entry;
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
        at: event.at,
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
  }
}

/**
 * Says how the outbox delivers a transition's effects: its event, and the
 * owner's notification.
 * @internal
 */
export function handleTransitionEffects(
  outbox: Pick<OutboxDispatcher, 'handle'>,
  transitions: EnvironmentTransitions,
): void {
  outbox.handle(ENVIRONMENT_CHANGED_KIND, event =>
    transitions.deliverChange(event),
  );
  outbox.handle(ENVIRONMENT_NOTIFICATION_KIND, entry =>
    transitions.deliverNotification(entry),
  );
}
