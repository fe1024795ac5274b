import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import type { EnvironmentChangedEvent } from '@vigil/plugin-healthcheck-common';
import { catalogServiceMock } from '@backstage/plugin-catalog-node/testUtils';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import {
  DEMO_SLICES,
  healthTestbed,
} from '../rollup/__testUtils__/healthTestbed';
import { testOutbox } from '../__testUtils__/testOutbox';
import {
  EnvironmentTransitions,
  handleTransitionEffects,
} from '../rollup/EnvironmentTransitions';
import { DatabaseMaintenanceStore } from './DatabaseMaintenanceStore';
import { MaintenanceCalendar } from './MaintenanceCalendar';
import { MaintenanceNotificationHold } from './MaintenanceNotificationHold';

jest.setTimeout(60_000);

const [production, staging] = DEMO_SLICES;
const START = Date.parse('2026-12-05T10:00:00Z');
const minutes = (n: number) => n * 60_000;

describe('notifications during maintenance', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const testbed = healthTestbed(databases);
  afterAll(() => testbed.close());

  /** Payments in production, with a 30-minute window opened through the API at START. */
  async function setup(databaseId: Parameters<typeof testbed.setup>[0]) {
    const { knex, store } = await testbed.setup(databaseId);
    const clock = { now: START };
    const now = () => clock.now;
    const maintenanceStore = await DatabaseMaintenanceStore.create({
      database: mockServices.database({ knex, migrations: { skip: false } }),
      now,
    });
    const calendar = new MaintenanceCalendar({
      catalog: catalogServiceMock({ entities: [] }),
      auth: mockServices.auth(),
      store: maintenanceStore,
      logger: mockServices.logger.mock(),
      now,
      refreshMs: 0,
    });
    const hold = new MaintenanceNotificationHold({
      calendar,
      store: maintenanceStore,
      now,
    });
    const sent: any[] = [];
    const outbox = testOutbox(knex, { now });
    const transitions = new EnvironmentTransitions({
      store,
      logger: mockServices.logger.mock(),
      notifications: { send: async (n: any) => void sent.push(n) } as any,
      notificationHold: hold,
      outbox: outbox.dispatcher,
      now,
    });
    handleTransitionEffects(outbox.dispatcher, transitions);
    /** The titles of the notifications sent, once the outbox is delivered. */
    const titles = async () => {
      await outbox.deliver();
      return sent.map(n => n.payload.title);
    };
    /** Checks environments, and delivers what that wrote to the outbox. */
    const check = async (
      slices: ReadonlyArray<{ systemRef: string; environment: string }>,
    ): Promise<EnvironmentChangedEvent[]> => {
      const made = await transitions.check(slices);
      await outbox.deliver();
      return made;
    };
    const release = async () => {
      const told = await hold.releaseDue(
        transitions,
        mockServices.logger.mock(),
      );
      await outbox.deliver();
      return told;
    };
    await testbed.setStatus(store, production, 'healthy');
    await testbed.setStatus(store, staging, 'healthy');
    await check([production, staging]);
    await maintenanceStore.create({
      systemRef: 'system:default/payments',
      environments: ['production'],
      startsAt: START,
      endsAt: START + minutes(30),
      createdBy: 'user:default/alice',
    });
    const setStatus = (
      slice: typeof production,
      status: 'healthy' | 'unhealthy',
    ) => testbed.setStatus(store, slice, status, '[STATUS] (500) == 200');
    return { clock, check, titles, release, setStatus, maintenanceStore };
  }

  it.each(databases.eachSupportedId())(
    'holds a failure inside the window and tells it when the window ends while it still fails, on %p',
    async databaseId => {
      const { clock, check, titles, release, setStatus } = await setup(
        databaseId,
      );

      clock.now = START + minutes(5);
      await setStatus(production, 'unhealthy');
      await setStatus(staging, 'unhealthy');
      const made = await check([production, staging]);
      // The status moves in both; only staging, outside the window, is told.
      expect(made.map(e => `${e.environment} ${e.from}->${e.to}`)).toEqual([
        'production healthy->unhealthy',
        'staging healthy->unhealthy',
      ]);
      expect(await titles()).toEqual(['payments in staging is unhealthy']);

      clock.now = START + minutes(29);
      expect(await release()).toBe(0);

      clock.now = START + minutes(30);
      expect(await release()).toBe(1);
      expect(await titles()).toEqual([
        'payments in staging is unhealthy',
        'payments in production is unhealthy',
      ]);
      // Told once.
      clock.now = START + minutes(40);
      expect(await release()).toBe(0);
      expect(await titles()).toHaveLength(2);
    },
  );

  it.each(databases.eachSupportedId())(
    'tells nothing of a failure that recovered inside the window, on %p',
    async databaseId => {
      const { clock, check, titles, release, setStatus } = await setup(
        databaseId,
      );
      clock.now = START + minutes(5);
      await setStatus(production, 'unhealthy');
      await check([production]);
      clock.now = START + minutes(15);
      await setStatus(production, 'healthy');
      await check([production]);
      clock.now = START + minutes(31);
      expect(await release()).toBe(0);
      expect(await titles()).toEqual([]);
    },
  );

  it.each(databases.eachSupportedId())(
    'keeps holding while an overlapping window goes on, and tells a recovery of a failure told before the window, on %p',
    async databaseId => {
      const { clock, check, titles, release, setStatus, maintenanceStore } =
        await setup(databaseId);
      await maintenanceStore.create({
        systemRef: 'system:default/payments',
        startsAt: START + minutes(20),
        endsAt: START + minutes(60),
        createdBy: 'user:default/alice',
      });
      clock.now = START + minutes(5);
      await setStatus(production, 'unhealthy');
      await check([production]);
      clock.now = START + minutes(30);
      await release();
      expect(await titles()).toEqual([]); // the second window holds it on
      clock.now = START + minutes(60);
      await release();
      expect(await titles()).toEqual(['payments in production is unhealthy']);

      // Told before a window, recovered inside it: the owner hears of it.
      await maintenanceStore.create({
        systemRef: 'system:default/payments',
        startsAt: START + minutes(70),
        endsAt: START + minutes(80),
        createdBy: 'user:default/alice',
      });
      clock.now = START + minutes(75);
      await setStatus(production, 'healthy');
      await check([production]);
      expect(await titles()).toEqual([
        'payments in production is unhealthy',
        'payments in production recovered',
      ]);
    },
  );
});
