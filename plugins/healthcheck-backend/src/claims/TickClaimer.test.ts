import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { Knex } from 'knex';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { FakeClock } from '../scheduler/__testUtils__/FakeClock';
import type { DueTick, ScheduledSlice } from '../scheduler/types';
import { DatabaseClaimStore } from './DatabaseClaimStore';
import {
  InstanceMembership,
  InstanceMembershipOptions,
} from './InstanceMembership';
import type { ClaimMetrics, ClaimOutcome } from './metrics';
import { TickClaimer, type UnclaimedTicks } from './TickClaimer';

jest.setTimeout(60_000);

const T0 = Date.UTC(2026, 11, 1, 12, 0, 0);

interface TestSlice extends ScheduledSlice {
  readonly target: string;
}

/** A coalesced batch: `count` slices due at the same grid time. */
function dueBatch(count: number, scheduledAt = T0): DueTick<TestSlice>[] {
  return Array.from({ length: count }, (_, i) => {
    const id = `healthcheck:check-${i}:system%3Adefault%2Fshop:production`;
    return {
      sliceId: id,
      scheduledAt,
      generation: 1,
      slice: { id, intervalMs: 60_000, target: `http://127.0.0.1/${i}` },
    };
  });
}

function recordingMetrics() {
  const ticks: Partial<Record<ClaimOutcome, number>> = {};
  const durations: number[] = [];
  const metrics: ClaimMetrics = {
    addTicks: (count, outcome) => {
      ticks[outcome] = (ticks[outcome] ?? 0) + count;
    },
    recordClaimDuration: durationMs => durations.push(durationMs),
  };
  return { metrics, ticks, durations };
}

function countStatements(knex: Knex) {
  let count = 0;
  const listener = () => count++;
  knex.on('query', listener);
  return () => {
    knex.removeListener('query', listener);
    return count;
  };
}

