import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { parseEntityRef } from '@backstage/catalog-model';
import {
  ENVIRONMENT_CHANGED_TOPIC,
  EnvironmentChangedEvent,
  SYSTEM_STATUS_CHANGED_TOPIC,
} from '@vigil/plugin-healthcheck-common';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import type { DesiredSlice } from '../model';
import {
  DEMO_SLICES as SLICES,
  eventually,
  healthTestbed,
  sliceOf,
} from './__testUtils__/healthTestbed';
import { createRunFollowUp } from './runFollowUp';
import type { RunRecord } from '../model';

jest.setTimeout(60_000);

describe('health rollup', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const testbed = healthTestbed(databases);
  const { setup, setStatus, otherStore, instance } = testbed;

  afterAll(async () => {
    await testbed.close();
  });

  it.each(databases.eachSupportedId())(
    'publishes one change per environment transition, and notifies once per transition in a scope of its own, on %p',
    async databaseId => {
      const { store, catalog } = await setup(databaseId);
      const a = instance(store, catalog, 'a');
      const [production, staging] = SLICES;
      await setStatus(store, production, 'healthy');
      await setStatus(store, staging, 'healthy');
      await a.transitions.checkSystems(['system:default/payments']);
      expect(
        a.events
          .of(ENVIRONMENT_CHANGED_TOPIC)
          .map((e: any) => `${e.environment} ${e.from}->${e.to}`),
      ).toEqual(['production unknown->healthy', 'staging unknown->healthy']);
      expect(a.notifications.sent).toEqual([]);

      for (const status of ['unhealthy', 'healthy', 'unhealthy'] as const) {
        await setStatus(store, production, status, '[STATUS] (500) == 200');
        await setStatus(store, staging, status, '[STATUS] (500) == 200');
        await a.transitions.check([production, staging]);
        // Checked again with nothing new: no second event.
        await a.transitions.check([production, staging]);
      }
      const changes = a.events.of(
        ENVIRONMENT_CHANGED_TOPIC,
      ) as EnvironmentChangedEvent[];
      expect(changes.map(e => `${e.environment} ${e.from}->${e.to}`)).toEqual([
        'production unknown->healthy',
        'staging unknown->healthy',
        'production healthy->unhealthy',
        'staging healthy->unhealthy',
        'production unhealthy->healthy',
        'staging unhealthy->healthy',
        'production healthy->unhealthy',
        'staging healthy->unhealthy',
      ]);
      expect(changes[2].slices).toEqual([
        {
          sliceId: production.id,
          checkId: 'payments-health',
          status: 'unhealthy',
        },
      ]);
      // Each environment's notifications come in order; the two
      // environments are delivered side by side.
      const sentIn = (environment: string) =>
        a.notifications.sent
          .filter(n => n.payload.scope.includes(`:${environment}:`))
          .map(n => ({
            title: n.payload.title,
            severity: n.payload.severity,
            scope: n.payload.scope,
          }));
      // A repeated delivery of a transition updates its notification: the
      // scope names the system, the environment and the transition's time.
      const scopeOf = (e: EnvironmentChangedEvent) =>
        `healthcheck:system:default/payments:${e.environment}:${Date.parse(
          e.at,
        )}`;
      expect(sentIn('production')).toEqual([
        {
          title: 'payments in production is unhealthy',
          severity: 'high',
          scope: scopeOf(changes[2]),
        },
        {
          title: 'payments in production recovered',
          severity: 'low',
          scope: scopeOf(changes[4]),
        },
        {
          title: 'payments in production is unhealthy',
          severity: 'high',
          scope: scopeOf(changes[6]),
        },
      ]);
      expect(sentIn('staging')).toEqual([
        {
          title: 'payments in staging is unhealthy',
          severity: 'normal',
          scope: scopeOf(changes[3]),
        },
        {
          title: 'payments in staging recovered',
          severity: 'low',
          scope: scopeOf(changes[5]),
        },
        {
          title: 'payments in staging is unhealthy',
          severity: 'normal',
          scope: scopeOf(changes[7]),
        },
      ]);
      const sent = a.notifications.sent;
      expect(new Set(sent.map(n => n.payload.scope)).size).toBe(6);
      expect(a.notifications.sent[0].recipients).toEqual({
        type: 'entity',
        entityRef: 'system:default/payments',
      });

      // The rollup never notifies, whatever its status does.
      const before = a.notifications.sent.length;
      await a.rollups.recompute('system:default/payments');
      expect(a.notifications.sent).toHaveLength(before);
    },
  );

  it.each(databases.eachSupportedId())(
    'judges again when another instance moved the status first from states it read before this run was written, on %p',
    async databaseId => {
      const first = sliceOf('payments-health', 'payments', 'production');
      const second = sliceOf('payments-latency', 'payments', 'production');
      const { knex, store, catalog } = await setup(databaseId, [first, second]);
      const a = instance(store, catalog, 'a');
      const other = otherStore(knex);
      await setStatus(store, first, 'healthy');
      await setStatus(store, second, 'healthy');
      // Instance b ran `first` while `second` had no state yet: its verdict
      // was unknown, and its compare-and-set lands between a's read of the
      // stored status and a's own compare-and-set.
      const readStates = store.readEnvironmentStates.bind(store);
      jest
        .spyOn(store, 'readEnvironmentStates')
        .mockImplementationOnce(async systemRef => {
          const read = await readStates(systemRef);
          await other.transitionEnvironment({
            systemRef: 'system:default/payments',
            environment: 'production',
            from: undefined,
            to: 'unknown',
            at: Date.now(),
          });
          return read;
        });

      const made = await a.transitions.check([second]);

      expect(made.map(e => `${e.from}->${e.to}`)).toEqual(['unknown->healthy']);
      const stored = await store.readEnvironmentStates(
        'system:default/payments',
      );
      expect(stored.get('production')?.status).toBe('healthy');
    },
  );

  it.each(databases.eachSupportedId())(
    'lets one of two instances that see the same change publish it, on %p',
    async databaseId => {
      const { knex, store, catalog } = await setup(databaseId);
      const a = instance(store, catalog, 'a');
      const b = instance(otherStore(knex), catalog, 'b');
      const [production] = SLICES;
      await setStatus(store, production, 'unhealthy', 'down');
      const [fromA, fromB] = await Promise.all([
        a.transitions.check([production]),
        b.transitions.check([production]),
      ]);
      expect(fromA.length + fromB.length).toBe(1);
      // A new slice found down tells its owner, once.
      expect(a.notifications.sent.length + b.notifications.sent.length).toBe(1);
    },
  );

  it.each(databases.eachSupportedId())(
    'recomputes once and announces once for ten environment changes across two instances in one window, on %p',
    async databaseId => {
      const { knex, store, catalog } = await setup(databaseId);
      const a = instance(store, catalog, 'a', { windowMs: 1_000 });
      const b = instance(otherStore(knex), catalog, 'b', { windowMs: 1_000 });
      await setStatus(store, SLICES[0], 'unhealthy', '[STATUS] (500) == 200');
      // Start just after a window boundary, so all ten fall in one window.
      const now = Date.now();
      await new Promise(resolve =>
        setTimeout(resolve, 1_000 - (now % 1_000) + 20),
      );
      const event = (environment: string): EnvironmentChangedEvent => ({
        systemRef: 'system:default/payments',
        environment,
        from: 'healthy',
        to: 'unhealthy',
        at: new Date().toISOString(),
        slices: [],
      });
      await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          (i % 2 === 0 ? a : b).consumer.onEnvironmentChanged(
            event(i % 2 === 0 ? 'production' : 'staging'),
          ),
        ),
      );
      await eventually(() => a.rollups.recomputes + b.rollups.recomputes > 0);
      // A second recompute, if the window let one through, is due by now too.
      await new Promise(resolve => setTimeout(resolve, 1_000));
      await Promise.all([a.consumer.stop(), b.consumer.stop()]);

      expect(a.rollups.recomputes + b.rollups.recomputes).toBe(1);
      const announced = [
        ...a.events.of(SYSTEM_STATUS_CHANGED_TOPIC),
        ...b.events.of(SYSTEM_STATUS_CHANGED_TOPIC),
      ];
      expect(announced).toEqual([
        expect.objectContaining({
          type: 'SYSTEM_STATUS_CHANGED',
          systemRef: 'system:default/payments',
          from: 'unknown',
          to: 'unhealthy',
        }),
      ]);
      expect(await store.readRollup('system:default/payments')).toMatchObject({
        status: 'unhealthy',
        reasons: [
          {
            checkId: 'payments-health',
            environment: 'production',
            display: '[STATUS] (500) == 200',
          },
        ],
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'attributes a system’s trouble to the unhealthy systems it depends on in the demo catalog, on %p',
    async databaseId => {
      const { store, catalog } = await setup(databaseId);
      const a = instance(store, catalog, 'a');
      expect(await a.rollups.upstreamOf('system:default/checkout')).toEqual([
        'system:default/messaging',
        'system:default/payments',
      ]);
      await setStatus(store, SLICES[0], 'unhealthy', 'down');
      await setStatus(store, SLICES[1], 'healthy');
      await setStatus(store, SLICES[2], 'unhealthy', 'payment step fails');
      await setStatus(store, SLICES[3], 'healthy');
      await a.rollups.recompute('system:default/payments');
      await a.rollups.recompute('system:default/messaging');
      const checkout = await a.rollups.recompute('system:default/checkout');
      expect(checkout.upstream).toEqual([
        { systemRef: 'system:default/payments', status: 'unhealthy' },
      ]);

      // A notification about checkout says payments is the likely cause.
      await setStatus(store, SLICES[2], 'healthy');
      await a.transitions.check([SLICES[2]]);
      await setStatus(store, SLICES[2], 'unhealthy', 'payment step fails');
      await a.transitions.check([SLICES[2]]);
      const last = a.notifications.sent[a.notifications.sent.length - 1];
      expect(last.payload.title).toBe(
        'checkout in production is unhealthy (upstream)',
      );
      expect(last.payload.description).toContain(
        'Probably upstream: system:default/payments (through component:default/payments-service) is unhealthy.',
      );
      expect(parseEntityRef(last.recipients.entityRef).name).toBe('checkout');
    },
  );

  it.each(databases.eachSupportedId())(
    'does not blame an unhealthy upstream system that the failing checks do not target, unless configured to, on %p',
    async databaseId => {
      const { store, catalog } = await setup(databaseId);
      // Messaging is upstream of checkout (checkout-service depends on the
      // event bus), but checkout-health targets checkout and payments only.
      const targets = instance(store, catalog, 'a');
      const any = instance(store, catalog, 'b', {
        notificationSettings: { upstreamAttribution: 'any' },
      });
      await setStatus(store, SLICES[0], 'healthy');
      await setStatus(store, SLICES[1], 'healthy');
      await setStatus(store, SLICES[3], 'unhealthy', 'broker down');
      await targets.rollups.recompute('system:default/payments');
      const messaging = await targets.rollups.recompute(
        'system:default/messaging',
      );
      expect(messaging.status).toBe('unhealthy');

      const titles: string[] = [];
      for (const side of [targets, any]) {
        await setStatus(store, SLICES[2], 'healthy');
        await side.transitions.check([SLICES[2]]);
        await setStatus(store, SLICES[2], 'unhealthy', 'payment step fails');
        await side.transitions.check([SLICES[2]]);
        titles.push(side.notifications.sent.at(-1).payload.title);
      }
      expect(titles).toEqual([
        'checkout in production is unhealthy',
        'checkout in production is unhealthy (upstream)',
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'never stores an older computation over a newer one, on %p',
    async databaseId => {
      const { store } = await setup(databaseId);
      const rollup = (status: 'healthy' | 'unhealthy', at: number) => ({
        systemRef: 'system:default/payments',
        status,
        environments: [],
        reasons: [],
        healthy: 0,
        total: 0,
        upstream: [],
        updatedAt: new Date(at).toISOString(),
        since: new Date(at).toISOString(),
      });
      expect(
        (await store.writeRollup(rollup('unhealthy', 2_000), 2_000)).stored,
      ).toBe(true);
      expect(
        (await store.writeRollup(rollup('healthy', 1_000), 1_000)).stored,
      ).toBe(false);
      expect(await store.readRollup('system:default/payments')).toMatchObject({
        status: 'unhealthy',
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'refreshes the reasons when another slice fails in an environment that was already unhealthy, on %p',
    async databaseId => {
      const { store, catalog, slices } = await setup(databaseId);
      const a = instance(store, catalog, 'a', { windowMs: 300 });
      const followUp = createRunFollowUp({
        store,
        transitions: a.transitions,
        logger: mockServices.logger.mock(),
        requestRollup: ref => a.consumer.requestRecompute(ref),
      });
      const second = sliceOf('payments-latency', 'payments', 'production');
      await slices.applyChanges({
        write: [{ paused: false, slice: second }],
        remove: [],
      });
      const run = (slice: DesiredSlice, display: string) => {
        const scheduledAt = testbed.nextScheduledAt();
        return {
          sliceId: slice.id,
          checkId: slice.checkId,
          systemRef: slice.systemRef,
          environment: slice.environment,
          scheduledAt,
          startedAt: scheduledAt,
          durationMs: 5,
          outcome: 'fail',
          status: 'unhealthy',
          previousStatus: 'healthy',
          statusChanged: true,
          state: {
            status: 'unhealthy',
            consecutiveFailures: 2,
            consecutiveSuccesses: 0,
            since: scheduledAt,
            lastOutcome: 'fail',
          },
          conditions: [
            {
              condition: '[STATUS] == 200',
              severity: 'unhealthy',
              success: false,
              display,
            },
          ],
        } as unknown as RunRecord;
      };
      const reasonsShown = async () =>
        (await store.readRollup('system:default/payments'))?.reasons.map(
          r => r.display,
        ) ?? [];
      await followUp([run(SLICES[0], '[STATUS] (500) == 200')]);
      await eventually(async () =>
        (await reasonsShown()).includes('[STATUS] (500) == 200'),
      );
      // The environment stays unhealthy; only the reasons grow.
      await followUp([run(second, '[STATUS] (503) == 200')]);
      await eventually(async () =>
        (await reasonsShown()).includes('[STATUS] (503) == 200'),
      );
      await a.consumer.stop();
      const rollup = await store.readRollup('system:default/payments');
      expect(rollup?.reasons.map(r => r.display)).toEqual(
        expect.arrayContaining([
          '[STATUS] (500) == 200',
          '[STATUS] (503) == 200',
        ]),
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'keeps telling the owner until the notifications service accepts, in the scope of the transition, on %p',
    async databaseId => {
      const { store, catalog } = await setup(databaseId);
      const a = instance(store, catalog, 'a');
      const [production] = SLICES;
      await setStatus(store, production, 'healthy');
      await a.transitions.checkSystems(['system:default/payments']);
      const send = a.notifications.send;
      let refusals = 1;
      a.notifications.send = async notification => {
        if (refusals-- > 0) {
          // What the notifications router answers while it shuts down.
          throw new Error('Request failed with 503 Service Unavailable');
        }
        await send(notification);
      };

      await setStatus(store, production, 'unhealthy', 'down');
      const [made] = await a.transitions.check([production]);
      expect(a.notifications.sent).toHaveLength(0);
      // Another instance delivers it, once its retry falls due.
      const b = instance(store, catalog, 'b');
      await eventually(async () => {
        await b.deliver();
        return b.notifications.sent.length > 0;
      });

      expect(b.notifications.sent.map(n => n.payload.scope)).toEqual([
        `healthcheck:system:default/payments:production:${Date.parse(made.at)}`,
      ]);
      // The change itself was published at once: it does not wait for the owner.
      expect(a.events.of(ENVIRONMENT_CHANGED_TOPIC)).toHaveLength(2);
    },
  );

  it.each(databases.eachSupportedId())(
    'keeps the latest state of a slice whose runs after an outage come in one batch, on %p',
    async databaseId => {
      const { store, catalog } = await setup(databaseId);
      const a = instance(store, catalog, 'a');
      const followUp = createRunFollowUp({
        store,
        transitions: a.transitions,
        logger: mockServices.logger.mock(),
      });
      const [production] = SLICES;
      const runAt = (scheduledAt: number, status: 'healthy' | 'unhealthy') =>
        ({
          sliceId: production.id,
          checkId: production.checkId,
          systemRef: production.systemRef,
          environment: production.environment,
          scheduledAt,
          startedAt: scheduledAt,
          durationMs: 5,
          outcome: status === 'healthy' ? 'pass' : 'fail',
          status,
          statusChanged: false,
          state: {
            status,
            consecutiveFailures: status === 'healthy' ? 0 : 2,
            consecutiveSuccesses: status === 'healthy' ? 3 : 0,
            since: scheduledAt,
            lastOutcome: status === 'healthy' ? 'pass' : 'fail',
          },
          conditions: [],
        } as unknown as RunRecord);
      const first = testbed.nextScheduledAt();
      const second = testbed.nextScheduledAt();
      const third = testbed.nextScheduledAt();

      await followUp([
        runAt(first, 'healthy'),
        runAt(third, 'unhealthy'),
        runAt(second, 'healthy'),
      ]);

      const states = await store.readSliceStates([production.id]);
      expect(states.get(production.id)).toMatchObject({
        status: 'unhealthy',
        lastScheduledAt: third,
      });
      await a.consumer.stop();
    },
  );
});
