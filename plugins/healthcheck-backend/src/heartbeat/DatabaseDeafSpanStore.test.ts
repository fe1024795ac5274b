import { TestDatabases } from '@backstage/backend-test-utils';
import { migrateUp } from '../database/migrations';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseDeafSpanStore, MAX_DEAF_SPANS } from './DatabaseDeafSpanStore';

jest.setTimeout(60_000);

const databases = TestDatabases.create({ ids: requiredTestDatabases() });
const DAY = 24 * 3_600_000;
const NOW = 1_800_000_000_000;

describe.each(databases.eachSupportedId())(
  'DatabaseDeafSpanStore, on %p',
  databaseId => {
    async function createStore() {
      const knex = await databases.init(databaseId);
      await migrateUp(knex);
      return { knex, store: new DatabaseDeafSpanStore(knex) };
    }

    it('keeps the spans every instance reports, and reads those that end after a time', async () => {
      const { store } = await createStore();
      await store.add(
        [
          { from: NOW - 60_000, to: NOW - 30_000, cause: 'database' },
          { from: NOW - DAY, to: NOW - DAY + 120_000, cause: 'down' },
        ],
        NOW,
      );
      expect(await store.readSince(NOW - 2 * DAY)).toEqual([
        { from: NOW - DAY, to: NOW - DAY + 120_000, cause: 'down' },
        { from: NOW - 60_000, to: NOW - 30_000, cause: 'database' },
      ]);
      expect(await store.readSince(NOW - 30_000)).toEqual([]);
    });

    it(`keeps the newest ${MAX_DEAF_SPANS} spans within 400 days, no more`, async () => {
      const { knex, store } = await createStore();
      await store.add(
        [{ from: NOW - 401 * DAY, to: NOW - 401 * DAY + 1, cause: 'down' }],
        NOW - 401 * DAY,
      );
      const spans = Array.from({ length: MAX_DEAF_SPANS + 5 }, (_, i) => ({
        from: NOW + i * 10,
        to: NOW + i * 10 + 5,
        cause: 'database' as const,
      }));
      for (let i = 0; i < spans.length; i += 200) {
        await store.add(spans.slice(i, i + 200), NOW);
      }
      const [{ count }] = await knex('healthcheck_ping_deaf_spans').count({
        count: '*',
      });
      expect(Number(count)).toBe(MAX_DEAF_SPANS);
      const kept = await store.readSince(0);
      expect(kept[0].from).toBe(NOW + 5 * 10);
    });

    it('says when any instance last heard, and forgets instances silent for an hour', async () => {
      const { knex, store } = await createStore();
      expect(await store.lastHeard()).toBeUndefined();
      await store.markHeard('a', NOW - 2 * 3_600_000);
      expect(await store.lastHeard()).toBe(NOW - 2 * 3_600_000);
      await store.markHeard('b', NOW - 5_000);
      await store.markHeard('c', NOW - 1_000);
      expect(await store.lastHeard()).toBe(NOW - 1_000);
      await store.markHeard('b', NOW);
      expect(await store.lastHeard()).toBe(NOW);
      expect(
        (await knex('healthcheck_ping_listeners').orderBy('instance_id')).map(
          row => row.instance_id,
        ),
      ).toEqual(['b', 'c']);
    });
  },
);
