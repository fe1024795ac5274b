import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { migrateDown, migrateUp } from '../database/migrations';
import {
  DatabaseMaintenanceStore,
  MAX_OPEN_WINDOWS_PER_SYSTEM,
} from './DatabaseMaintenanceStore';

jest.setTimeout(60_000);

const alice = 'user:default/alice';
const bob = 'user:default/bob';
const minutes = (n: number) => n * 60_000;

describe('DatabaseMaintenanceStore', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  async function createStore(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const clock = { now: 1_800_000_000_000 };
    const database = mockServices.database({
      knex,
      migrations: { skip: false },
    });
    const store = await DatabaseMaintenanceStore.create({
      database,
      now: () => clock.now,
    });
    return { knex, store, clock };
  }

  it.each(databases.eachSupportedId())(
    'stores a window and lists it until it ends, on %p',
    async databaseId => {
      const { store, clock } = await createStore(databaseId);
      const created = await store.create({
        systemRef: 'System:default/Payments',
        environments: ['production'],
        startsAt: clock.now,
        endsAt: clock.now + minutes(30),
        reason: 'Deploying 4.2',
        createdBy: alice,
      });
      expect(created).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        systemRef: 'system:default/payments',
        environments: ['production'],
        startsAt: clock.now,
        endsAt: clock.now + minutes(30),
        reason: 'Deploying 4.2',
        createdBy: alice,
        createdAt: clock.now,
      });
      expect(await store.get(created.id)).toEqual(created);
      expect(
        await store.list({
          endingAfter: clock.now,
          systemRefs: ['system:default/payments'],
        }),
      ).toEqual([created]);
      expect(
        await store.list({
          endingAfter: clock.now,
          systemRefs: ['system:default/shop'],
        }),
      ).toEqual([]);
      expect(
        await store.list({ endingAfter: clock.now + minutes(30) }),
      ).toEqual([]);
    },
  );

  it.each(databases.eachSupportedId())(
    'ends a window early, once, and one not begun never happens, on %p',
    async databaseId => {
      const { store, clock } = await createStore(databaseId);
      const now = await store.create({
        systemRef: 'system:default/payments',
        startsAt: clock.now,
        endsAt: clock.now + minutes(30),
        createdBy: alice,
      });
      const later = await store.create({
        systemRef: 'system:default/payments',
        startsAt: clock.now + minutes(60),
        endsAt: clock.now + minutes(90),
        createdBy: alice,
      });
      clock.now += minutes(10);

      expect(await store.end(now.id, bob)).toMatchObject({
        endsAt: clock.now,
        endedBy: bob,
      });
      expect(await store.get(now.id)).toMatchObject({
        endsAt: clock.now,
        endedBy: bob,
      });
      await expect(store.end(now.id, bob)).rejects.toThrow(
        /is already over \(it ended at 2027-01-15T08:10:00.000Z\)/,
      );
      expect(await store.end(later.id, bob)).toMatchObject({
        endsAt: later.startsAt,
      });
      await expect(store.end('nope', bob)).rejects.toThrow(
        "There is no maintenance window with id 'nope'",
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'brings the notifications a window held forward to its early end, only of its environments, on %p',
    async databaseId => {
      const { store, clock } = await createStore(databaseId);
      const deploy = await store.create({
        systemRef: 'system:default/payments',
        environments: ['production'],
        startsAt: clock.now,
        endsAt: clock.now + minutes(30),
        createdBy: alice,
      });
      for (const environment of ['production', 'staging']) {
        await store.hold({
          systemRef: 'system:default/payments',
          environment,
          fromStatus: 'healthy',
          releaseAt: deploy.endsAt,
        });
      }
      await store.hold({
        systemRef: 'system:default/shop',
        environment: 'production',
        fromStatus: 'healthy',
        releaseAt: deploy.endsAt,
      });
      clock.now += minutes(10);
      expect(await store.claimDueHolds(minutes(1), 10)).toEqual([]);

      await store.end(deploy.id, bob);
      // Due now: production of payments; staging (not in the window) and
      // shop (another system) still wait for their own ends.
      expect(
        (await store.claimDueHolds(minutes(1), 10)).map(
          held => `${held.systemRef} ${held.environment}`,
        ),
      ).toEqual(['system:default/payments production']);
      expect(
        await store.getHeld('system:default/payments', 'staging'),
      ).toMatchObject({
        releaseAt: deploy.endsAt,
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'bounds the windows open per system and prunes old ones, on %p',
    async databaseId => {
      const { store, clock } = await createStore(databaseId);
      const window = {
        systemRef: 'system:default/payments',
        startsAt: clock.now,
        endsAt: clock.now + minutes(5),
        createdBy: alice,
      };
      for (let i = 0; i < MAX_OPEN_WINDOWS_PER_SYSTEM; i++) {
        await store.create(window);
      }
      await expect(store.create(window)).rejects.toThrow(
        'system:default/payments has 50 maintenance windows open or ahead, the most it may have; end one first',
      );
      await store.create({ ...window, systemRef: 'system:default/shop' });

      // Once they have ended, the system may open windows again.
      clock.now = window.endsAt;
      const next = await store.create({
        ...window,
        startsAt: clock.now,
        endsAt: clock.now + minutes(5),
      });
      expect(await store.prune(clock.now + 1)).toBe(
        MAX_OPEN_WINDOWS_PER_SYSTEM + 1,
      );
      expect(await store.list({ endingAfter: 0 })).toEqual([next]);
    },
  );

  it.each(databases.eachSupportedId())(
    'migrates down and up again, on %p',
    async databaseId => {
      const { knex } = await createStore(databaseId);
      await migrateDown(knex);
      expect(
        await knex.schema.hasTable('healthcheck_maintenance_windows'),
      ).toBe(false);
      await migrateUp(knex);
      expect(
        await knex.schema.hasTable('healthcheck_maintenance_windows'),
      ).toBe(true);
    },
  );
});
