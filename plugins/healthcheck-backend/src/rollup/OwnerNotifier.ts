import { LoggerService } from '@backstage/backend-plugin-api';
import { NotificationService } from '@backstage/plugin-notifications-node';
import { parseEntityRef } from '@backstage/catalog-model';
import {
  EnvironmentChangedEvent,
  RollupReason,
} from '@vigil/plugin-healthcheck-common';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { OutboxDelivery, OutboxWriter } from '../outbox';
import {
  buildEnvironmentNotification,
  DEFAULT_NOTIFICATION_SETTINGS,
  healthTabOf,
  NotificationSettings,
  transitionScope,
  upstreamIncidentScope,
} from './buildNotification';
import { explainUpstream, UpstreamExplanation } from './upstreamCause';
import type { RollupService } from './RollupService';
import type { EnvironmentSlice } from '../model';

/** The outbox kinds the owner's notices are delivered as. @internal */
export const ENVIRONMENT_NOTIFICATION_KIND = 'environment-notification';
/** @internal */
export const ENVIRONMENT_REMINDER_KIND = 'environment-reminder';
/** @internal */
export const UPSTREAM_FOLLOW_UP_KIND = 'upstream-follow-up';

/** How often a held-back outage looks whether its upstream recovered. */
const FOLLOW_UP_CHECK_MS = 30_000;

/**
 * What an environment notification's outbox entry holds: the transition,
 * and the reasons as they were when it was made.
 * @internal
 */
export interface EnvironmentNotificationEntry {
  event: EnvironmentChangedEvent;
  reasons: RollupReason[];
}

/** An outage held back for an upstream incident, waiting for its end. */
interface UpstreamFollowUpEntry extends EnvironmentNotificationEntry {
  upstream: { systemRef: string; since: number };
}

type UpstreamReads = Pick<
  RollupService,
  'upstreamOf' | 'get' | 'systemsOfComponents'
>;

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

/** What the notifier reads and keeps of environments. @internal */
export type NoticeStore = Pick<
  DatabaseStateStore,
  | 'readEnvironmentSlices'
  | 'readEnvironmentStates'
  | 'readEnvironmentStatesOf'
  | 'readNotice'
  | 'writeNotice'
  | 'dropNotice'
>;

const becameUnhealthy = (event: EnvironmentChangedEvent) =>
  event.to === 'unhealthy' && event.from !== 'unhealthy';
const recovered = (event: EnvironmentChangedEvent) =>
  event.from === 'unhealthy' && event.to !== 'unhealthy';

/**
 * Tells owners what their environments' transitions mean to them, as the
 * outbox delivers the transitions: an outage once (in the scope of its
 * transition, or of the upstream incident that explains it, so the flips
 * of one upstream incident update one notification), held back while
 * maintenance covers it, or while an upstream explains it under
 * `suppressUpstream` (then told once if still failing `upstreamGrace`
 * after the upstream recovered); reminders while it lasts (`remindAfter`);
 * the recovery of every outage told, in its outage's scope when that was
 * an upstream incident's. What was told of an outage under way is kept
 * (`healthcheck_environment_notices`) so its recovery and reminders find it.
 * @internal
 */
export class OwnerNotifier {
  readonly #store: NoticeStore;
  readonly #notifications: Pick<NotificationService, 'send'>;
  readonly #rollups?: UpstreamReads;
  readonly #settings: NotificationSettings;
  readonly #hold?: NotificationHold;
  readonly #outbox: OutboxWriter;
  readonly #logger: LoggerService;
  readonly #now: () => number;

