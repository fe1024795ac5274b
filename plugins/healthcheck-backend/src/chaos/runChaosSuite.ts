/*
 * The chaos suite: do faults lose anything? Three backend instances (the
 * real health-check plugin, each in a process of its own) share one
 * PostgreSQL database, every connection to it through a fault proxy the
 * suite controls; they probe loopback targets that record every hit, and
 * notify the owner through Backstage's notifications backend in their own
 * processes. Each scenario makes one fault (see chaosScenarios.ts and
 * notificationScenarios.ts); afterwards the suite reads the databases (the
 * notifications as the owner has them) and prints one row of figures per
 * scenario, each against its target.
 *
 *   yarn test:chaos      (from the repository root)
 *
 * Durations and the scenarios to run come from the environment (see
 * chaosSettings.ts). Exits 1 when any figure misses its target or a
 * scenario cannot finish, 0 when every target is met. Instance logs, the
 * hits and the figures are left in test-results/chaos/.
 */
import { resolvePackagePath } from '@backstage/backend-plugin-api';
// A dev dependency on purpose: the chaos suite runs from source and is
// never part of the built plugin.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { mockCredentials } from '@backstage/backend-test-utils';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chaosFleet, chaosSystem, readOwnerNotifications } from './chaosSetup';
import {
  announceFlips,
  probesOf,
  type RunRow,
  type SentNotification,
  type SuiteSlice,
  tickFigures,
} from './chaosFigures';
import { chaosReport, type ScenarioResult } from './chaosReport';
import {
  beginScenario,
  ChaosApi,
  type ChaosContext,
  CHURN_SYSTEM,
  ENVIRONMENTS,
  FLIPPED_SYSTEMS,
  ON_DEMAND_CHECK,
  pgCtlCluster,
  ROLLUP_WINDOW_MS,
  type ScenarioRun,
  SCENARIOS,
  startFleet,
  SUITE_CHECKS,
} from './chaosScenarios';
import { readChaosSettings } from './chaosSettings';
import { ChaosTargets } from './ChaosTargets';
import {
  HEARTBEAT_CHECK,
  HEARTBEAT_SYSTEM,
  startChaosHeartbeat,
} from './chaosHeartbeat';
import { heartbeatReport, scenarioHeartbeat } from './heartbeatFigures';
import { FaultProxy } from './FaultProxy';
import { SuiteDatabase } from './SuiteDatabase';

/** Beside the browser test's output: test-results/ at the repository root. */
const OUTPUT_DIR = resolvePackagePath(
  '@vigil/plugin-healthcheck-backend',
  '../../test-results/chaos',
);
const DEFAULT_POSTGRES_URL = 'postgresql://postgres@127.0.0.1:5432';
/** A probe (1 s timeout) under way when its instance is SIGKILLed can never be recorded. */
const KILL_CUT_OFF_MS = 2_000;

/** What every instance is configured with. */
const INSTANCE_CONFIG = {
  network: { allowLoopback: true },
  // The suite's checks run every 2 s: many ticks in each fault.
  minimumInterval: '1s',
  rollup: { window: `${ROLLUP_WINDOW_MS}ms` },
  runNow: { perCallerPerMinute: 60 },
  // The heartbeat's job pings each URL every second, through fewer
  // instances while one restarts.
  heartbeats: { pingsPerMinute: 120 },
};

/** Scenarios whose database fault the heartbeat check must ride out. */
const HEARTBEAT_JUDGED_IN = ['db-drop', 'pg-restart'];

/** Time for the heartbeat's first notifications, if any, to be delivered. */
const HEARTBEAT_SETTLE_MS = 5_000;

/** The flipped systems, the run-now check's and the churned checks'. */
const CATALOG = [
  ...FLIPPED_SYSTEMS,
  ON_DEMAND_CHECK,
  CHURN_SYSTEM,
  HEARTBEAT_SYSTEM,
].map(chaosSystem);

function log(message: string): void {
  process.stderr.write(`[chaos] ${message}\n`);
}

