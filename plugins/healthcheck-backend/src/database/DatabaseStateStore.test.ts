import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { encodeSliceId, SystemRollup } from '@vigil/plugin-healthcheck-common';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseSliceStore } from './DatabaseSliceStore';
import { DatabaseStateStore } from './DatabaseStateStore';

jest.setTimeout(60_000);

const SYSTEMS = ['payments', 'checkout', 'identity'].map(
  name => `system:default/${name}`,
);

function rollupOf(systemRef: string): SystemRollup {
  return {
    systemRef,
    status: 'healthy',
    environments: [],
    reasons: [],
    healthy: 0,
    total: 0,
    upstream: [],
    updatedAt: new Date(1_000).toISOString(),
    since: new Date(1_000).toISOString(),
  };
}

describe('DatabaseStateStore reads of one system', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  it.each(databases.eachSupportedId())(
    'answers concurrent reads of several systems with one query each, every caller its own system, on %p',
    async databaseId => {
      const knex = await databases.init(databaseId);
      const database = mockServices.database({
        knex,
        migrations: { skip: false },
      });
      const slices = await DatabaseSliceStore.create({ database });
      const store = await DatabaseStateStore.create({ database });
      await slices.applyChanges({
        write: SYSTEMS.flatMap(systemRef =>
          ['production', 'staging'].map(environment => ({
            paused: true,
            slice: {
              id: encodeSliceId({
                checkId: 'healthcheck:default/api',
                systemRef,
                environment,
              }),
              checkId: 'healthcheck:default/api',
              systemRef,
              environment,
            },
          })),
        ),
        remove: [],
      });
      // Only two of the three systems have a rollup.
      for (const systemRef of SYSTEMS.slice(0, 2)) {
        await store.writeRollup(rollupOf(systemRef), 1_000);
      }

      const statements: string[] = [];
      const count = (query: { sql: string }) => statements.push(query.sql);
      knex.on('query', count);
      const [rollups, sliceLists] = await Promise.all([
        Promise.all(SYSTEMS.map(ref => store.readRollup(ref.toUpperCase()))),
        Promise.all(SYSTEMS.map(ref => store.readSystemSlices(ref))),
      ]);
      knex.off('query', count);

      expect(rollups.map(r => r?.systemRef)).toEqual([
        SYSTEMS[0],
        SYSTEMS[1],
        undefined,
      ]);
      expect(
        sliceLists.map(list =>
          list.map(s => `${s.systemRef} ${s.environment}`).sort(),
        ),
      ).toEqual(SYSTEMS.map(ref => [`${ref} production`, `${ref} staging`]));
      expect(statements).toHaveLength(2);
      expect(await store.readSystemSlices('system:default/unknown')).toEqual(
        [],
      );
    },
  );
});