  constructor(options: {
    store: NoticeStore;
    notifications: Pick<NotificationService, 'send'>;
    /** For the systems this one depends on, and the systems of components. */
    rollups?: UpstreamReads;
    settings?: NotificationSettings;
    hold?: NotificationHold;
    outbox: OutboxWriter;
    logger: LoggerService;
    now?: () => number;
  }) {
    this.#store = options.store;
    this.#notifications = options.notifications;
    this.#rollups = options.rollups;
    this.#settings = options.settings ?? DEFAULT_NOTIFICATION_SETTINGS;
    this.#hold = options.hold;
    this.#outbox = options.outbox;
    this.#logger = options.logger;
    this.#now = options.now ?? Date.now;
  }

  /** The deliveries of the kinds above, for the outbox. */
  deliveries(): Record<string, OutboxDelivery> {
    return {
      [ENVIRONMENT_NOTIFICATION_KIND]: entry => this.deliverTransition(entry),
      [ENVIRONMENT_REMINDER_KIND]: entry => this.deliverReminder(entry),
      [UPSTREAM_FOLLOW_UP_KIND]: entry => this.deliverFollowUp(entry),
    };
  }

  /**
   * The outbox entries a transition calls for besides its event: its
   * notification (into or out of `unhealthy`), and a reminder of an outage
   * when reminders are on.
   */
  entriesOf(event: EnvironmentChangedEvent, reasons: RollupReason[]) {
    const entries: Array<{
      stream: string;
      kind: string;
      payload: unknown;
      dueAt?: number;
    }> = [];
    if (event.from !== 'unhealthy' && event.to !== 'unhealthy') {
      return entries;
    }
    const payload: EnvironmentNotificationEntry = { event, reasons };
    entries.push({
      stream: streamOf('notification', event),
      kind: ENVIRONMENT_NOTIFICATION_KIND,
      payload,
    });
    const remindAfterMs = this.#settings.remindAfterMs;
    if (remindAfterMs && becameUnhealthy(event)) {
      entries.push({
        stream: streamOf('reminder', event),
        kind: ENVIRONMENT_REMINDER_KIND,
        payload,
        dueAt: Date.parse(event.at) + remindAfterMs,
      });
    }
    return entries;
  }

