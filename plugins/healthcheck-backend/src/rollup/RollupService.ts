import { AuthService, LoggerService } from '@backstage/backend-plugin-api';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { EventsService } from '@backstage/plugin-events-node';
import { SignalsService } from '@backstage/plugin-signals-node';
import {
  HealthStatus,
  SYSTEM_STATUS_CHANGED_TOPIC,
  SYSTEM_STATUS_SIGNAL_CHANNEL,
  SystemRollup,
  SystemStatusChangedEvent,
  SystemStatusSignal,
} from '@vigil/plugin-healthcheck-common';
import { LRUCache } from 'lru-cache';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { SystemReadModel } from '../readModel/SystemReadModel';
import { LastKnownReads } from '../database/LastKnownReads';
import { computeRollup } from './computeRollup';
import type { UpstreamAttribution } from './buildNotification';
import { explainUpstream } from './upstreamCause';
import type { LiveKeyOf } from './liveKeys';
import { systemsOfComponents, upstreamSystems } from './upstreamSystems';
import type { OutboxDispatcher, OutboxWriter } from '../outbox';

/** The outbox kind of a system's status change: its event and signal. @internal */
export const SYSTEM_STATUS_CHANGED_KIND = 'system-status-changed';

/**
 * How long a read rollup is served from memory: every instance sees
 * another's rollups within this time.
 */
const CACHE_TTL_MS = 2_000;

/** Systems whose rollup is kept in memory at most. */
const READ_CACHE_SIZE = 20_000;

/**
 * How long a system's upstream systems are reused. Finding them costs three
 * catalog requests, and a burst of changes asks about each system twice (for
 * its notifications and for its rollup); `dependsOn` changes rarely, and
 * the rollup tolerates a change that shows up to 30 s late.
 */
const UPSTREAM_TTL_MS = 30_000;

/**
 * Recomputes and serves system rollups. A recompute reads durable state
 * only, stores the result unless a later computation already did, and on a
 * status change tells the rest of Backstage, through the outbox written in
 * the rollup's own transaction: the backend through events, with the whole
 * rollup; browsers through a signal that carries only the system's opaque
 * live key, since every browser receives it.
 *
 * Reads degrade while the database cannot be read: a rollup read that
 * fails (or takes over 5 s) answers the last one read of the system,
 * `stale: true`, and a 503 only for a system never read.
 * @internal
 */
export class RollupService {
  readonly #store: DatabaseStateStore;
  readonly #catalog: CatalogService;
  readonly #auth: AuthService;
  readonly #logger: LoggerService;
  readonly #events?: EventsService;
  readonly #signals?: SignalsService;
  readonly #outbox?: OutboxWriter;
  readonly #upstreamAttribution: UpstreamAttribution;
  readonly #liveKeyOf: LiveKeyOf;
  readonly #readModel?: Pick<SystemReadModel, 'read' | 'lastHeld' | 'current'>;
  readonly #now: () => number;
  /** Stored rollups, wrapped: lru-cache keeps no `undefined`. */
  readonly #rollups: LRUCache<string, { rollup?: SystemRollup }>;
  readonly #upstream: LRUCache<string, string[]>;
  /** The last rollup read of each system, for when the database cannot be. */
  readonly #lastKnown: LastKnownReads<SystemRollup | undefined>;
  /** Recomputes, for tests and metrics. */
  recomputes = 0;

