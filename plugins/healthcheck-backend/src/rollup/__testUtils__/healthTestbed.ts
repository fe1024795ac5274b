import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import {
  Entity,
  parseEntityRef,
  stringifyEntityRef,
} from '@backstage/catalog-model';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import type { EventParams, EventsService } from '@backstage/plugin-events-node';
import {
  canonicalComponentRefs,
  encodeSliceId,
} from '@vigil/plugin-healthcheck-common';
import knexFactory, { Knex } from 'knex';
import { DatabaseSliceStore } from '../../database/DatabaseSliceStore';
import { DatabaseStateStore } from '../../database/DatabaseStateStore';
import type { SliceStatus } from '../../judge';
import { readDemoCatalog } from '../../reconciler/__testUtils__/demoCatalog';
import type { DesiredSlice } from '../../model';
import {
  DEFAULT_NOTIFICATION_SETTINGS,
  NotificationSettings,
} from '../buildNotification';
import { EnvironmentTransitions } from '../EnvironmentTransitions';
import { liveKeysUnder } from '../liveKeys';
import { RollupConsumer } from '../RollupConsumer';
import { handleSystemAnnouncements, RollupService } from '../RollupService';
import type { StoredSliceState } from '../../model';
import { testOutbox } from '../../__testUtils__/testOutbox';
import { handleTransitionEffects } from '../EnvironmentTransitions';

/**
 * Waits until `ready` holds, or `withinMs` has passed: the expectations after
 * it say what was missing. Timers fire late on a busy machine, so a fixed
 * sleep is no proof that a debounced recompute has run.
 */
export async function eventually(
  ready: () => boolean | Promise<boolean>,
  withinMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + withinMs;
  while (!(await ready()) && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 25));
  }
}

/** The catalog's stitching, for the relation the rollup reads. */
export function withDependsOnRelations(entities: Entity[]): Entity[] {
  return entities.map(entity => {
    const dependsOn = (entity.spec?.dependsOn ?? []) as string[];
    return {
      ...entity,
      // In full, as the catalog writes relations of short refs.
      relations: dependsOn.map(target => ({
        type: 'dependsOn',
        targetRef: stringifyEntityRef(
          parseEntityRef(target, {
            defaultNamespace: entity.metadata.namespace ?? 'default',
          }),
        ).toLowerCase(),
      })),
    };
  });
}

/** An events service that keeps what is published, and its subscribers. */
export class RecordingEvents implements EventsService {
  readonly published: EventParams[] = [];
  readonly subscribers: Array<(event: EventParams) => Promise<void>> = [];

  async publish(params: EventParams): Promise<void> {
    this.published.push(params);
  }

  async subscribe(options: {
    onEvent: (event: EventParams) => Promise<void>;
  }): Promise<void> {
    this.subscribers.push(options.onEvent);
  }

  of(topic: string) {
    return this.published
      .filter(event => event.topic === topic)
      .map(event => event.eventPayload);
  }
}

/** The components a HealthCheck of the demo catalog targets, as the reconciler stores them. */
export function componentsOfDemoCheck(name: string): string[] {
  const check = readDemoCatalog().find(
    e => e.kind === 'HealthCheck' && e.metadata.name === name,
  );
  if (!check) {
    throw new Error(`No HealthCheck ${name} in the demo catalog`);
  }
  return canonicalComponentRefs(check.spec?.components as string[]);
}

/** A running slice of a system of the demo catalog. */
export function sliceOf(
  checkId: string,
  system: string,
  environment: string,
  components?: string[],
): DesiredSlice {
  const key = {
    checkId,
    systemRef: `system:default/${system}`,
    environment,
  };
  return {
    id: encodeSliceId(key),
    ...key,
    intervalMs: 10_000,
    timeoutMs: 2_000,
    type: 'http',
    target: 'http://127.0.0.1:7010/health',
    config: {},
    conditions: ['[STATUS] == 200'],
    thresholds: {},
    configHash: 'h',
    ...(components && { components }),
  };
}

/** Payments in production and staging, checkout and messaging in production. */
export const DEMO_SLICES = [
  sliceOf('payments-health', 'payments', 'production'),
  sliceOf('payments-health', 'payments', 'staging'),
  // Checkout's deep health check targets payments-service as well.
  sliceOf(
    'checkout-health',
    'checkout',
    'production',
    componentsOfDemoCheck('checkout-health'),
  ),
  sliceOf('messaging-health', 'messaging', 'production'),
];

/** What one backend instance runs of the health rollup, and what it told. */
export interface HealthInstance {
  events: RecordingEvents;
  notifications: { sent: any[]; send(notification: any): Promise<void> };
  rollups: RollupService;
  transitions: EnvironmentTransitions;
  consumer: RollupConsumer;
  /** Delivers what the instance's outbox holds (any instance's entries). */
  deliver(): Promise<void>;
}

/**
 * The health rollup on a test database: the demo slices stored, and
 * instances of the rollup's services around it, each telling a recorder.
 */
