import path from 'node:path';
import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import { HealthCheckSpec } from '@vigil/plugin-healthcheck-common';
import {
  DatabaseHealthcheckStore,
  readTimestamp,
} from './DatabaseHealthcheckStore';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { migrateDown, migrateUp } from './migrations';

const MIGRATIONS_DIR = path.resolve(__dirname, '../../migrations');

jest.setTimeout(60_000);

const alice = 'user:default/alice';
const bob = 'user:default/bob';

const paymentsSpec: HealthCheckSpec = {
  type: 'http',
  target: 'http://127.0.0.1:7010/healthy',
  interval: '30s',
  systems: ['system:default/payments'],
};

describe('DatabaseHealthcheckStore', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  async function createStore(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const database = mockServices.database({
      knex,
      migrations: { skip: false },
    });
    return { knex, store: await DatabaseHealthcheckStore.create({ database }) };
  }

  it.each(databases.eachSupportedId())(
    'creates a check at revision 1 and reads it back, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      expect(await store.listChecks()).toEqual([]);
      const before = Date.now();

      const created = await store.createCheck({
        id: 'payments-http',
        title: 'Payments API',
        spec: paymentsSpec,
        createdBy: alice,
      });

      expect(created).toMatchObject({
        id: 'payments-http',
        title: 'Payments API',
        spec: paymentsSpec,
        revision: 1,
        createdBy: alice,
        updatedBy: alice,
      });
      // The database clock, to the second (SQLite keeps no more).
      expect(created.createdAt.getTime()).toBeGreaterThan(before - 60_000);
      expect(created.createdAt.getTime()).toBeLessThan(before + 60_000);
      expect(await store.getCheck('payments-http')).toEqual(created);
      expect(await store.listChecks()).toEqual([created]);
    },
  );

  it.each(databases.eachSupportedId())(
    'leaves out a title that was not given, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const created = await store.createCheck({
        id: 'untitled',
        spec: paymentsSpec,
        createdBy: alice,
      });
      expect(created.title).toBeUndefined();
      expect((await store.getCheck('untitled'))?.title).toBeUndefined();
    },
  );

  it.each(databases.eachSupportedId())(
    'lists checks by id, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      for (const id of ['b', 'c', 'a']) {
        await store.createCheck({ id, spec: paymentsSpec, createdBy: alice });
      }
      expect((await store.listChecks()).map(c => c.id)).toEqual([
        'a',
        'b',
        'c',
      ]);
    },
  );

  it.each(databases.eachSupportedId())(
    'answers undefined for a check that does not exist, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      expect(await store.getCheck('nope')).toBeUndefined();
    },
  );

  it.each(databases.eachSupportedId())(
    'refuses a second check with the same id, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const check = { id: 'dup', spec: paymentsSpec, createdBy: alice };
      await store.createCheck(check);
      await expect(
        store.createCheck({ ...check, createdBy: bob }),
      ).rejects.toMatchObject({
        name: 'ConflictError',
        message: "A check with id 'dup' already exists",
      });
      expect((await store.getCheck('dup'))?.createdBy).toBe(alice);
    },
  );

  it.each(databases.eachSupportedId())(
    'replaces title and spec on update, counts the revision up and returns both versions, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const created = await store.createCheck({
        id: 'payments-http',
        title: 'Payments API',
        spec: paymentsSpec,
        createdBy: alice,
      });
      const newSpec = {
        ...paymentsSpec,
        interval: '1m',
        systems: ['system:default/billing'],
      };

      const { before, after } = await store.updateCheck({
        id: 'payments-http',
        spec: newSpec,
        updatedBy: bob,
      });

      expect(before).toEqual(created);
      expect(after).toMatchObject({
        id: 'payments-http',
        title: undefined,
        spec: newSpec,
        revision: 2,
        createdBy: alice,
        updatedBy: bob,
      });
      expect(after.createdAt).toEqual(created.createdAt);
      expect(after.updatedAt.getTime()).toBeGreaterThanOrEqual(
        created.updatedAt.getTime(),
      );
      expect(await store.getCheck('payments-http')).toEqual(after);
    },
  );

  it.each(databases.eachSupportedId())(
    'updates when the expected revision is the current one, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      await store.createCheck({
        id: 'c',
        spec: paymentsSpec,
        createdBy: alice,
      });
      await store.updateCheck({ id: 'c', spec: paymentsSpec, updatedBy: bob });

      const { after } = await store.updateCheck({
        id: 'c',
        spec: { ...paymentsSpec, paused: true },
        updatedBy: alice,
        expectedRevision: 2,
      });

      expect(after.revision).toBe(3);
      expect(after.spec.paused).toBe(true);
    },
  );

  it.each(databases.eachSupportedId())(
    'refuses an update based on a stale revision and keeps the newer change, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      await store.createCheck({
        id: 'c',
        spec: paymentsSpec,
        createdBy: alice,
      });
      await store.updateCheck({
        id: 'c',
        spec: { ...paymentsSpec, interval: '2m' },
        updatedBy: bob,
        expectedRevision: 1,
      });

      await expect(
        store.updateCheck({
          id: 'c',
          spec: { ...paymentsSpec, interval: '5m' },
          updatedBy: alice,
          expectedRevision: 1,
        }),
      ).rejects.toMatchObject({
        name: 'ConflictError',
        message: expect.stringMatching(
          /^Check 'c' is at revision 2, not 1: user:default\/bob changed it at .*Z\. Read it again and reapply your change$/,
        ),
      });
      const current = await store.getCheck('c');
      expect(current?.revision).toBe(2);
      expect(current?.spec.interval).toBe('2m');
    },
  );

  it.each(databases.eachSupportedId())(
    'lets exactly one of two concurrent updates of the same revision win, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      await store.createCheck({
        id: 'c',
        spec: paymentsSpec,
        createdBy: alice,
      });

      const outcomes = await Promise.allSettled(
        ['1m', '2m'].map(interval =>
          store.updateCheck({
            id: 'c',
            spec: { ...paymentsSpec, interval },
            updatedBy: alice,
            expectedRevision: 1,
          }),
        ),
      );

      expect(outcomes.map(o => o.status).sort()).toEqual([
        'fulfilled',
        'rejected',
      ]);
      expect((await store.getCheck('c'))?.revision).toBe(2);
    },
  );

  it.each(databases.eachSupportedId())(
    'applies concurrent updates without an expected revision one after the other, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      await store.createCheck({
        id: 'c',
        spec: paymentsSpec,
        createdBy: alice,
      });

      const results = await Promise.all(
        ['1m', '2m', '3m'].map(interval =>
          store.updateCheck({
            id: 'c',
            spec: { ...paymentsSpec, interval },
            updatedBy: alice,
          }),
        ),
      );

      expect(results.map(r => r.after.revision).sort()).toEqual([2, 3, 4]);
      // Each saw the version it replaced, so no change went unnoticed.
      expect(results.map(r => r.before.revision).sort()).toEqual([1, 2, 3]);
      expect((await store.getCheck('c'))?.revision).toBe(4);
    },
  );

  it.each(databases.eachSupportedId())(
    'refuses to update a check that does not exist, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      await expect(
        store.updateCheck({ id: 'nope', spec: paymentsSpec, updatedBy: bob }),
      ).rejects.toMatchObject({
        name: 'NotFoundError',
        message: "There is no check with id 'nope'",
      });
      expect(await store.getCheck('nope')).toBeUndefined();
    },
  );

  it.each(databases.eachSupportedId())(
    'deletes a check and returns it as it was, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      const created = await store.createCheck({
        id: 'c',
        title: 'C',
        spec: paymentsSpec,
        createdBy: alice,
      });
      await store.createCheck({
        id: 'd',
        spec: paymentsSpec,
        createdBy: alice,
      });

      expect(await store.deleteCheck('c')).toEqual(created);

      expect(await store.getCheck('c')).toBeUndefined();
      expect((await store.listChecks()).map(c => c.id)).toEqual(['d']);
    },
  );

  it.each(databases.eachSupportedId())(
    'deletes only at the expected revision when one is given, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      await store.createCheck({
        id: 'c',
        spec: paymentsSpec,
        createdBy: alice,
      });
      await store.updateCheck({ id: 'c', spec: paymentsSpec, updatedBy: bob });

      await expect(
        store.deleteCheck('c', { expectedRevision: 1 }),
      ).rejects.toMatchObject({
        name: 'ConflictError',
        message: expect.stringContaining(
          "Check 'c' is at revision 2, not 1: user:default/bob changed it",
        ),
      });
      expect(await store.getCheck('c')).toBeDefined();

      const deleted = await store.deleteCheck('c', { expectedRevision: 2 });
      expect(deleted.revision).toBe(2);
      expect(await store.getCheck('c')).toBeUndefined();
    },
  );

  it.each(databases.eachSupportedId())(
    'lets exactly one of two concurrent deletes have the check, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      await store.createCheck({
        id: 'c',
        spec: paymentsSpec,
        createdBy: alice,
      });

      const outcomes = await Promise.allSettled([
        store.deleteCheck('c'),
        store.deleteCheck('c'),
      ]);

      expect(
        outcomes.map(o =>
          o.status === 'fulfilled' ? o.value.id : (o.reason as Error).name,
        ),
      ).toEqual(expect.arrayContaining(['c', 'NotFoundError']));
      expect(await store.getCheck('c')).toBeUndefined();
    },
  );

  it.each(databases.eachSupportedId())(
    'refuses to delete a check that does not exist, with or without a revision, on %p',
    async databaseId => {
      const { store } = await createStore(databaseId);
      await expect(store.deleteCheck('nope')).rejects.toMatchObject({
        name: 'NotFoundError',
        message: "There is no check with id 'nope'",
      });
      await expect(
        store.deleteCheck('nope', { expectedRevision: 1 }),
      ).rejects.toMatchObject({ name: 'NotFoundError' });
    },
  );

  it.each(databases.eachSupportedId())(
    'migrates down to nothing and up again, on %p',
    async databaseId => {
      const { knex } = await createStore(databaseId);
      await migrateDown(knex);
      expect(await knex.schema.hasTable('healthcheck_checks')).toBe(false);
      await migrateUp(knex);
      expect(await knex.schema.hasTable('healthcheck_checks')).toBe(true);
      expect(
        await knex.schema.hasColumn('healthcheck_checks', 'revision'),
      ).toBe(true);
    },
  );

  it.each(databases.eachSupportedId())(
    'gives checks made before revisions existed revision 1 and their creator as last editor, on %p',
    async databaseId => {
      const knex = await databases.init(databaseId);
      await knex.migrate.up({
        directory: MIGRATIONS_DIR,
        name: '20261130000000_checks.js',
      });
      await knex('healthcheck_checks').insert({
        id: 'old',
        spec: JSON.stringify(paymentsSpec),
        created_by: alice,
      });

      const store = await DatabaseHealthcheckStore.create({
        database: mockServices.database({ knex, migrations: { skip: false } }),
      });

      expect(await store.getCheck('old')).toMatchObject({
        revision: 1,
        createdBy: alice,
        updatedBy: alice,
      });
    },
  );
});

describe('readTimestamp', () => {
  it("reads SQLite's zone-less CURRENT_TIMESTAMP text as UTC", () => {
    expect(readTimestamp('2026-11-30 10:00:00').toISOString()).toBe(
      '2026-11-30T10:00:00.000Z',
    );
    expect(readTimestamp('2026-11-30 10:00:00.250').toISOString()).toBe(
      '2026-11-30T10:00:00.250Z',
    );
  });

  it('keeps Dates, ISO text with a zone and epoch milliseconds as they are', () => {
    const date = new Date('2026-11-30T10:00:00.000Z');
    expect(readTimestamp(date)).toBe(date);
    expect(readTimestamp('2026-11-30T11:00:00+01:00')).toEqual(date);
    expect(readTimestamp(date.getTime())).toEqual(date);
  });
});