  /** Tells the owner of a transition what it calls for. */
  async deliverTransition(
    entry: EnvironmentNotificationEntry,
  ): Promise<void | { again: number }> {
    const { event } = entry;
    const slices = await this.#store.readEnvironmentSlices([
      { systemRef: event.systemRef, environment: event.environment },
    ]);
    if (await this.#held(event, slices)) {
      return undefined;
    }
    if (becameUnhealthy(event)) {
      return await this.#tellOutage(entry);
    }
    if (recovered(event)) {
      await this.#tellRecovery(entry);
    }
    return undefined;
  }

  /**
   * Reminds the owner of an outage still under way (the same transition,
   * still unhealthy) in the scope it was told in, and comes back after
   * another `remindAfter`; an outage never told (held back) is not
   * reminded of, but looked at again.
   */
  async deliverReminder(
    entry: EnvironmentNotificationEntry,
  ): Promise<void | { again: number }> {
    const { event } = entry;
    const remindAfterMs = this.#settings.remindAfterMs;
    if (!remindAfterMs || !(await this.#stillTheOutage(event))) {
      return undefined;
    }
    const notice = await this.#store.readNotice(
      event.systemRef,
      event.environment,
    );
    const now = this.#now();
    if (notice?.scope) {
      const since = Date.parse(event.at);
      await this.#notifications.send({
        recipients: { type: 'entity', entityRef: event.systemRef },
        payload: {
          title: `${nameOf(event.systemRef)} in ${
            event.environment
          } is still unhealthy`,
          description: `Unhealthy for ${formatHours(now - since)}, since ${
            event.at
          }. ${describeReasons(entry.reasons)}`.trim(),
          link: healthTabOf(event.systemRef),
          severity: 'normal',
          topic: 'healthcheck',
          scope: notice.scope,
        },
      });
    }
    return { again: now + remindAfterMs };
  }

  /**
   * Tells an outage held back for an upstream incident once the upstream
   * recovered `upstreamGrace` ago and the environment still fails; looks
   * again every 30 s until then; nothing once the environment recovered
   * or moved on.
   */
  async deliverFollowUp(
    entry: UpstreamFollowUpEntry,
  ): Promise<void | { again: number }> {
    const { event, upstream } = entry;
    if (!(await this.#stillTheOutage(event))) {
      return undefined;
    }
    const now = this.#now();
    const upstreamState = (
      await this.#store.readEnvironmentStates(upstream.systemRef)
    ).get(event.environment);
    if (upstreamState?.status === 'unhealthy') {
      return { again: now + FOLLOW_UP_CHECK_MS };
    }
    const recoveredAt = upstreamState?.since ?? now;
    const tellAt = recoveredAt + this.#settings.upstreamGraceMs;
    if (now < tellAt) {
      return { again: tellAt };
    }
    const scope = transitionScope(event.systemRef, event.environment, event.at);
    await this.#notifications.send({
      recipients: { type: 'entity', entityRef: event.systemRef },
      payload: {
        title: `${nameOf(event.systemRef)} in ${
          event.environment
        } is still unhealthy after ${upstream.systemRef} recovered`,
        description: `${upstream.systemRef} recovered ${formatHours(
          now - recoveredAt,
        )} ago; this outage is the system's own. ${describeReasons(
          entry.reasons,
        )}`.trim(),
        link: healthTabOf(event.systemRef),
        severity: this.#production(event.environment) ? 'high' : 'normal',
        topic: 'healthcheck',
        scope,
      },
    });
    await this.#store.writeNotice({
      systemRef: event.systemRef,
      environment: event.environment,
      scope,
      at: Date.parse(event.at),
    });
    return undefined;
  }

  async #tellOutage(
    entry: EnvironmentNotificationEntry,
  ): Promise<void | { again: number }> {
    const { event, reasons } = entry;
    const at = Date.parse(event.at);
    const upstreamRefs = this.#rollups
      ? await this.#rollups.upstreamOf(event.systemRef)
      : [];
    // Systems that fail together are judged one after another: give the
    // ones this one depends on a moment to show that they fail first.
    const settledAt = at + this.#settings.upstreamSettleMs;
    if (upstreamRefs.length > 0 && this.#now() < settledAt) {
      return { again: settledAt };
    }
    const explained = await this.#explain(
      event.environment,
      reasons,
      upstreamRefs,
    );
    const incident = explained.cause;
    if (incident && this.#settings.suppressUpstream) {
      // Nothing now; told once if it outlasts the upstream incident.
      await this.#store.writeNotice({
        systemRef: event.systemRef,
        environment: event.environment,
        upstreamRef: incident.systemRef,
        upstreamSince: incident.since,
        at,
      });
      const followUp: UpstreamFollowUpEntry = { ...entry, upstream: incident };
      await this.#outbox.transaction(tx =>
        this.#outbox.write(
          [
            {
              stream: streamOf('upstream-follow-up', event),
              kind: UPSTREAM_FOLLOW_UP_KIND,
              payload: followUp,
              dueAt: this.#now() + FOLLOW_UP_CHECK_MS,
            },
          ],
          this.#now(),
          tx,
        ),
      );
      return undefined;
    }
    const notification = buildEnvironmentNotification(
      {
        ...changeOf(event),
        reasons,
        upstream: explained.unhealthy,
        systemOfComponent: explained.systemOfComponent,
        scope:
          incident && this.#settings.groupUpstreamIncidents
            ? upstreamIncidentScope(
                event.systemRef,
                event.environment,
                incident,
              )
            : undefined,
      },
      { ...this.#settings, suppressUpstream: false },
    );
    if (!notification) {
      return undefined;
    }
    await this.#notifications.send({
      recipients: { type: 'entity', entityRef: notification.entityRef },
      payload: notification.payload,
    });
    await this.#store.writeNotice({
      systemRef: event.systemRef,
      environment: event.environment,
      scope: notification.payload.scope,
      upstreamRef: incident?.systemRef,
      upstreamSince: incident?.since,
      at,
    });
    return undefined;
  }

  /**
   * Tells a recovery of an outage the owner was told of: in the upstream
   * incident's scope when the outage was put down to one (the owner's one
   * notification of it now says recovered), else in its own.
   */
  async #tellRecovery(entry: EnvironmentNotificationEntry): Promise<void> {
    const { event, reasons } = entry;
    const notice = await this.#store.readNotice(
      event.systemRef,
      event.environment,
    );
    if (notice && !notice.scope) {
      // Held back for an upstream and never told: nothing ends for the owner.
      await this.#store.dropNotice(event.systemRef, event.environment);
      return;
    }
    const notification = buildEnvironmentNotification(
      {
        ...changeOf(event),
        reasons,
        upstream: [],
        scope:
          notice?.upstreamRef && this.#settings.groupUpstreamIncidents
            ? notice.scope
            : undefined,
      },
      this.#settings,
    );
    if (notification) {
      await this.#notifications.send({
        recipients: { type: 'entity', entityRef: notification.entityRef },
        payload: notification.payload,
      });
    }
    await this.#store.dropNotice(event.systemRef, event.environment);
  }

  /** Whether the environment is still in the outage `event` began. */
  async #stillTheOutage(event: EnvironmentChangedEvent): Promise<boolean> {
    const state = (
      await this.#store.readEnvironmentStates(event.systemRef)
    ).get(event.environment);
    return (
      state?.status === 'unhealthy' && state.since === Date.parse(event.at)
    );
  }

  /** What explains an outage upstream (see {@link explainUpstream}). */
  async #explain(
    environment: string,
    reasons: readonly RollupReason[],
    upstreamRefs: readonly string[],
  ): Promise<UpstreamExplanation> {
    const rollups = this.#rollups;
    if (!rollups) {
      return { unhealthy: [], systemOfComponent: new Map() };
    }
    return await explainUpstream({
      environment,
      reasons,
      upstreamRefs,
      readStates: refs => this.#store.readEnvironmentStatesOf(refs),
      readRollup: ref => rollups.get(ref),
      // Without an answer, as if the checks targeted nothing upstream.
      systemsOfComponents: refs =>
        rollups.systemsOfComponents(refs).catch(error => {
          this.#logger.warn(
            `Could not read the systems of ${refs.join(', ')}`,
            error,
          );
          return new Map<string, string>();
        }),
      attribution: this.#settings.upstreamAttribution,
    });
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

  #production(environment: string): boolean {
    return this.#settings.productionEnvironments.some(
      env => env.toLowerCase() === environment.toLowerCase(),
    );
  }
}

/** The stream of one kind of notice of an environment; JSON is unambiguous. */
function streamOf(
  effect: string,
  event: Pick<EnvironmentChangedEvent, 'systemRef' | 'environment'>,
): string {
  return JSON.stringify([effect, event.systemRef, event.environment]);
}

function changeOf(event: EnvironmentChangedEvent) {
  return {
    systemRef: event.systemRef,
    environment: event.environment,
    from: event.from,
    to: event.to,
    at: event.at,
  };
}

function nameOf(systemRef: string): string {
  return parseEntityRef(systemRef).name;
}

function describeReasons(reasons: readonly RollupReason[]): string {
  const failing = reasons
    .filter(r => r.status === 'unhealthy')
    .map(r => `${r.checkId}: ${r.display}`);
  return failing.length > 0 ? `Failing: ${failing.join('; ')}.` : '';
}

/** `3 h 20 min`, `12 min`. */
function formatHours(ms: number): string {
  const minutes = Math.max(0, Math.round(ms / 60_000));
  const hours = Math.floor(minutes / 60);
  return hours > 0 ? `${hours} h ${minutes % 60} min` : `${minutes} min`;
}