describe('DatabaseStateStore for the sweep', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  async function setup(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const database = mockServices.database({
      knex,
      migrations: { skip: false },
    });
    const slices = await DatabaseSliceStore.create({ database });
    const store = await DatabaseStateStore.create({ database });
    const write = (systemRef: string, environment: string) => ({
      paused: true as const,
      slice: {
        id: encodeSliceId({ checkId: 'api', systemRef, environment }),
        checkId: 'api',
        systemRef,
        environment,
      },
    });
    return { knex, slices, store, write };
  }

  it.each(databases.eachSupportedId())(
    'lists the systems with slices or a rollup a page at a time, each once, in order, on %p',
    async databaseId => {
      const { slices, store, write } = await setup(databaseId);
      const ref = (name: string) => `system:default/${name}`;
      await slices.applyChanges({
        write: ['a', 'c', 'c', 'e', 'g'].map((name, i) =>
          write(ref(name), `env-${i}`),
        ),
        remove: [],
      });
      // f's only slice is removed: it has none.
      await slices.applyChanges({ write: [write(ref('f'), 'x')], remove: [] });
      await slices.applyChanges({
        write: [],
        remove: [
          encodeSliceId({
            checkId: 'api',
            systemRef: ref('f'),
            environment: 'x',
          }),
        ],
      });
      for (const name of ['b', 'c', 'd']) {
        await store.writeRollup(rollupOf(ref(name)), 1_000);
      }

      const pages: string[][] = [];
      let after: string | undefined;
      for (;;) {
        const page = await store.listSystemsPage(after, 2);
        if (page.length === 0) break;
        pages.push(page.map(r => r.replace('system:default/', '')));
        after = page[page.length - 1];
      }

      expect(pages).toEqual([
        ['a', 'b'],
        ['c', 'd'],
        ['e', 'g'],
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'forgets the statuses of environments without slices, and only those, on %p',
    async databaseId => {
      const { slices, store, write } = await setup(databaseId);
      const [payments, checkout] = SYSTEMS;
      await slices.applyChanges({
        write: [write(payments, 'production'), write(checkout, 'production')],
        remove: [],
      });
      for (const [systemRef, environment] of [
        [payments, 'production'],
        [payments, 'canary'],
        [checkout, 'canary'],
      ]) {
        await store.transitionEnvironment({
          systemRef,
          environment,
          from: undefined,
          to: 'healthy',
          at: 1_000,
        });
      }

      expect(await store.forgetGoneEnvironments([payments])).toBe(1);

      const states = await store.readEnvironmentStatesOf(SYSTEMS);
      expect([...(states.get(payments)?.keys() ?? [])]).toEqual(['production']);
      expect([...(states.get(checkout)?.keys() ?? [])]).toEqual(['canary']);
      expect(states.has(SYSTEMS[2])).toBe(false);
    },
  );

  it.each(databases.eachSupportedId())(
    'reads the claims of a time range and prunes older ones in statements of 10,000, on %p',
    async databaseId => {
      const { knex, store } = await setup(databaseId);
      const rows = Array.from({ length: 25_000 }, (_, i) => ({
        id: `healthrollup:system:default/s-${i}:1`,
        claimed_by: 'a',
        claimed_at: i,
      }));
      for (let at = 0; at < rows.length; at += 500) {
        await knex('healthcheck_rollup_claims').insert(
          rows.slice(at, at + 500),
        );
      }

      expect(
        (await store.readRollupClaims({ from: 24_998, to: 30_000 })).map(
          claim => [claim.claimedAt, claim.claimedBy],
        ),
      ).toEqual([
        [24_998, 'a'],
        [24_999, 'a'],
      ]);
      const statements: string[] = [];
      const count = (query: { sql: string }) => {
        if (/^delete/i.test(query.sql)) statements.push(query.sql);
      };
      knex.on('query', count);
      expect(await store.pruneRollupClaims(24_000)).toBe(24_000);
      knex.off('query', count);
      expect(statements).toHaveLength(3);
      const [{ n }] = await knex('healthcheck_rollup_claims').count({ n: '*' });
      expect(Number(n)).toBe(1_000);
    },
  );

  it.each(databases.eachSupportedId())(
    'reads stored rollups with the time each was computed at, on %p',
    async databaseId => {
      const { store } = await setup(databaseId);
      await store.writeRollup(rollupOf(SYSTEMS[0]), 1_234);

      const stored = await store.readStoredRollups([
        SYSTEMS[0].toUpperCase(),
        SYSTEMS[1],
      ]);

      expect([...stored.keys()]).toEqual([SYSTEMS[0]]);
      expect(stored.get(SYSTEMS[0])).toEqual({
        rollup: rollupOf(SYSTEMS[0]),
        computedAt: 1_234,
      });
    },
  );
  it.each(databases.eachSupportedId())(
    'reads when stored rollups were computed without reading them, on %p',
    async databaseId => {
      const { knex, store } = await setup(databaseId);
      await store.writeRollup(rollupOf(SYSTEMS[0]), 1_234);
      const selected: string[] = [];
      const record = (query: { sql: string }) => selected.push(query.sql);
      knex.on('query', record);

      const times = await store.readRollupTimes([
        SYSTEMS[0].toUpperCase(),
        SYSTEMS[1],
      ]);

      knex.off('query', record);
      expect(times).toEqual(new Map([[SYSTEMS[0], 1_234]]));
      expect(selected).toHaveLength(1);
      expect(selected[0]).not.toMatch(/"rollup"[^_]/);
    },
  );

  it.each(databases.eachSupportedId())(
    'reads a stored rollup again only when its text no longer has the digest held, on %p',
    async databaseId => {
      const { store } = await setup(databaseId);
      await store.writeRollup(rollupOf(SYSTEMS[0]), 1_000);
      await store.writeRollup(rollupOf(SYSTEMS[1]), 1_000);

      const first = await store.readRollupsUnlessKnown(
        new Map([
          [SYSTEMS[0], undefined],
          [SYSTEMS[1], undefined],
          [SYSTEMS[2], undefined],
        ]),
      );
      // Not stored: not in the answer.
      expect([...first.keys()].sort()).toEqual([SYSTEMS[0], SYSTEMS[1]].sort());
      const read = first.get(SYSTEMS[0]);
      if (read === undefined || read === 'unchanged') {
        throw new Error(`expected a rollup, got ${read}`);
      }
      expect(read.rollup).toEqual(rollupOf(SYSTEMS[0]));
      expect(read.digest).toMatch(/^[0-9a-f]{32}$/);

      const held = new Map([[SYSTEMS[0], read.digest]]);
      expect(await store.readRollupsUnlessKnown(held)).toEqual(
        new Map([[SYSTEMS[0], 'unchanged']]),
      );

      const recomputed = {
        ...rollupOf(SYSTEMS[0]),
        status: 'unhealthy' as const,
      };
      await store.writeRollup(recomputed, 2_000);
      const again = await store.readRollupsUnlessKnown(held);
      expect(again.get(SYSTEMS[0])).toEqual({
        rollup: recomputed,
        digest: expect.not.stringMatching(read.digest),
      });
    },
  );
});