describe('TickClaimer', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const members: InstanceMembership[] = [];

  afterEach(async () => {
    await Promise.all(members.splice(0).map(member => member.stop()));
  });

  async function createStore(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const store = await DatabaseClaimStore.create({
      database: mockServices.database({ knex, migrations: { skip: false } }),
    });
    return { knex, store };
  }

  async function instance(
    store: DatabaseClaimStore,
    clock: FakeClock,
    instanceId: string,
    options: InstanceMembershipOptions = { mode: 'shared' },
    maxClaimsInFlight?: number,
    unclaimed?: UnclaimedTicks,
  ) {
    const membership = await InstanceMembership.start({
      store,
      logger: mockServices.logger.mock(),
      clock,
      options: { instanceId, ...options },
    });
    members.push(membership);
    const recorder = recordingMetrics();
    const logger = mockServices.logger.mock();
    const claimer = new TickClaimer({
      store,
      membership,
      logger,
      metrics: recorder.metrics,
      clock,
      maxClaimsInFlight,
      unclaimed,
    });
    return { membership, claimer, logger, ...recorder };
  }

  it.each(databases.eachSupportedId())(
    'runs each tick of a batch on exactly one of three instances, a third each, one statement each, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      const instances = [
        await instance(store, clock, 'a'),
        await instance(store, clock, 'b'),
        await instance(store, clock, 'c'),
      ];
      await Promise.all(instances.map(i => i.membership.refresh()));
      const batch = dueBatch(900);

      const stop = countStatements(knex);
      const claimed = await Promise.all(
        instances.map(i => i.claimer.claim(batch)),
      );
      expect(stop()).toBe(3);

      const runs = claimed.flat();
      expect(runs).toHaveLength(900);
      expect(new Set(runs)).toEqual(new Set(batch));
      for (const [
        index,
        { claimer, ticks, durations },
      ] of instances.entries()) {
        const stats = claimer.stats();
        expect(stats.claimed).toBe(claimed[index].length);
        expect(stats.claimed).toBeGreaterThan(240);
        expect(stats.claimed).toBeLessThan(360);
        expect(stats['not-owned']).toBe(900 - stats.claimed);
        expect(stats.lost).toBe(0);
        expect(stats.statements).toBe(1);
        expect(ticks).toEqual({
          claimed: stats.claimed,
          'not-owned': stats['not-owned'],
        });
        expect(durations).toHaveLength(1);
      }
    },
  );

  it.each(databases.eachSupportedId())(
    'hands back the claimed ticks in batch order, slices and all, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const { claimer } = await instance(store, new FakeClock(T0), 'solo');
      const batch = dueBatch(50);

      const claimed = await claimer.claim(batch);

      expect(claimed).toEqual(batch);
      expect(claimed[7]).toBe(batch[7]);
    },
  );

  it.each(databases.eachSupportedId())(
    'claims the batches that fall due while a claim runs together, in the next statement, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const { claimer } = await instance(
        store,
        new FakeClock(T0),
        'solo',
        { mode: 'single' },
        1,
      );
      const batches = Array.from({ length: 10 }, (_, i) => dueBatch(5, T0 + i));

      const stop = countStatements(knex);
      const claimed = await Promise.all(
        batches.map(batch => claimer.claim(batch)),
      );

      expect(stop()).toBe(2);
      expect(claimed).toEqual(batches);
      expect(claimer.stats()).toMatchObject({ claimed: 50, statements: 2 });
    },
  );

  it.each(databases.eachSupportedId())(
    'counts as lost the ticks another instance claimed while their views disagreed, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      // B started alone and has not yet seen A: it believes it owns all.
      const b = await instance(store, clock, 'b');
      const a = await instance(store, clock, 'a');
      expect(b.membership.liveInstances()).toEqual(['b']);
      expect(a.membership.liveInstances()).toEqual(['a', 'b']);
      const batch = dueBatch(400);

      const wonByB = await b.claimer.claim(batch);
      const wonByA = await a.claimer.claim(batch);

      expect(wonByB).toHaveLength(400);
      expect(wonByA).toEqual([]);
      const ownedByA = batch.filter(tick =>
        a.membership.isOwner(tick.sliceId),
      ).length;
      expect(ownedByA).toBeGreaterThan(150);
      expect(a.claimer.stats()).toMatchObject({
        claimed: 0,
        lost: ownedByA,
        'not-owned': 400 - ownedByA,
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'claims every tick on a database it does not share, and a tick fired again after a restart is lost, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      const first = await instance(store, clock, 'first', { mode: 'single' });
      const batch = dueBatch(300);

      expect(await first.claimer.claim(batch)).toHaveLength(300);

      // A restart within the same tick: the same grid times fire again.
      const restarted = await instance(store, clock, 'restarted', {
        mode: 'single',
      });
      expect(await restarted.claimer.claim(batch)).toEqual([]);
      expect(restarted.claimer.stats()).toMatchObject({
        claimed: 0,
        lost: 300,
        'not-owned': 0,
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'sends nothing to the database when the instance owns none of the batch, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const clock = new FakeClock(T0);
      const a = await instance(store, clock, 'a');
      await instance(store, clock, 'b');
      await a.membership.refresh();
      const notMine = dueBatch(200).filter(
        tick => !a.membership.isOwner(tick.sliceId),
      );

      const stop = countStatements(knex);
      expect(await a.claimer.claim(notMine)).toEqual([]);
      expect(stop()).toBe(0);
      expect(a.claimer.stats()).toMatchObject({
        'not-owned': notMine.length,
        statements: 0,
      });
    },
  );

  it.each(databases.eachSupportedId())(
    'runs nothing of a batch whose claim fails, and says so, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const { claimer, logger, ticks } = await instance(
        store,
        new FakeClock(T0),
        'solo',
      );
      await knex.schema.renameTable('healthcheck_runs', 'unreachable');

      expect(await claimer.claim(dueBatch(20))).toEqual([]);

      expect(claimer.stats()).toMatchObject({ failed: 20, claimed: 0 });
      expect(ticks).toEqual({ failed: 20 });
      expect(logger.warn).toHaveBeenCalledWith(
        expect.stringMatching(
          /^Could not claim 20 due tick\(s\); they do not run: /,
        ),
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'in outage mode runs the owned ticks of a batch whose claim fails, unclaimed, and says when claims work again, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      const handedOver: unknown[][] = [];
      let answered = 0;
      const outage: UnclaimedTicks = {
        runUnclaimed: ticks => {
          handedOver.push(ticks);
          return ticks;
        },
        databaseAnswered: () => {
          answered++;
        },
      };
      const clock = new FakeClock(T0);
      const a = await instance(store, clock, 'a', undefined, undefined, outage);
      await instance(store, clock, 'b');
      await a.membership.refresh();
      const batch = dueBatch(200);
      const owned = batch.filter(tick => a.membership.isOwner(tick.sliceId));
      await knex.schema.renameTable('healthcheck_runs', 'unreachable');

      expect(await a.claimer.claim(batch)).toEqual(owned);

      expect(handedOver).toEqual([owned]);
      expect(answered).toBe(0);
      expect(a.ticks).toEqual({
        unclaimed: owned.length,
        'not-owned': 200 - owned.length,
      });
      expect(a.logger.warn).not.toHaveBeenCalled();

      await knex.schema.renameTable('unreachable', 'healthcheck_runs');
      expect(await a.claimer.claim(dueBatch(200, T0 + 60_000))).toHaveLength(
        owned.length,
      );
      expect(answered).toBe(1);
    },
  );

  it.each(databases.eachSupportedId())(
    'in outage mode runs unclaimed the ticks whose claim has no answer by the deadline, and the late claim still lands, on %p',
    async databaseId => {
      const { knex, store } = await createStore(databaseId);
      let landed = 0;
      const slowStore = Object.assign(Object.create(store), {
        claimTicks: async (...args: Parameters<typeof store.claimTicks>) => {
          await new Promise(resolve => setTimeout(resolve, 300));
          const won = await store.claimTicks(...args);
          landed += won.length;
          return won;
        },
      }) as DatabaseClaimStore;
      const handedOver: unknown[][] = [];
      const claimer = new TickClaimer({
        store: slowStore,
        membership: { instanceId: 'solo', isOwner: () => true },
        logger: mockServices.logger.mock(),
        unclaimed: {
          runUnclaimed: ticks => {
            handedOver.push(ticks);
            return ticks;
          },
          databaseAnswered: () => {},
        },
        claimDeadlineMs: 100,
      });
      const batch = dueBatch(5);

      const started = Date.now();
      expect(await claimer.claim(batch)).toEqual(batch);
      expect(Date.now() - started).toBeLessThan(300);
      expect(handedOver).toEqual([batch]);
      expect(claimer.stats()).toMatchObject({ unclaimed: 5, claimed: 0 });

      await new Promise(resolve => setTimeout(resolve, 600));
      expect(landed).toBe(5);
      const [{ n }] = await knex('healthcheck_runs').count({ n: '*' });
      expect(Number(n)).toBe(5);
    },
  );
});