/** A scenario's figures, from its timeline and what the database holds now. */
function resultOf(
  name: string,
  run: ScenarioRun,
  data: {
    scheduled: SuiteSlice[];
    onDemand: SuiteSlice[];
    runs: RunRow[];
    targets: ChaosTargets;
    announced: ReturnType<typeof announceFlips>;
    notifications: SentNotification[];
  },
): ScenarioResult {
  const { timeline } = run;
  const during = (at: number) => timeline.from <= at && at < timeline.to;
  const result: ScenarioResult = { name, notes: [...run.notes] };

  if (run.runNow) {
    const completed = new Set(
      data.runs
        .filter(r => r.startedAt !== undefined)
        .map(r => `${r.sliceId}@${r.scheduledAt}`),
    );
    const asked = run.runNow.length;
    const runNow = {
      expected: 0,
      probed: 0,
      extra: 0,
      missed: [] as string[],
      lost: [] as string[],
    };
    for (const slice of data.onDemand) {
      const probes = data.targets.hits.filter(
        hit =>
          hit.check === ON_DEMAND_CHECK &&
          hit.system === slice.system &&
          hit.environment === slice.environment &&
          during(hit.at),
      ).length;
      runNow.expected += asked;
      runNow.probed += Math.min(probes, asked);
      runNow.extra += Math.max(0, probes - asked);
      if (probes < asked) {
        runNow.missed.push(
          `${slice.environment}: ${probes} of ${asked} probed`,
        );
      }
      for (const request of run.runNow) {
        const started = request.runs.find(r => r.sliceId === slice.id);
        if (!started) {
          runNow.lost.push(
            `${slice.environment} via ${request.instance}: not started (answer ${request.status})`,
          );
        } else if (!completed.has(started.runId)) {
          runNow.lost.push(
            `${slice.environment} via ${request.instance}: no run in the database`,
          );
        }
      }
    }
    result.runNow = runNow;
  } else {
    const probes = probesOf(data.targets.hits, data.scheduled, data.runs);
    result.ticks = tickFigures({
      timeline,
      slices: data.scheduled,
      probes,
      runs: data.runs,
      killCutOffMs: KILL_CUT_OFF_MS,
    });
    const { takeover, cutOffByKill } = result.ticks;
    if (takeover.due > 0) {
      result.notes.push(
        `ticks due in takeover windows (no target): ${takeover.probed}/${takeover.due} probed`,
      );
    }
    if (cutOffByKill > 0) {
      result.notes.push(
        `${cutOffByKill} tick(s) claimed or probed by the SIGKILLed instance just before, cut off: not counted as due or lost`,
      );
    }
  }

  if (run.wrongAtEnd) {
    const flips = data.announced.flips.filter(a => during(a.flip.at));
    const unannounced = flips.filter(a => a.notifications === 0);
    const spurious = data.announced.spurious.filter(n => during(n.at));
    // What the owner has more of than once, or of no flip, with its scope:
    // one scope twice is the notifications backend's doing, two scopes two
    // transitions stored.
    const since = (at: number) =>
      `+${((at - timeline.from) / 1000).toFixed(1)} s`;
    const described = (n: SentNotification) =>
      `${n.kind} ${n.scope} at ${since(n.at)}`;
    for (const a of flips.filter(f => f.notifications > 1)) {
      result.notes.push(
        `${a.flip.system}/${a.flip.environment} ${
          a.flip.failing ? 'failing' : 'healed'
        } at ${since(a.flip.at)}: the owner has ${
          a.notifications
        } notifications of it: ${a.by.map(described).join('; ')}`,
      );
    }
    if (spurious.length > 0) {
      result.notes.push(
        `notifications of no flip: ${examplesOf(spurious.map(described))}`,
      );
    }
    const lostEnvironments = new Set(
      unannounced.map(a => `${a.flip.system}/${a.flip.environment}`),
    );
    result.transitions = {
      real: flips.length,
      once: flips.filter(a => a.notifications === 1).length,
      repeats: flips.reduce(
        (sum, a) => sum + Math.max(0, a.notifications - 1),
        0,
      ),
      spurious: spurious.length,
      lost: [
        ...unannounced.map(
          a =>
            `${a.flip.system}/${a.flip.environment} ${
              a.flip.failing ? 'failing' : 'healed'
            } at +${((a.flip.at - timeline.from) / 1000).toFixed(
              0,
            )} s, never announced`,
        ),
        ...run.wrongAtEnd.filter(
          wrong => !lostEnvironments.has(wrong.split(' ')[0]),
        ),
      ],
    };
  }
  // At least once on the wire, once as the owner sees it: say how often
  // the first half happened.
  const updated = data.notifications.filter(
    n => n.updatedAt !== undefined && during(n.updatedAt),
  ).length;
  if (updated > 0) {
    result.notes.push(
      `${updated} notification(s) delivered again into a scope the owner had: updated in place, not added`,
    );
  }
  result.rollupsCorrectAfterMs = run.rollupsCorrectAfterMs;
  result.rollupWatchMs = run.rollupWatchMs;
  result.memory = run.memory;
  return result;
}

