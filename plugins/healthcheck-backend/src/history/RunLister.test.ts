import { TestDatabaseId, TestDatabases } from '@backstage/backend-test-utils';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import {
  addRuns,
  MINUTE,
  PAYMENTS,
  seedPaymentsSystem,
  t,
  DAY,
} from './__testUtils__/historyFixtures';

jest.setTimeout(120_000);

describe('DatabaseHistoryStore: runs, a page at a time', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const seedSystem = (databaseId: TestDatabaseId) =>
    seedPaymentsSystem(databases, databaseId);

  it.each(databases.eachSupportedId())(
    'lists runs newest first, by slice or by system and environment, a page at a time, on %p',
    async databaseId => {
      const { knex, store } = await seedSystem(databaseId);
      await addRuns(knex, [
        {
          sliceId: 'api|payments|production',
          at: t(12, 30),
          status: 'x',
          startedAt: null,
        },
        {
          sliceId: 'db|payments|production',
          at: t(11, 30),
          status: 'unhealthy',
          conditions: [{ condition: '[STATUS] == 200', success: false }],
        },
      ]);

      const bySlice = await store.listRuns({
        sliceId: 'db|payments|production',
        from: t(0),
        to: t(24),
      });
      expect(bySlice.nextCursor).toBeUndefined();
      expect(bySlice.runs).toEqual([
        {
          sliceId: 'db|payments|production',
          checkId: 'db',
          systemRef: PAYMENTS,
          environment: 'production',
          scheduledAt: t(11, 30),
          startedAt: t(11, 30),
          durationMs: 100,
          outcome: 'fail',
          status: 'unhealthy',
          conditions: [{ condition: '[STATUS] == 200', success: false }],
          error: undefined,
        },
        expect.objectContaining({
          scheduledAt: t(11),
          error: { kind: 'timeout', message: 'no answer in 5s' },
        }),
        expect.objectContaining({ scheduledAt: t(10), status: 'healthy' }),
      ]);

      // Production of payments: 5 api runs (the unfinished one left out)
      // and 3 db runs, two per page, ties at one instant by slice id.
      const seen: Array<[string, number]> = [];
      let cursor: string | undefined;
      let pages = 0;
      do {
        const page = await store.listRuns({
          systemRef: PAYMENTS,
          environment: 'production',
          from: t(10),
          to: t(13),
          limit: 2,
          cursor,
        });
        pages++;
        expect(page.runs.length).toBeLessThanOrEqual(2);
        seen.push(
          ...page.runs.map(
            run =>
              [run.sliceId.split('|')[0], (run.scheduledAt - DAY) / MINUTE] as [
                string,
                number,
              ],
          ),
        );
        cursor = page.nextCursor;
      } while (cursor);
      expect(pages).toBe(4);
      expect(seen).toEqual([
        ['api', 720],
        ['db', 690],
        ['api', 690],
        ['db', 660],
        ['api', 660],
        ['api', 630],
        ['db', 600],
        ['api', 600],
      ]);

      // All environments: the pause marker of staging, without outcome.
      const all = await store.listRuns({
        systemRef: PAYMENTS,
        from: t(10),
        to: t(10, 1),
      });
      expect(
        all.runs.map(run => [run.sliceId, run.status, run.outcome]),
      ).toEqual([
        ['db|payments|production', 'healthy', 'pass'],
        ['api|payments|staging', 'paused', undefined],
        ['api|payments|production', 'healthy', 'pass'],
      ]);

      await expect(
        store.listRuns({
          sliceId: 'db|payments|production',
          from: t(0),
          to: t(24),
          cursor: 'nonsense',
        }),
      ).rejects.toMatchObject({ name: 'InputError' });
      await expect(
        store.listRuns({
          sliceId: 'db|payments|production',
          from: t(0),
          to: t(24),
          limit: 0,
        }),
      ).rejects.toMatchObject({ name: 'InputError' });
    },
  );
});
