// A dev dependency on purpose, as in the chaos suite.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { mockCredentials } from '@backstage/backend-test-utils';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import {
  announceFlips,
  probesOf,
  type ScenarioTimeline,
  tickFigures,
} from '../chaos/chaosFigures';
import type { ChaosFleet } from '../chaos/ChaosFleet';
import {
  chaosFleet,
  chaosSystem,
  readOwnerNotifications,
} from '../chaos/chaosSetup';
import { ChaosApi, checkRequest, ENVIRONMENTS } from '../chaos/chaosScenarios';
import { ChaosTargets, FLIPPING_CHECK } from '../chaos/ChaosTargets';
import { FaultProxy } from '../chaos/FaultProxy';
import {
  HEARTBEAT_CHECK,
  HEARTBEAT_SYSTEM,
  startChaosHeartbeat,
} from '../chaos/chaosHeartbeat';
import { heartbeatFigures } from '../chaos/heartbeatFigures';
import { SuiteDatabase } from '../chaos/SuiteDatabase';

/*
 * Outage mode with two real instances (the plugin in a backend each, in
 * processes of their own, as the chaos suite starts them) on one
 * PostgreSQL, every connection through a fault proxy that cuts the
 * database for 10 s while one environment's target fails. Every due tick
 * is probed throughout, each by one instance; every probe lands in the
 * database once; the owner has the failure once in Backstage's
 * notifications backend (in each instance); the rollups are right within
 * 10 s of the database's return; and meanwhile the API answers the last
 * rollup it read, marked stale. A heartbeat check pinged every second
 * throughout, through both instances in turn, takes every ping, changes
 * no status and pages nobody.
 */

const INSTANCES = ['chaos-a', 'chaos-b'];
const SYSTEMS = ['alpha', 'bravo'];
const CHECKS = ['steady', FLIPPING_CHECK];
const OUTAGE_MS = 10_000;
/** The fleet at work before the cut, and watched after it. */
const BEFORE_MS = 4_000;
const AFTER_MS = 12_000;
const WRITE_SETTLE_MS = 3_000;
const ROLLUPS_WITHIN_MS = 10_000;
const POSTGRES_URL =
  process.env.BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING ??
  'postgresql://postgres@127.0.0.1:5432';

const postgres = requiredTestDatabases().includes('POSTGRES_15');
/** Processes that share the machine's cores: run alone, as the multi-instance test. */
const runHere = process.env.VIGIL_MULTI_INSTANCE_TEST === '1';

jest.setTimeout(240_000);