/** A few of a list, and how many more. */
function examplesOf(list: readonly string[], most = 5): string {
  return `${list.slice(0, most).join('; ')}${
    list.length > most ? `; +${list.length - most} more` : ''
  }`;
}

/** A scenario as it went: its script's record, or why it could not finish. */
interface Outcome {
  name: string;
  run?: ScenarioRun;
  error?: string;
}

/** Starts the fleet, then runs each scenario, each judged on its own doing. */
async function runScenarios(ctx: ChaosContext): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const attempt = async (
    name: string,
    title: string,
    script: (c: ChaosContext) => Promise<ScenarioRun>,
  ) => {
    const started = Date.now();
    log(`${name}: ${title}`);
    // Before the start there is nothing to inherit, nor tables to read.
    const inherited = name === 'start' ? [] : await beginScenario(ctx);
    try {
      const run = await script(ctx);
      if (inherited.length > 0) {
        run.notes.push(
          `wrong when it began, left out of its figures: ${inherited.join(
            '; ',
          )}`,
        );
      }
      outcomes.push({ name, run });
    } catch (error) {
      outcomes.push({
        name,
        error: String((error as Error)?.message ?? error),
      });
      log(`${name} could not finish: ${error}`);
      // Whatever it did to the database, undo it for the next scenario.
      ctx.proxy.reopen();
      await ensurePostgresRuns(ctx);
    }
    log(`${name} done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  };

  await attempt(
    'start',
    'three instances start, the suite makes its checks',
    startFleet,
  );
  if (outcomes[0].error) {
    return outcomes;
  }
  // A job that never misses a ping, through every scenario after.
  ctx.heartbeat = await startChaosHeartbeat({
    api: ctx.api,
    instances: () => ctx.fleet.running(),
    database: ctx.database,
    environments: ENVIRONMENTS,
  });
  log(
    `  heartbeat ${HEARTBEAT_CHECK} on ${HEARTBEAT_SYSTEM} pinged every second`,
  );
  await sleep(HEARTBEAT_SETTLE_MS);
  for (const name of ctx.settings.scenarios) {
    await attempt(name, SCENARIOS[name].title, SCENARIOS[name].run);
  }
  return outcomes;
}

/** Reads the database and the recordings, and prints and writes the report. */
async function report(
  ctx: ChaosContext,
  outcomes: Outcome[],
  suiteStarted: number,
): Promise<boolean> {
  const { database, targets, settings } = ctx;
  const allSlices = await database.readSlices(SUITE_CHECKS);
  const notifications = await readOwnerNotifications(database);
  const data = {
    scheduled: allSlices.filter(s => s.check !== ON_DEMAND_CHECK),
    onDemand: allSlices.filter(s => s.check === ON_DEMAND_CHECK),
    runs: await database.readRuns(allSlices.map(s => s.id)),
    targets,
    announced: announceFlips(targets.flips, notifications),
    notifications,
  };
  const results = outcomes.map(({ name, run, error }) =>
    run ? resultOf(name, run, data) : { name, error, notes: [] },
  );
  await judgeHeartbeat(ctx, outcomes, results, data.announced.spurious);
  const { table, misses, passed } = chaosReport(results);
  const missedBy = (name: string) =>
    misses.some(miss => miss.startsWith(`${name}:`));
  const lines = [
    '',
    `Chaos suite: 3 instances on one PostgreSQL through a fault proxy; ${
      data.scheduled.length
    } slices every 2 s, ${targets.hits.length} probes seen; outage ${
      settings.outageMs / 1000
    } s, latency ${settings.latencyMs} ms for ${
      settings.latencyWindowMs / 1000
    } s, notifications refused ${settings.notifyRefusalMs / 1000} s, churn ${
      settings.churnMs / 1000
    } s`,
    '',
    table,
    '',
    ...(misses.length > 0
      ? ['Missed targets:', ...misses.map(miss => `  - ${miss}`), '']
      : []),
    'Notes:',
    ...results.flatMap(r => r.notes.map(note => `  - ${r.name}: ${note}`)),
    '',
    `chaos: ${results.filter(r => !missedBy(r.name)).length} of ${
      results.length
    } rows met every target, in ${((Date.now() - suiteStarted) / 1000).toFixed(
      0,
    )} s; logs, hits and figures in ${OUTPUT_DIR}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  writeFileSync(path.join(OUTPUT_DIR, 'report.txt'), `${lines.join('\n')}\n`);
  writeFileSync(
    path.join(OUTPUT_DIR, 'figures.json'),
    JSON.stringify({ settings, outcomes, results }, null, 2),
  );
  writeFileSync(
    path.join(OUTPUT_DIR, 'hits.jsonl'),
    targets.hits.map(hit => JSON.stringify(hit)).join('\n'),
  );
  return passed;
}

async function main(): Promise<number> {
  const settings = readChaosSettings(process.env);
  const suiteStarted = Date.now();
  rmSync(OUTPUT_DIR, { recursive: true, force: true });
  mkdirSync(OUTPUT_DIR, { recursive: true });
  const postgresUrl =
    process.env.BACKSTAGE_TEST_DATABASE_POSTGRES15_CONNECTION_STRING ??
    DEFAULT_POSTGRES_URL;
  const postgres = new URL(postgresUrl);

  const database = await SuiteDatabase.create(postgresUrl);
  const proxy = await FaultProxy.start({
    host: postgres.hostname,
    port: Number(postgres.port || 5432),
  });
  const fleet = chaosFleet({
    outputDir: OUTPUT_DIR,
    postgresUrl,
    proxy,
    database,
    entities: CATALOG,
    healthcheck: INSTANCE_CONFIG,
  });
  const targets = await ChaosTargets.start(() => fleet.pidNames());
  const ctx: ChaosContext = {
    settings,
    fleet,
    proxy,
    targets,
    database,
    api: new ChaosApi(mockCredentials.user.header()),
    log,
    judgedFrom: Date.now(),
    inherited: new Set(),
  };
  const stopNow = () => {
    fleet.killAllNow();
    process.exit(130);
  };
  process.once('SIGINT', stopNow);
  process.once('SIGTERM', stopNow);

  try {
    log(
      `database ${database.name} through the fault proxy on :${proxy.port}; targets on :${targets.port}; output in ${OUTPUT_DIR}`,
    );
    let outcomes: Outcome[];
    try {
      outcomes = await runScenarios(ctx);
    } finally {
      await ctx.heartbeat?.stop();
      await ensurePostgresRuns(ctx);
      await fleet.stopAll();
    }
    return (await report(ctx, outcomes, suiteStarted)) ? 0 : 1;
  } finally {
    await targets.close();
    await proxy.close();
    await database.close({ keep: settings.keepDatabase });
  }
}

/**
 * The heartbeat pinged throughout must ride out each database fault: a
 * transition or a refused ping is a miss (in its row's transitions lost),
 * and a notification of its system is spurious (its system has no flips).
 */
async function judgeHeartbeat(
  ctx: ChaosContext,
  outcomes: Outcome[],
  results: ScenarioResult[],
  notifications: ReturnType<typeof announceFlips>['spurious'],
): Promise<void> {
  const pinger = ctx.heartbeat;
  if (!pinger) {
    return;
  }
  const runs = await ctx.database.readRunStatuses(HEARTBEAT_CHECK);
  outcomes.forEach(({ name, run }, i) => {
    const figures =
      run &&
      HEARTBEAT_JUDGED_IN.includes(name) &&
      scenarioHeartbeat({
        system: HEARTBEAT_SYSTEM,
        timeline: run.timeline,
        answers: pinger.answers,
        runs,
        notifications,
      });
    if (!figures) {
      return;
    }
    const { note, misses } = heartbeatReport(HEARTBEAT_SYSTEM, figures);
    results[i].notes.push(note);
    results[i].transitions?.lost.push(...misses);
  });
}

/** Never leaves PostgreSQL stopped, whatever a scenario did to it. */
async function ensurePostgresRuns(ctx: ChaosContext): Promise<void> {
  try {
    await ctx.database.knex.raw('select 1');
  } catch {
    log('PostgreSQL does not answer; starting it');
    await pgCtlCluster(ctx.settings, 'start').catch(error =>
      log(String(error)),
    );
    await sleep(2_000);
  }
}

main().then(
  code => process.exit(code),
  error => {
    process.stderr.write(
      `[chaos] the suite failed: ${error?.stack ?? error}\n`,
    );
    process.exit(1);
  },
);
