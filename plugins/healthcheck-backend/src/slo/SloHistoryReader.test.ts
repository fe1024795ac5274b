import {
  mockServices,
  TestDatabaseId,
  TestDatabases,
} from '@backstage/backend-test-utils';
import type { ResolvedServiceLevelObjective } from '@vigil/plugin-healthcheck-common';
import { Knex } from 'knex';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseHistoryStore } from '../history/DatabaseHistoryStore';
import { DatabaseMaintenanceStore } from '../maintenance/DatabaseMaintenanceStore';
import { MaintenanceCalendar } from '../maintenance/MaintenanceCalendar';
import { computeSlo } from './computeSlo';
import { DatabaseSloAlertStore } from './DatabaseSloAlertStore';
import { rawRangesFor, SloHistoryReader } from './SloHistoryReader';
import { evaluateSloAlerts, handleSloAlerts } from './sloAlerts';
import { testOutbox } from '../__testUtils__/testOutbox';
import { DEFAULT_BURN_RATE_ALERT_RULES } from './burnRateAlerts';

jest.setTimeout(120_000);

/** Midnight UTC, 1 November 2026; tests speak in hours and minutes of it. */
const DAY = Date.UTC(2026, 10, 1);
const HOUR = 3_600_000;
const MINUTE = 60_000;
const t = (h: number, m = 0) => DAY + h * HOUR + m * MINUTE;

const PAYMENTS = 'system:default/payments';
const API = 'healthcheck:default/api';
const DB = 'healthcheck:default/db';

const objective: ResolvedServiceLevelObjective = {
  systemRef: PAYMENTS,
  environment: 'production',
  indicator: { type: 'availability' },
  window: { type: 'rolling', durationMs: 24 * HOUR },
  budgetingMethod: 'Timeslices',
  target: 0.99,
};