  constructor(options: {
    store: DatabaseStateStore;
    catalog: CatalogService;
    auth: AuthService;
    logger: LoggerService;
    events?: EventsService;
    signals?: SignalsService;
    /** Where status changes wait to be announced; none are without it. */
    outbox?: OutboxWriter;
    /** How an environment's outage is put down to an upstream system. */
    upstreamAttribution?: UpstreamAttribution;
    /** The live key of a system, which its signals carry. */
    liveKeyOf: LiveKeyOf;
    /**
     * Where rollups are read while it is current, instead of the database:
     * every instance's in-memory model, kept current from every change.
     */
    readModel?: Pick<SystemReadModel, 'read' | 'lastHeld' | 'current'>;
    now?: () => number;
  }) {
    this.#store = options.store;
    this.#catalog = options.catalog;
    this.#auth = options.auth;
    this.#logger = options.logger;
    this.#events = options.events;
    this.#signals = options.signals;
    this.#outbox = options.outbox;
    this.#upstreamAttribution = options.upstreamAttribution ?? 'targets';
    this.#liveKeyOf = options.liveKeyOf;
    this.#readModel = options.readModel;
    this.#now = options.now ?? Date.now;
    // Bounded: badge requests may name any system, existing or not.
    this.#rollups = new LRUCache<string, { rollup?: SystemRollup }>({
      max: READ_CACHE_SIZE,
      ttl: CACHE_TTL_MS,
      perf: { now: this.#now },
      ttlResolution: 0,
    });
    this.#lastKnown = new LastKnownReads({
      what: 'rollup',
      max: READ_CACHE_SIZE,
      logger: options.logger,
    });
    this.#upstream = new LRUCache<string, string[]>({
      max: 100_000,
      ttl: UPSTREAM_TTL_MS,
      // The clock tests set, read every time.
      perf: { now: this.#now },
      ttlResolution: 0,
      // Concurrent asks for one system share one lookup; a failed one is
      // not remembered.
      fetchMethod: async systemRef =>
        await upstreamSystems({
          catalog: this.#catalog,
          credentials: await this.#auth.getOwnServiceCredentials(),
          systemRef,
        }),
    });
  }

  /**
   * The stored rollup of a system: from the read model while it is current,
   * else read and briefly cached; the last one known, `stale: true`, while
   * the database cannot be read.
   * @throws ServiceUnavailableError when the database cannot be read and
   *   this instance never knew the system's rollup
   */
  async get(systemRef: string): Promise<SystemRollup | undefined> {
    const key = systemRef.toLowerCase();
    const view = this.#readModel?.read(key);
    if (view) {
      return view.rollup;
    }
    const cached = this.#rollups.get(key);
    if (cached) {
      return cached.rollup;
    }
    const { value: rollup, stale } = await this.#lastKnown
      .read(key, () => this.#store.readRollup(key))
      .catch(error => {
        // The model lost the database too, and still holds what it knew.
        const held = this.#readModel?.lastHeld(key)?.rollup;
        if (held) {
          return { value: held, stale: true };
        }
        throw error;
      });
    if (stale) {
      return rollup && { ...rollup, stale: true };
    }
    this.#rollups.set(key, { rollup });
    return rollup;
  }

  /**
   * The stored rollups of many systems (lower-case refs), in one read; the
   * last ones read while the database cannot be read, and then `stale`.
   * @throws ServiceUnavailableError when the database cannot be read and
   *   this instance never read any of the systems
   */
  async getMany(
    systemRefs: readonly string[],
  ): Promise<{ rollups: Map<string, SystemRollup>; stale: boolean }> {
    const keys = systemRefs.map(ref => ref.toLowerCase());
    if (this.#readModel?.current) {
      const rollups = new Map<string, SystemRollup>();
      for (const key of keys) {
        const rollup = this.#readModel.lastHeld(key)?.rollup;
        if (rollup) {
          rollups.set(key, rollup);
        }
      }
      return { rollups, stale: false };
    }
    const { values, stale } = await this.#lastKnown.readMany(
      keys,
      () => this.#store.readRollups(keys),
      undefined,
    );
    const rollups = new Map<string, SystemRollup>();
    for (const [key, rollup] of values) {
      if (rollup) {
        rollups.set(key, stale ? { ...rollup, stale: true } : rollup);
      }
    }
    return { rollups, stale };
  }

  /**
   * The rollup of a system the catalog has, also before it has any checks
   * (then `unknown` with no slices); `undefined` for a system the catalog
   * does not have.
   */
  async getOrEmpty(systemRef: string): Promise<SystemRollup | undefined> {
    const stored = await this.get(systemRef);
    if (stored) {
      return stored;
    }
    const entity = await this.#catalog.getEntityByRef(systemRef.toLowerCase(), {
      credentials: await this.#auth.getOwnServiceCredentials(),
    });
    if (!entity || entity.kind.toLowerCase() !== 'system') {
      return undefined;
    }
    return computeRollup({
      systemRef,
      slices: [],
      environmentSince: new Map(),
      upstream: [],
      now: this.#now(),
    });
  }

  /**
   * The upstream systems of a system, as the catalog said at most 30 s ago.
   */
  async upstreamOf(systemRef: string): Promise<string[]> {
    return (await this.#upstream.fetch(systemRef.toLowerCase()))!;
  }

  /** The system of each component, as the catalog says today (see `systemsOfComponents`). */
  async systemsOfComponents(
    componentRefs: readonly string[],
  ): Promise<Map<string, string>> {
    return await systemsOfComponents({
      catalog: this.#catalog,
      credentials: await this.#auth.getOwnServiceCredentials(),
      componentRefs,
    });
  }

  /** Recomputes one system's rollup from durable state and stores it. */
  async recompute(systemRef: string): Promise<SystemRollup> {
    const key = systemRef.toLowerCase();
    this.recomputes += 1;
    const computedAt = this.#now();
    const [slices, environmentSince, previous, upstreamRefs] =
      await Promise.all([
        this.#store.readEnvironmentSlices([{ systemRef: key }]),
        this.#store.readEnvironmentStates(key),
        this.#store.readRollup(key),
        this.upstreamOf(key).catch(error => {
          this.#logger.warn(
            `Could not read the upstream systems of ${key} from the catalog`,
            error,
          );
          return [] as string[];
        }),
      ]);
    const upstreamRollups = await this.#store.readRollups(upstreamRefs);
    const inputs = {
      systemRef: key,
      slices,
      environmentSince,
      upstream: upstreamRefs.map(ref => ({
        systemRef: ref,
        status: upstreamRollups.get(ref)?.status ?? ('unknown' as HealthStatus),
      })),
      previous,
      now: computedAt,
    };
    let rollup = computeRollup(inputs);
    const causes = await this.#causesOf(rollup, upstreamRefs, upstreamRollups);
    if (causes.size > 0) {
      rollup = computeRollup({ ...inputs, causes });
    }
    let announced: SystemStatusChangedEvent | undefined;
    const written = await this.#store.writeRollup(
      rollup,
      computedAt,
      async (tx, stored) => {
        const from = stored?.status ?? 'unknown';
        if (from === rollup.status || !this.#outbox) {
          return;
        }
        announced = {
          type: 'SYSTEM_STATUS_CHANGED',
          systemRef: key,
          from,
          to: rollup.status,
          rollup,
        };
        await this.#outbox.write(
          [
            {
              stream: JSON.stringify([SYSTEM_STATUS_CHANGED_KIND, key]),
              kind: SYSTEM_STATUS_CHANGED_KIND,
              payload: announced,
            },
          ],
          computedAt,
          tx,
        );
      },
    );
    this.#rollups.delete(key);
    if (!written.stored) {
      return rollup;
    }
    this.#lastKnown.remember(key, rollup);
    if (announced) {
      this.#logger.info(`System ${key}: ${announced.from} -> ${announced.to}`);
      this.#outbox?.wake();
    }
    return rollup;
  }

  /**
   * The upstream system that explains each unhealthy environment's outage,
   * as its owner's notification puts it (see `explainUpstream`).
   */
  async #causesOf(
    rollup: SystemRollup,
    upstreamRefs: readonly string[],
    upstreamRollups: ReadonlyMap<string, SystemRollup>,
  ): Promise<Map<string, string>> {
    const causes = new Map<string, string>();
    if (upstreamRefs.length === 0) {
      return causes;
    }
    for (const environment of rollup.environments) {
      if (environment.status !== 'unhealthy') {
        continue;
      }
      const { cause } = await explainUpstream({
        environment: environment.name,
        reasons: rollup.reasons.filter(r => r.environment === environment.name),
        upstreamRefs,
        readStates: refs => this.#store.readEnvironmentStatesOf(refs),
        readRollup: async ref => upstreamRollups.get(ref),
        systemsOfComponents: refs =>
          this.systemsOfComponents(refs).catch(() => new Map()),
        attribution: this.#upstreamAttribution,
      });
      if (cause) {
        causes.set(environment.name, cause.systemRef);
      }
    }
    return causes;
  }

  /**
   * Announces a system's status change: the event and the browsers'
   * signal; throws if either failed, and the outbox announces it again.
   */
  async deliverAnnouncement(event: SystemStatusChangedEvent): Promise<void> {
    const results = await Promise.allSettled([
      this.#events?.publish({
        topic: SYSTEM_STATUS_CHANGED_TOPIC,
        eventPayload: event,
      }),
      this.#signals?.publish({
        recipients: { type: 'broadcast' },
        channel: SYSTEM_STATUS_SIGNAL_CHANNEL,
        message: {
          type: 'SYSTEM_STATUS_CHANGED',
          liveKey: this.#liveKeyOf(event.systemRef),
        } satisfies SystemStatusSignal,
      }),
    ]);
    const failed = results.find(result => result.status === 'rejected');
    if (failed) {
      throw (failed as PromiseRejectedResult).reason;
    }
  }
}

/**
 * Says how the outbox announces a system's status change.
 * @internal
 */
export function handleSystemAnnouncements(
  outbox: Pick<OutboxDispatcher, 'handle'>,
  rollups: RollupService,
): void {
  outbox.handle(SYSTEM_STATUS_CHANGED_KIND, event =>
    rollups.deliverAnnouncement(event),
  );
}