(postgres && runHere ? describe : describe.skip)(
  'a database outage with two instances',
  () => {
    const outputDir = mkdtempSync(path.join(tmpdir(), 'vigil-outage-'));
    let database: SuiteDatabase;
    let proxy: FaultProxy;
    let fleet: ChaosFleet;
    let targets: ChaosTargets;

    beforeAll(async () => {
      database = await SuiteDatabase.create(POSTGRES_URL);
      const url = new URL(POSTGRES_URL);
      proxy = await FaultProxy.start({
        host: url.hostname,
        port: Number(url.port || 5432),
      });
      fleet = chaosFleet({
        outputDir,
        postgresUrl: POSTGRES_URL,
        proxy,
        database,
        entities: [...SYSTEMS, HEARTBEAT_SYSTEM].map(chaosSystem),
        healthcheck: {
          network: { allowLoopback: true },
          minimumInterval: '1s',
          rollup: { window: '2s' },
          heartbeats: { pingsPerMinute: 120 },
        },
      });
      targets = await ChaosTargets.start(() => fleet.pidNames());
      await fleet.start(INSTANCES[0]);
      await fleet.start(INSTANCES[1]);
    });

    afterAll(async () => {
      proxy?.reopen();
      await fleet?.stopAll();
      await targets?.close();
      await proxy?.close();
      await database?.close({ keep: false });
      rmSync(outputDir, { recursive: true, force: true });
    });

    it('probes every tick through a 10 s outage, writes each once, tells the failure once, and has the rollups right after', async () => {
      const api = new ChaosApi(mockCredentials.user.header());
      const [a] = fleet.running();
      const systemRefs = SYSTEMS.map(name => `system:default/${name}`);
      for (const check of CHECKS) {
        const made = await api.request(
          a,
          'POST',
          '/checks',
          checkRequest(check, targets.port, check, systemRefs, '2s'),
        );
        expect(made.status).toBe(201);
      }
      const pinger = await startChaosHeartbeat({
        api,
        instances: () => fleet.running(),
        database,
        environments: ENVIRONMENTS,
      });
      const slices = await waitForFirstRuns(database, 12);
      // The rollups every instance has read, for the outage to answer with.
      await waitForRollups(database, targets, 20_000);
      for (const instance of fleet.running()) {
        expect(
          (await api.request(instance, 'GET', '/systems/default/alpha')).status,
        ).toBe(200);
      }

      const from = Date.now();
      await sleep(BEFORE_MS);
      const cutAt = Date.now();
      proxy.drop();
      await sleep(2_000);
      targets.flip('alpha', 'production', true);
      await sleep(5_000);
      const during = await api.request(a, 'GET', '/systems/default/alpha');
      await sleep(cutAt + OUTAGE_MS - Date.now());
      proxy.reopen();
      const backAt = Date.now();
      const rollupsRightAfter = await waitForRollups(
        database,
        targets,
        ROLLUPS_WITHIN_MS,
      );
      await sleep(backAt + AFTER_MS - Date.now());
      const to = Date.now();
      // Runs are written behind their probes: the last ticks' runs land a
      // moment after \`to\`, and are not lost for that.
      await sleep(WRITE_SETTLE_MS);

      // The API answered from the last rollup it read, marked stale.
      expect(during.status).toBe(200);
      expect(during.body).toMatchObject({ stale: true });
      expect(rollupsRightAfter).not.toBeNull();

      const runs = await database.readRuns(slices.map(s => s.id));
      const timeline: ScenarioTimeline = {
        name: 'outage',
        from,
        to,
        faults: [{ phase: 'outage', from: cutAt, to: backAt }],
        takeovers: [],
        kills: [],
      };
      const figures = tickFigures({
        timeline,
        slices,
        probes: probesOf(targets.hits, slices, runs),
        runs,
        killCutOffMs: 0,
      });
      expect(figures.up.probed).toBe(figures.up.due);
      expect(figures.fault.due).toBeGreaterThanOrEqual(50);
      expect(figures.fault.probed).toBe(figures.fault.due);
      expect(figures.runTwice).toEqual([]);
      // Every probe stands in one completed run, every due tick has one.
      expect(figures.lost).toEqual([]);

      const notifications = await readOwnerNotifications(database);
      const { flips, spurious } = announceFlips(
        targets.flips,
        notifications.filter(sent => SYSTEMS.includes(sent.system)),
      );
      expect(flips.map(flip => flip.notifications)).toEqual([1]);
      expect(spurious).toEqual([]);

      await pinger.stop();
      // From the cut: its first recovery (it had no ping URL) came before.
      const heartbeat = heartbeatFigures({
        system: HEARTBEAT_SYSTEM,
        from: cutAt,
        to,
        answers: pinger.answers,
        runs: await database.readRunStatuses(HEARTBEAT_CHECK),
        notifications,
      });
      expect(heartbeat.refused).toEqual([]);
      expect(heartbeat.journaled).toBeGreaterThan(0);
      expect(heartbeat.transitions).toEqual([]);
      expect(heartbeat.notified).toEqual([]);
      process.stdout.write(
        `outage: ${figures.fault.probed}/${figures.fault.due} ticks probed during the 10 s outage, ${figures.up.probed}/${figures.up.due} outside it; rollups right ${rollupsRightAfter} ms after the return; heartbeat: ${heartbeat.pings} pings (${heartbeat.journaled} journaled), no transition, no notification\n`,
      );
    });
  },
);

/** The suite's slices once each has had a first completed run. */
async function waitForFirstRuns(database: SuiteDatabase, count: number) {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const slices = await database.readSlices(CHECKS);
    const ran = new Set(
      (await database.readRuns(slices.map(s => s.id)))
        .filter(run => run.startedAt !== undefined)
        .map(run => run.sliceId),
    );
    if (slices.length === count && slices.every(s => ran.has(s.id))) {
      return slices;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `${ran.size} of ${count} slices had a first run within 90 s`,
      );
    }
    await sleep(250);
  }
}

/**
 * How long until every stored rollup shows what the targets say, each
 * environment and the system; null when not within `withinMs`.
 */
async function waitForRollups(
  database: SuiteDatabase,
  targets: ChaosTargets,
  withinMs: number,
): Promise<number | null> {
  const since = Date.now();
  while (Date.now() - since <= withinMs) {
    const rollups = await database.readRollups().catch(() => undefined);
    const right = SYSTEMS.every(system => {
      const rollup = rollups?.get(system);
      const statuses = ENVIRONMENTS.map(env =>
        targets.isFailing(system, env) ? 'unhealthy' : 'healthy',
      );
      return (
        rollup !== undefined &&
        ENVIRONMENTS.every(
          (env, i) => rollup.environments.get(env) === statuses[i],
        ) &&
        rollup.status ===
          (statuses.includes('unhealthy') ? 'unhealthy' : 'healthy')
      );
    });
    if (right) {
      return Date.now() - since;
    }
    await sleep(250);
  }
  return null;
}
