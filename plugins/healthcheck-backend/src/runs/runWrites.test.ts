import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ENVIRONMENT_CHANGED_TOPIC } from '@vigil/plugin-healthcheck-common';
import { ProbeResult } from '@vigil/plugin-healthcheck-node';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { Bulkhead } from '../admission';
import { createTickClaims, DatabaseClaimStore, TickClaimer } from '../claims';
import { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';
import { createRunFollowUp } from '../rollup/runFollowUp';
import { healthTestbed, sliceOf } from '../rollup/__testUtils__/healthTestbed';
import { claimKeyAt } from '../scheduler';
import { OutageJournal, OutageMode } from '../outage';
import { CachedSliceStates } from './CachedSliceStates';
import { TickRunner } from './TickRunner';

jest.setTimeout(60_000);

/*
 * The write of a run fails once (the database went away for a moment). The
 * transition that run found must not be lost: the run waits in the outage
 * journal, is written once the database answers, in order with the runs
 * after it, and the environment's change is published and notified once.
 */
describe('a run whose write fails', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });
  const testbed = healthTestbed(databases);

  afterAll(async () => {
    await testbed.close();
  });

  it.each(databases.eachSupportedId())(
    'keeps the run until the database takes it, and writes its transition then, once, on %p',
    async databaseId => {
      const slice = sliceOf('payments-health', 'payments', 'production');
      const { knex, store, catalog } = await testbed.setup(databaseId, [slice]);
      const health = testbed.instance(store, catalog, 'a');
      const database = mockServices.database({ knex });
      const claimStore = await DatabaseClaimStore.create({ database });
      let failNextWrite = false;
      const writeRuns = claimStore.writeRuns.bind(claimStore);
      claimStore.writeRuns = async (...args) => {
        if (failNextWrite) {
          failNextWrite = false;
          throw new Error('Connection terminated unexpectedly');
        }
        return writeRuns(...args);
      };
      const logger = mockServices.logger.mock();
      const results = new OutageMode({
        instanceId: 'a',
        store: claimStore,
        journal: new OutageJournal({ maxEntries: 100 }),
        afterWrite: createRunFollowUp({
          store,
          transitions: health.transitions,
          logger,
        }),
        logger,
        retryMs: 60_000,
      });
      const membership = { instanceId: 'a', isOwner: () => true };
      const statuses = [200, 500, 500, 500];
      const probeTypes = new ProbeTypeRegistry();
      probeTypes.add({
        type: 'http',
        run: async (): Promise<ProbeResult> => ({
          ok: true,
          durationMs: 3,
          status: statuses.shift(),
        }),
      });
      const runner = new TickRunner({
        probeTypes,
        bulkhead: new Bulkhead(),
        logger,
        isCurrent: () => true,
        states: new CachedSliceStates({
          readSliceStates: ids => store.readSliceStates(ids),
        }),
        claims: createTickClaims({
          claimer: new TickClaimer({ store: claimStore, membership, logger }),
          store: claimStore,
          membership,
          results,
        }),
      });
      const firstTick = claimKeyAt(
        slice.id,
        Date.UTC(2026, 11, 1, 12),
        slice.intervalMs,
      );
      const runAt = async (n: number) => {
        const tick = {
          sliceId: slice.id,
          scheduledAt: firstTick + n * slice.intervalMs,
          generation: 1,
          slice,
        };
        const [record] = await Promise.all(runner.execute([tick]).values());
        // Results are written behind the probes.
        await results.flush();
        return record;
      };

      await runAt(0); // pass: healthy
      await runAt(1); // first failure: still healthy (two to go down)
      failNextWrite = true;
      const failedWrite = await runAt(2);
      expect(failNextWrite).toBe(false);
      const next = await runAt(3);

      expect(failedWrite).toMatchObject({
        status: 'unhealthy',
        statusChanged: true,
      });
      expect(next).toMatchObject({
        previousStatus: 'unhealthy',
        statusChanged: false,
      });
      expect(results.journaled).toBe(0);
      expect(
        (await store.readSliceStates([slice.id])).get(slice.id),
      ).toMatchObject({
        status: 'unhealthy',
        lastScheduledAt: firstTick + 3 * slice.intervalMs,
      });
      expect(
        health.events
          .of(ENVIRONMENT_CHANGED_TOPIC)
          .map((e: any) => `${e.environment} ${e.from}->${e.to}`),
      ).toEqual([
        'production unknown->healthy',
        'production healthy->unhealthy',
      ]);
      expect(health.notifications.sent.map(n => n.payload.title)).toEqual([
        'payments in production is unhealthy',
      ]);
    },
  );
});
