import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { FakeClock } from '../scheduler/__testUtils__/FakeClock';
import { DatabaseClaimStore } from './DatabaseClaimStore';
import {
  InstanceMembership,
  InstanceMembershipOptions,
} from './InstanceMembership';

jest.setTimeout(60_000);

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);
const HEARTBEAT_MS = 5_000;
const TTL_MS = 15_000;

const SLICE_IDS = Array.from(
  { length: 3_000 },
  (_, i) => `healthcheck:check-${i % 3}:system%3Adefault%2Fsystem-${i}:default`,
);

describe('InstanceMembership', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const started: InstanceMembership[] = [];

  afterEach(async () => {
    await Promise.all(started.splice(0).map(member => member.stop()));
  });

  async function createStore(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const store = await DatabaseClaimStore.create({
      database: mockServices.database({ knex, migrations: { skip: false } }),
    });
    return { knex, store };
  }

  async function join(
    store: DatabaseClaimStore,
    clock: FakeClock,
    instanceId: string,
    options: InstanceMembershipOptions = {},
  ) {
    const logger = mockServices.logger.mock();
    const member = await InstanceMembership.start({
      store,
      logger,
      clock,
      options: {
        heartbeatMs: HEARTBEAT_MS,
        ttlMs: TTL_MS,
        // SQLite would run single; the membership logic is the same.
        mode: 'shared',
        instanceId,
        ...options,
      },
    });
    started.push(member);
    const warnings = () =>
      (logger.child as jest.Mock).mock.results.flatMap(result =>
        (result.value.warn as jest.Mock).mock.calls.map(call => call[0]),
      );
    return Object.assign(member, { warnings });
  }

  /** Advances the clock one heartbeat at a time, letting each refresh finish. */
  async function advance(
    clock: FakeClock,
    members: InstanceMembership[],
    ms: number,
  ) {
    for (let passed = 0; passed < ms; passed += HEARTBEAT_MS) {
      await clock.advance(Math.min(HEARTBEAT_MS, ms - passed));
      await Promise.all(members.map(member => member.settled()));
    }
  }

  function owners(member: InstanceMembership): Map<string, string> {
    return new Map(SLICE_IDS.map(id => [id, member.ownerOf(id)]));
  }

  it.each(databases.eachSupportedId())(
    'sees the instances that heartbeat from its start, and the later ones one heartbeat on, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      const a = await join(store, clock, 'a');
      const b = await join(store, clock, 'b');
      const c = await join(store, clock, 'c');

      expect(a.liveInstances()).toEqual(['a']);
      expect(b.liveInstances()).toEqual(['a', 'b']);
      expect(c.liveInstances()).toEqual(['a', 'b', 'c']);

      await advance(clock, [a, b, c], HEARTBEAT_MS);
      for (const member of [a, b, c]) {
        expect(member.liveInstances()).toEqual(['a', 'b', 'c']);
      }
    },
  );

  it.each(databases.eachSupportedId())(
    'gives every slice to exactly one instance once they agree, about a third each, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      const members = [
        await join(store, clock, 'a'),
        await join(store, clock, 'b'),
        await join(store, clock, 'c'),
      ];
      await advance(clock, members, HEARTBEAT_MS);

      for (const member of members) {
        const owned = SLICE_IDS.filter(id => member.isOwner(id)).length;
        expect(owned).toBeGreaterThan(900);
        expect(owned).toBeLessThan(1_100);
      }
      for (const sliceId of SLICE_IDS) {
        expect(members.filter(member => member.isOwner(sliceId))).toHaveLength(
          1,
        );
      }
    },
  );

  it.each(databases.eachSupportedId())(
    'drops an instance that stops heartbeating after the TTL and moves only its slices, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      // C's clock never moves again: it stops heartbeating, as if killed.
      const frozen = new FakeClock(T0);
      const a = await join(store, clock, 'a');
      const b = await join(store, clock, 'b');
      await join(store, frozen, 'c');
      await advance(clock, [a, b], HEARTBEAT_MS);
      const before = owners(a);
      expect(owners(b)).toEqual(before);

      // T0 + 10 s: C's heartbeat at T0 is 10 s old, still inside the TTL.
      await advance(clock, [a, b], 5_000);
      expect(a.liveInstances()).toEqual(['a', 'b', 'c']);

      // T0 + 15 s: one TTL of silence.
      await advance(clock, [a, b], 5_000);
      expect(a.liveInstances()).toEqual(['a', 'b']);
      expect(b.liveInstances()).toEqual(['a', 'b']);

      const after = owners(a);
      expect(owners(b)).toEqual(after);
      const moved = SLICE_IDS.filter(id => before.get(id) !== after.get(id));
      expect(moved.length).toBeGreaterThan(800);
      expect(moved.every(id => before.get(id) === 'c')).toBe(true);
      expect(SLICE_IDS.filter(id => after.get(id) === 'c')).toEqual([]);
    },
  );

  it.each(databases.eachSupportedId())(
    'leaves at once when stopped: the others see it gone at their next heartbeat, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      const a = await join(store, clock, 'a');
      const b = await join(store, clock, 'b');
      await advance(clock, [a, b], HEARTBEAT_MS);
      expect(a.liveInstances()).toEqual(['a', 'b']);

      await b.stop();
      expect(
        await knex('healthcheck_instances').where('id', 'b').first(),
      ).toBeUndefined();
      await advance(clock, [a], HEARTBEAT_MS);
      expect(a.liveInstances()).toEqual(['a']);
      expect(SLICE_IDS.every(id => a.isOwner(id))).toBe(true);
    },
  );

  it.each(databases.eachSupportedId())(
    'counts for the others only once it joins, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      const a = await join(store, clock, 'a');
      const b = InstanceMembership.create({
        store,
        logger: mockServices.logger.mock(),
        clock,
        options: { mode: 'shared', instanceId: 'b' },
      });
      started.push(b);
      await advance(clock, [a], HEARTBEAT_MS);
      expect(a.liveInstances()).toEqual(['a']);

      await b.join();
      expect(b.liveInstances()).toEqual(['a', 'b']);
      await advance(clock, [a, b], HEARTBEAT_MS);
      expect(a.liveInstances()).toEqual(['a', 'b']);
    },
  );

  it.each(databases.eachSupportedId())(
    'heartbeats once per period on the clock, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      const a = await join(store, clock, 'a');
      const heartbeatAt = async () =>
        Number(
          (await knex('healthcheck_instances').where('id', 'a').first())
            .heartbeat_at,
        );
      expect(await heartbeatAt()).toBe(T0);

      await advance(clock, [a], 4_999);
      expect(await heartbeatAt()).toBe(T0);
      await advance(clock, [a], 1);
      expect(await heartbeatAt()).toBe(T0 + 5_000);
      await advance(clock, [a], 10_000);
      expect(await heartbeatAt()).toBe(T0 + 15_000);
    },
  );

  it.each(databases.eachSupportedId())(
    'keeps the last live set while the database fails, and catches up after, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      const a = await join(store, clock, 'a');
      const b = await join(store, clock, 'b');
      await advance(clock, [a, b], HEARTBEAT_MS);

      await knex.schema.renameTable('healthcheck_instances', 'unreachable');
      await advance(clock, [a, b], 2 * HEARTBEAT_MS);
      expect(a.liveInstances()).toEqual(['a', 'b']);
      expect(a.warnings()).toEqual([
        expect.stringMatching(
          /^Instance heartbeat failed; keeping the last known 2 live instance\(s\): /,
        ),
        expect.any(String),
      ]);

      await knex.schema.renameTable('unreachable', 'healthcheck_instances');
      await b.stop();
      await advance(clock, [a], HEARTBEAT_MS);
      expect(a.liveInstances()).toEqual(['a']);
    },
  );

  it.each(databases.eachSupportedId())(
    'expires nobody for the time the database was away, and one that died in it a TTL after, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      // B's clock stops when the outage begins: it dies during it.
      const clockOfB = new FakeClock(T0);
      const a = await join(store, clock, 'a');
      const b = await join(store, clockOfB, 'b');
      // C dies at once, and is dropped long before the outage.
      await join(store, new FakeClock(T0), 'c');
      for (let beat = 0; beat < 4; beat++) {
        await advance(clock, [a], HEARTBEAT_MS);
        await advance(clockOfB, [b], HEARTBEAT_MS);
      }
      expect(a.liveInstances()).toEqual(['a', 'b']);

      // T0 + 20 s to T0 + 80 s: nobody's heartbeat lands.
      await knex.schema.renameTable('healthcheck_instances', 'unreachable');
      await advance(clock, [a], 60_000);
      expect(a.liveInstances()).toEqual(['a', 'b']);
      await knex.schema.renameTable('unreachable', 'healthcheck_instances');

      // A is back first; B's last heartbeat is 65 s old, 5 s of it before
      // the outage: B keeps its slices. C stays gone.
      await advance(clock, [a], HEARTBEAT_MS);
      expect(a.liveInstances()).toEqual(['a', 'b']);
      await advance(clock, [a], 5_000);
      expect(a.liveInstances()).toEqual(['a', 'b']);

      // B never heartbeats again: gone a TTL after the outage ended.
      await advance(clock, [a], 10_000);
      expect(a.liveInstances()).toEqual(['a']);
      expect(SLICE_IDS.every(id => a.isOwner(id))).toBe(true);
    },
  );

  it.each(databases.eachSupportedId())(
    'decides the mode from the database: PostgreSQL is shared, SQLite is not and writes no heartbeat, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const member = await join(store, new FakeClock(T0), 'solo', {
        mode: 'auto',
      });
      const shared = databaseId.startsWith('POSTGRES');

      expect(member.isShared).toBe(shared);
      const [{ n: rows }] = await knex('healthcheck_instances').count({
        n: '*',
      });
      expect(Number(rows)).toBe(shared ? 1 : 0);
    },
  );

  it.each(databases.eachSupportedId())(
    'owns every slice when not shared, whatever else heartbeats, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      await store.heartbeat('another', T0);
      const member = await join(store, new FakeClock(T0), 'solo', {
        mode: 'single',
      });
      await member.refresh();

      expect(member.liveInstances()).toEqual(['solo']);
      expect(SLICE_IDS.every(id => member.isOwner(id))).toBe(true);
    },
  );

  it('refuses a TTL shorter than two heartbeats', async () => {
    await expect(
      InstanceMembership.start({
        store: {} as DatabaseClaimStore,
        logger: mockServices.logger.mock(),
        options: { heartbeatMs: 5_000, ttlMs: 9_999 },
      }),
    ).rejects.toThrow(
      'ttlMs must be a whole number of at least two heartbeats (10000), got 9999',
    );
  });

  it('makes up a new instance id at every start', async () => {
    const store = { isShared: false } as DatabaseClaimStore;
    const logger = mockServices.logger.mock();
    const first = await InstanceMembership.start({ store, logger });
    const second = await InstanceMembership.start({ store, logger });
    expect(first.instanceId).not.toBe(second.instanceId);
    expect(first.instanceId.length).toBeLessThanOrEqual(255);
  });
});