export function healthTestbed(databases: TestDatabases) {
  const extraClients: Knex[] = [];
  /** The client of each store made here, for the instances' outboxes. */
  const clientOf = new WeakMap<DatabaseStateStore, Knex>();
  let scheduledAt = Date.UTC(2026, 11, 1, 12, 0, 0);

  /** Another instance's client: its own pool on PostgreSQL, as another process has. */
  function otherClient(knex: Knex): Knex {
    const config = knex.client.config as Knex.Config;
    if (config.client !== 'pg') {
      return knex;
    }
    const other = knexFactory({
      client: 'pg',
      connection: config.connection,
      pool: { min: 0, max: 3 },
    });
    extraClients.push(other);
    return other;
  }

  /** A grid time after every earlier one, so each state follows the last. */
  function nextScheduledAt(): number {
    scheduledAt += 10_000;
    return scheduledAt;
  }

  return {
    async setup(
      databaseId: TestDatabaseId,
      slices: readonly DesiredSlice[] = DEMO_SLICES,
    ) {
      const knex = await databases.init(databaseId);
      const database = mockServices.database({
        knex,
        migrations: { skip: false },
      });
      const sliceStore = await DatabaseSliceStore.create({ database });
      await sliceStore.applyChanges({
        write: slices.map(slice => ({ paused: false, slice })),
        remove: [],
      });
      const store = await DatabaseStateStore.create({ database });
      clientOf.set(store, knex);
      const catalog = catalogServiceMock({
        entities: withDependsOnRelations(readDemoCatalog()),
      });
      return { knex, store, catalog, slices: sliceStore };
    },

    otherClient,
    nextScheduledAt,

    /** A store on `knex` itself, that {@link instance} can give an outbox. */
    storeOn(knex: Knex): DatabaseStateStore {
      const store = new DatabaseStateStore(knex);
      clientOf.set(store, knex);
      return store;
    },

    /** Another instance's store, on its own client (see `otherClient`). */
    otherStore(knex: Knex): DatabaseStateStore {
      const client = otherClient(knex);
      const store = new DatabaseStateStore(client);
      clientOf.set(store, client);
      return store;
    },

    instance(
      store: DatabaseStateStore,
      catalog: CatalogService,
      name: string,
      options: {
        windowMs?: number;
        notificationSettings?: Partial<NotificationSettings>;
        now?: () => number;
      } = {},
    ): HealthInstance {
      const events = new RecordingEvents();
      const sent: any[] = [];
      const notifications = {
        sent,
        send: async (notification: any) => {
          sent.push(notification);
        },
      };
      const logger = mockServices.logger.mock();
      const knex = clientOf.get(store);
      if (!knex) {
        throw new Error(
          'Make the store with setup(), storeOn() or otherStore()',
        );
      }
      const outbox = testOutbox(knex, { now: options.now });
      const rollups = new RollupService({
        store,
        catalog,
        auth: mockServices.auth(),
        logger,
        events,
        outbox: outbox.dispatcher,
        liveKeyOf: liveKeysUnder(Buffer.alloc(32)),
        now: options.now,
      });
      handleSystemAnnouncements(outbox.dispatcher, rollups);
      // Each recompute too is followed by the outbox's delivery.
      const recompute = rollups.recompute.bind(rollups);
      rollups.recompute = async systemRef => {
        const rollup = await recompute(systemRef);
        await outbox.deliver();
        return rollup;
      };
      const transitions = new EnvironmentTransitions({
        store,
        logger,
        events,
        notifications,
        rollups,
        // Told at once: a test delivers when it says, not after a settle.
        notificationSettings: {
          ...DEFAULT_NOTIFICATION_SETTINGS,
          upstreamSettleMs: 0,
          ...options.notificationSettings,
        },
        outbox: outbox.dispatcher,
        now: options.now,
      });
      handleTransitionEffects(outbox.dispatcher, transitions);
      // Each check is followed by the outbox's delivery, as the wake after
      // its commit makes the dispatcher deliver in production.
      const check = transitions.check.bind(transitions);
      transitions.check = async environments => {
        const made = await check(environments);
        await outbox.deliver();
        return made;
      };
      const consumer = new RollupConsumer({
        store,
        rollups,
        logger,
        instanceId: name,
        windowMs: options.windowMs ?? 400,
        now: options.now,
      });
      return {
        events,
        notifications,
        rollups,
        transitions,
        consumer,
        deliver: outbox.deliver,
      };
    },

    /** Stores the state a run of `slice` judged, after every earlier one. */
    async setStatus(
      store: DatabaseStateStore,
      slice: Pick<DesiredSlice, 'id' | 'checkId' | 'systemRef' | 'environment'>,
      status: SliceStatus,
      lastReason?: string,
    ) {
      const at = nextScheduledAt();
      const state: StoredSliceState = {
        sliceId: slice.id,
        checkId: slice.checkId,
        systemRef: slice.systemRef,
        environment: slice.environment,
        status,
        consecutiveFailures: status === 'unhealthy' ? 2 : 0,
        consecutiveSuccesses: status === 'unhealthy' ? 0 : 1,
        since: at,
        lastOutcome: status === 'unhealthy' ? 'fail' : 'pass',
        lastScheduledAt: at,
        lastRunAt: at + 3,
        lastDurationMs: 12,
        lastReason,
      };
      await store.writeSliceStates([state]);
    },

    /** Closes the clients {@link otherClient} opened. */
    async close() {
      await Promise.all(extraClients.map(client => client.destroy()));
    },
  };
}