describe('SloHistoryReader', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  /**
   * Two checks of payments in production, probed every 10 minutes from
   * 0:00 to 3:30. `api` is down from 1:00 to 1:20 (two failed runs);
   * `db` is always up. Hours 0-2 are aggregated by the history store.
   */
  async function setUp(databaseId: TestDatabaseId) {
    const knex = await databases.init(databaseId);
    const now = t(3, 30);
    const history = await DatabaseHistoryStore.create({
      database: mockServices.database({ knex, migrations: { skip: false } }),
      now: () => now,
    });
    await addSlice(knex, `${API}|payments|production`, API);
    await addSlice(knex, `${DB}|payments|production`, DB);
    const runs = [];
    for (let at = t(0); at < now; at += 10 * MINUTE) {
      const down = at === t(1, 0) || at === t(1, 10);
      runs.push(run(`${API}|payments|production`, at, down));
      runs.push(run(`${DB}|payments|production`, at, false));
    }
    await knex('healthcheck_runs').insert(runs);
    await history.aggregateHours(t(3));
    return { knex, now };
  }

  async function addSlice(knex: Knex, id: string, checkId: string) {
    await knex('healthcheck_slices').insert({
      id,
      check_id: checkId,
      system_ref: PAYMENTS,
      environment: 'production',
      paused: false,
      removed: false,
      interval_ms: 10 * MINUTE,
      timeout_ms: 5_000,
      config_hash: 'h',
      definition: null,
      revision: 1,
      updated_at: t(0),
    });
  }

  function run(sliceId: string, at: number, down: boolean) {
    return {
      slice_id: sliceId,
      scheduled_at: at,
      claimed_by: 'instance-a',
      claimed_at: at,
      started_at: at,
      duration_ms: 100,
      outcome: down ? 'fail' : 'pass',
      status: down ? 'unhealthy' : 'healthy',
    };
  }

  it.each(databases.eachSupportedId())(
    'gives one check the SLO of its hours and recent runs, and a system-level objective both checks, on %p',
    async databaseId => {
      const { knex, now } = await setUp(databaseId);
      const reader = new SloHistoryReader(knex, {
        rawRetentionMs: 14 * 24 * HOUR,
      });
      const query = {
        systemRef: PAYMENTS,
        environment: 'production',
        from: now - 24 * HOUR,
        to: now,
      };

      const api = await reader.read({ ...query, checkId: API }, now);
      expect([...api.keys()]).toEqual([`${API}|payments|production`]);
      const [apiHistory] = api.values();
      expect(
        apiHistory.hours.map(hour => (hour.hourStart - DAY) / HOUR),
      ).toEqual([0, 1, 2]);
      expect(apiHistory.rawRanges).toEqual([{ from: t(3), to: t(4) }]);
      // 3.5 hours known, 20 minutes of them down.
      const apiSlo = computeSlo(objective, [...api.values()], now);
      expect(apiSlo.good).toBe(190 * 60);
      expect(apiSlo.bad).toBe(20 * 60);

      const system = await reader.read(query, now);
      const systemSlo = computeSlo(objective, [...system.values()], now);
      expect(systemSlo.good).toBe((190 + 210) * 60);
      expect(systemSlo.bad).toBe(20 * 60);
    },
  );

  it.each(databases.eachSupportedId())(
    'reads the runs of an hour a maintenance window covers in part while they are kept, and prorates the hour after, on %p',
    async databaseId => {
      const { knex, now } = await setUp(databaseId);
      const query = {
        systemRef: PAYMENTS,
        environment: 'production',
        checkId: API,
        from: now - 24 * HOUR,
        to: now,
        excluded: [{ from: t(1, 5), to: t(1, 15) }],
      };

      const kept = new SloHistoryReader(knex, { rawRetentionMs: 24 * HOUR });
      const exact = computeSlo(
        objective,
        [...(await kept.read(query, now)).values()],
        now,
      );
      // Down 1:00-1:20, of which 1:05-1:15 is maintenance.
      expect(exact.bad).toBe(10 * 60);
      expect(exact.good).toBe(190 * 60);

      const pruned = new SloHistoryReader(knex, { rawRetentionMs: 0 });
      const prorated = computeSlo(
        objective,
        [...(await pruned.read(query, now)).values()],
        now,
      );
      // Hour 1 (40 min up, 20 down) counts for 50 of its 60 minutes.
      expect(prorated.bad).toBeCloseTo(20 * 60 * (50 / 60), 9);
      expect(prorated.good).toBeCloseTo(
        (190 - 40) * 60 + 40 * 60 * (50 / 60),
        9,
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'leaves out a maintenance window made through the API for the check it covers only, on %p',
    async databaseId => {
      const { knex, now } = await setUp(databaseId);
      const store = await DatabaseMaintenanceStore.create({
        database: mockServices.database({ knex, migrations: { skip: false } }),
        now: () => t(1),
      });
      await store.create({
        systemRef: PAYMENTS,
        checks: [API],
        startsAt: t(1, 5),
        endsAt: t(1, 15),
        createdBy: 'user:default/alice',
      });
      const calendar = new MaintenanceCalendar({
        catalog: {
          getEntities: async () => ({ items: [] }),
          getEntitiesByRefs: async () => ({ items: [] }),
        },
        auth: mockServices.auth(),
        store,
        logger: mockServices.logger.mock(),
        now: () => now,
      });
      const reader = new SloHistoryReader(knex, {
        rawRetentionMs: 24 * HOUR,
        maintenance: calendar,
      });

      const histories = await reader.read(
        {
          systemRef: PAYMENTS,
          environment: 'production',
          from: now - 24 * HOUR,
          to: now,
        },
        now,
      );
      const excluded = (sliceId: string) =>
        histories.get(sliceId)?.excluded ?? 'no such slice';
      expect(excluded(`${API}|payments|production`)).toEqual([
        { from: t(1, 5), to: t(1, 15) },
      ]);
      expect(excluded(`${DB}|payments|production`)).toEqual([]);
      // api down 1:00-1:20, of which 1:05-1:15 is maintenance.
      const slo = computeSlo(objective, [...histories.values()], now);
      expect(slo.bad).toBe(10 * 60);
      expect(slo.good).toBe((190 + 210) * 60);
    },
  );

  it.each(databases.eachSupportedId())(
    'pages and tickets the owner once per condition while the budget burns fast, and tells the recovery once, on %p',
    async databaseId => {
      const { knex } = await setUp(databaseId);
      const reader = new SloHistoryReader(knex, { rawRetentionMs: 24 * HOUR });
      const store = new DatabaseSloAlertStore(knex);
      const sent: Array<{ entityRef: string; title: string; scope: string }> =
        [];
      const notifications = {
        send: async (options: any) => {
          sent.push({
            entityRef: options.recipients.entityRef,
            title: options.payload.title,
            scope: options.payload.scope,
          });
        },
      };
      const objectives = [
        {
          ref: 'servicelevelobjective:default/api-up',
          title: 'API is up',
          objective: { ...objective, checkRef: API },
        },
      ];
      let clock = 0;
      const outbox = testOutbox(knex, { now: () => clock });
      handleSloAlerts(outbox.dispatcher, notifications);
      /** An evaluation at `now`, and the delivery of what it wrote. */
      const evaluate = async (now: number) => {
        clock = now;
        const evaluated = await evaluateSloAlerts({
          objectives,
          reader,
          store,
          outbox: outbox.dispatcher,
          rules: DEFAULT_BURN_RATE_ALERT_RULES,
          logger: mockServices.logger.mock(),
          now,
        });
        await outbox.deliver();
        return evaluated;
      };

      // api fails again at 3:00 and 3:10, in the hour not aggregated yet.
      await knex('healthcheck_runs')
        .where({ slice_id: `${API}|payments|production` })
        .whereIn('scheduled_at', [t(3, 0), t(3, 10)])
        .update({ outcome: 'fail', status: 'unhealthy' });
      const page =
        'API is up (payments in production) burns its error budget 14.4x too fast';
      const ticket =
        'API is up (payments in production) burns its error budget 6x too fast';
      // At 3:15: down 15 of the last 60 minutes (25x) and all of the last 5
      // (100x); 35 of the 195 known minutes of the last 6 hours (18x) and
      // 15 of the last 30 (50x).
      await evaluate(t(3, 15));
      await evaluate(t(3, 16));
      expect(sent).toEqual([
        {
          entityRef: PAYMENTS,
          title: page,
          scope: 'healthcheck-slo:servicelevelobjective:default/api-up:page',
        },
        {
          entityRef: PAYMENTS,
          title: ticket,
          scope: 'healthcheck-slo:servicelevelobjective:default/api-up:ticket',
        },
      ]);
      // At 3:30 the last 5 minutes are up again: the page ends, the ticket
      // (20 of the last 30 minutes down) goes on.
      await evaluate(t(3, 30));
      await evaluate(t(3, 31));
      expect(sent.slice(2)).toEqual([
        {
          entityRef: PAYMENTS,
          title:
            'API is up (payments in production) no longer burns its error budget too fast',
          scope: sent[0].scope,
        },
      ]);
      expect(await store.readFiring()).toEqual(
        new Map([
          ['servicelevelobjective:default/api-up', new Set(['ticket'])],
        ]),
      );
    },
  );

  it.each(databases.eachSupportedId())(
    'forgets the conditions of objectives that left the catalog, on %p',
    async databaseId => {
      const knex = await databases.init(databaseId);
      await DatabaseHistoryStore.create({
        database: mockServices.database({ knex, migrations: { skip: false } }),
      });
      const store = new DatabaseSloAlertStore(knex);
      await store.record(
        'servicelevelobjective:default/a',
        'page',
        'firing',
        t(1),
      );
      await store.record(
        'servicelevelobjective:default/b',
        'ticket',
        'firing',
        t(1),
      );
      await store.record(
        'servicelevelobjective:default/b',
        'ticket',
        'firing',
        t(2),
      );
      expect(
        await store.prune(new Set(['servicelevelobjective:default/b'])),
      ).toBe(1);
      expect(await store.readFiring()).toEqual(
        new Map([['servicelevelobjective:default/b', new Set(['ticket'])]]),
      );
    },
  );
});

describe('rawRangesFor', () => {
  it('reads raw the hours not aggregated yet and the kept hours an exclusion starts or ends inside', () => {
    expect(
      rawRangesFor(
        {
          from: t(0, 30),
          to: t(10, 20),
          excluded: [
            { from: t(1, 5), to: t(3) },
            { from: t(5, 40), to: t(6, 10) },
          ],
        },
        { aggregatedUntil: t(9), rawKeptFrom: t(2) },
      ),
    ).toEqual([
      // 1:05 is before the runs kept; 3:00 is an hour's edge.
      { from: t(5), to: t(7) },
      { from: t(9), to: t(11) },
    ]);
  });
});
