import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
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
