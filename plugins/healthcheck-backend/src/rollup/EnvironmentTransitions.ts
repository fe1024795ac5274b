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
import type { NotificationSettings } from './buildNotification';
import { computeRollup, environmentVerdict } from './computeRollup';
import type { RollupService } from './RollupService';
import type { EnvironmentSlice } from '../model';
import type { OutboxDispatcher, OutboxWriter } from '../outbox';
import {
  ENVIRONMENT_NOTIFICATION_KIND,
  NotificationHold,
  OwnerNotifier,
} from './OwnerNotifier';

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

/** The outbox kind of a transition's `healthcheck.environment.changed` event. @internal */
export const ENVIRONMENT_CHANGED_KIND = 'environment-changed';

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
  readonly #outbox: OutboxWriter;
  /** Tells owners; none without a notifications service. */
  readonly notifier?: OwnerNotifier;
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
    this.#outbox = options.outbox;
    this.#now = options.now ?? Date.now;
    this.notifier = options.notifications
      ? new OwnerNotifier({
          store: options.store,
          notifications: options.notifications,
          rollups: options.rollups,
          settings: options.notificationSettings,
          hold: options.notificationHold,
          outbox: options.outbox,
          logger: options.logger,
          now: this.#now,
        })
      : undefined;
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

  /** The outbox entries of a transition: its event, and what owners are told. */
  #effectsOf(event: EnvironmentChangedEvent, slices: EnvironmentSlice[]) {
    return [
      {
        stream: JSON.stringify([
          'environment-changed',
          event.systemRef,
          event.environment,
        ]),
        kind: ENVIRONMENT_CHANGED_KIND,
        payload: event as unknown,
      },
      ...(this.notifier?.entriesOf(event, this.#reasonsOf(event, slices)) ??
        []),
    ];
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
      event && this.notifier
        ? this.notifier
            .entriesOf(event, this.#reasonsOf(event, slices))
            .filter(e => e.kind === ENVIRONMENT_NOTIFICATION_KIND)
        : [];
    await this.#outbox.transaction(async tx => {
      await drop(tx);
      await this.#outbox.write(effects, at, tx);
    });
    this.#outbox.wake();
    return effects.length > 0 ? event : undefined;
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
  for (const [kind, delivery] of Object.entries(
    transitions.notifier?.deliveries() ?? {},
  )) {
    outbox.handle(kind, delivery);
  }
}
