/*
 * The chaos suite: do faults lose anything? Three backend instances (the
 * real health-check plugin, each in a process of its own) share one
 * PostgreSQL database, every connection to it through a fault proxy the
 * suite controls; they probe loopback targets that record every hit, and
 * send their notifications to files. Each scenario makes one fault (see
 * chaosScenarios.ts); afterwards the suite reads the database and prints
 * one row of figures per scenario, each against its target.
 *
 *   yarn test:chaos      (from the repository root)
 *
 * Durations and the scenarios to run come from the environment (see
 * chaosSettings.ts). Exits 1 when any figure misses its target or a
 * scenario cannot finish, 0 when every target is met. Instance logs, the
 * notifications and the figures are left in test-results/chaos/.
 */
import { resolvePackagePath } from '@backstage/backend-plugin-api';
// A dev dependency on purpose: the chaos suite runs from source and is
// never part of the built plugin.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { mockCredentials } from '@backstage/backend-test-utils';
import type { Entity } from '@backstage/catalog-model';
import {
  existsSync,
  mkdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
// The portal tests' wait: the suite is test code, run from source.
// eslint-disable-next-line no-restricted-imports
import { waitFor } from '../__testUtils__/waitFor';
import { ChaosFleet } from './ChaosFleet';
import {
  announceFlips,
  probesOf,
  type RunRow,
  type SentNotification,
  type SuiteSlice,
  tickFigures,
} from './chaosFigures';
import type { RecordedNotification } from './chaosInstanceProcess';
import { chaosReport, type ScenarioResult } from './chaosReport';
import {
  ChaosApi,
  type ChaosContext,
  checkRequest,
  ENVIRONMENTS,
  FLIPPED_SYSTEMS,
  INSTANCE_NAMES,
  pgCtlCluster,
  ROLLUP_WINDOW_MS,
  type ScenarioRun,
  SCENARIOS,
} from './chaosScenarios';
import { readChaosSettings, type ScenarioName } from './chaosSettings';
import { ChaosTargets, FLIPPING_CHECK } from './ChaosTargets';
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

/** The suite's checks, by the path segment their targets use. */
const STEADY_CHECK = 'steady';
const ON_DEMAND_CHECK = 'on-demand';

/** What every instance is configured with. */
const INSTANCE_CONFIG = {
  network: { allowLoopback: true },
  // The suite's checks run every 2 s: many ticks in each fault.
  minimumInterval: '1s',
  rollup: { window: `${ROLLUP_WINDOW_MS}ms` },
  runNow: { perCallerPerMinute: 60 },
};

function system(name: string): Entity {
  return {
    apiVersion: 'backstage.io/v1alpha1',
    kind: 'System',
    metadata: {
      name,
      namespace: 'default',
      annotations: { 'vigil.dev/environments': ENVIRONMENTS.join(',') },
    },
    spec: { owner: 'group:default/chaos-team' },
  };
}

/** The flipped systems, the run-now check's and the churned checks'. */
const CATALOG = [...FLIPPED_SYSTEMS, ON_DEMAND_CHECK, 'churn'].map(system);

function log(message: string): void {
  process.stderr.write(`[chaos] ${message}\n`);
}

/** Every notification the instances recorded, as the figures read them. */
function readNotifications(): SentNotification[] {
  return INSTANCE_NAMES.flatMap(name => {
    const file = path.join(OUTPUT_DIR, `notifications-${name}.jsonl`);
    if (!existsSync(file)) {
      return [];
    }
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map(line => JSON.parse(line) as RecordedNotification)
      .map(sent => {
        // scope: healthcheck:system:default/<name>:<environment>
        const scope = sent.scope ?? '';
        const systemRef = scope.slice(
          'healthcheck:'.length,
          scope.lastIndexOf(':'),
        );
        return {
          at: sent.at,
          system: systemRef.slice(systemRef.indexOf('/') + 1),
          environment: scope.slice(scope.lastIndexOf(':') + 1),
          kind: / recovered$/.test(sent.title) ? 'recovered' : 'unhealthy',
          instance: sent.instance,
        };
      });
  });
}

/** Starts the fleet, makes the suite's checks, waits for every slice to be healthy. */
async function setUp(ctx: ChaosContext): Promise<void> {
  const { fleet, api, targets, database } = ctx;
  const started = Date.now();
  // The first runs the migrations; the others would race it for the lock.
  await fleet.start(INSTANCE_NAMES[0]);
  await Promise.all(INSTANCE_NAMES.slice(1).map(name => fleet.start(name)));
  log(`3 instances ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  const flipped = FLIPPED_SYSTEMS.map(name => `system:default/${name}`);
  for (const request of [
    checkRequest(STEADY_CHECK, targets.port, STEADY_CHECK, flipped, '2s'),
    checkRequest(FLIPPING_CHECK, targets.port, FLIPPING_CHECK, flipped, '2s'),
    checkRequest(
      ON_DEMAND_CHECK,
      targets.port,
      ON_DEMAND_CHECK,
      [`system:default/${ON_DEMAND_CHECK}`],
      '1h',
    ),
  ]) {
    const answer = await api.request(
      fleet.running()[0],
      'POST',
      '/checks',
      request,
    );
    if (answer.status !== 201) {
      throw new Error(
        `Could not make check ${request.id}: ${answer.status} ${JSON.stringify(
          answer.body,
        )}`,
      );
    }
  }
  // Two checks on each flipped system, one on its own system.
  const sliceCount = (2 * FLIPPED_SYSTEMS.length + 1) * ENVIRONMENTS.length;
  await waitFor(
    'every environment healthy in its rollup, and a first run of every slice',
    async () => {
      const [statuses, rollups, slices] = await Promise.all([
        database.readEnvironmentStatuses(),
        database.readRollups(),
        database.readSlices([STEADY_CHECK, FLIPPING_CHECK, ON_DEMAND_CHECK]),
      ]);
      const ran = new Set(
        (await database.readRuns(slices.map(s => s.id)))
          .filter(run => run.startedAt !== undefined)
          .map(run => run.sliceId),
      );
      return [
        ...FLIPPED_SYSTEMS.filter(
          name =>
            rollups.get(name)?.status !== 'healthy' ||
            ENVIRONMENTS.some(
              env => statuses.get(`${name}/${env}`) !== 'healthy',
            ),
        ),
        ...(slices.length < sliceCount ? ['slices still to come'] : []),
        // The run-now check's first probes must not fall in its scenario.
        ...slices.filter(s => !ran.has(s.id)).map(s => s.id),
      ];
    },
    notReady => notReady.length === 0,
    90_000,
  );
  log(
    `warm: every environment healthy ${((Date.now() - started) / 1000).toFixed(
      1,
    )} s after start`,
  );
}

/** A scenario's figures, from its timeline and what the database holds now. */
function resultOf(
  name: ScenarioName,
  run: ScenarioRun,
  data: {
    scheduled: SuiteSlice[];
    onDemand: SuiteSlice[];
    runs: RunRow[];
    targets: ChaosTargets;
    announced: ReturnType<typeof announceFlips>;
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
            `${slice.environment} via ${request.instance}: no run ${started.runId} in the database`,
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
        `${cutOffByKill} probe(s) cut off by the SIGKILL, not counted as lost`,
      );
    }
  }

  if (run.wrongAtEnd) {
    const flips = data.announced.flips.filter(a => during(a.flip.at));
    const unannounced = flips.filter(a => a.notifications === 0);
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
      spurious: data.announced.spurious.filter(n => during(n.at)).length,
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
  result.rollupsCorrectAfterMs = run.rollupsCorrectAfterMs;
  result.rollupWatchMs = run.rollupWatchMs;
  result.memory = run.memory;
  return result;
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
  const fleet = new ChaosFleet({
    logDir: OUTPUT_DIR,
    optionsOf: (name, first) => ({
      database: {
        client: 'pg',
        connection: {
          host: '127.0.0.1',
          port: proxy.port,
          user: decodeURIComponent(postgres.username) || 'postgres',
          ...(postgres.password
            ? { password: decodeURIComponent(postgres.password) }
            : {}),
        },
        // The suite made the database; only its name is the plugin's.
        ensureExists: false,
        plugin: { healthcheck: { connection: { database: database.name } } },
      },
      migrate: first,
      notificationsFile: path.join(OUTPUT_DIR, `notifications-${name}.jsonl`),
      entities: CATALOG,
      healthcheck: INSTANCE_CONFIG,
    }),
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
  };
  const stopNow = () => {
    fleet.killAllNow();
    process.exit(130);
  };
  process.once('SIGINT', stopNow);
  process.once('SIGTERM', stopNow);

  const runs: Array<{ name: ScenarioName; run?: ScenarioRun; error?: string }> =
    [];
  try {
    log(
      `database ${database.name} through the fault proxy on :${proxy.port}; targets on :${targets.port}; output in ${OUTPUT_DIR}`,
    );
    await setUp(ctx);
    for (const name of settings.scenarios) {
      const started = Date.now();
      log(`${name}: ${SCENARIOS[name].title}`);
      try {
        runs.push({ name, run: await SCENARIOS[name].run(ctx) });
      } catch (error) {
        runs.push({ name, error: String((error as Error)?.message ?? error) });
        log(`${name} could not finish: ${error}`);
        // Whatever it did to the database, undo it for the next scenario.
        proxy.reopen();
      }
      log(`${name} done in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
  } finally {
    await ensurePostgresRuns(ctx);
    await fleet.stopAll();
  }

  const allSlices = await database.readSlices([
    STEADY_CHECK,
    FLIPPING_CHECK,
    ON_DEMAND_CHECK,
  ]);
  const data = {
    scheduled: allSlices.filter(s => s.check !== ON_DEMAND_CHECK),
    onDemand: allSlices.filter(s => s.check === ON_DEMAND_CHECK),
    runs: await database.readRuns(allSlices.map(s => s.id)),
    targets,
    announced: announceFlips(targets.flips, readNotifications()),
  };
  const results = runs.map(({ name, run, error }) =>
    run ? resultOf(name, run, data) : { name, error, notes: [] },
  );
  const report = chaosReport(results);
  const lines = [
    '',
    `Chaos suite: 3 instances on one PostgreSQL through a fault proxy; ${
      data.scheduled.length
    } slices every 2 s, ${data.targets.hits.length} probes seen; outage ${
      settings.outageMs / 1000
    } s, latency ${settings.latencyMs} ms for ${
      settings.latencyWindowMs / 1000
    } s, churn ${settings.churnMs / 1000} s`,
    '',
    report.table,
    '',
    ...(report.misses.length > 0
      ? ['Missed targets:', ...report.misses.map(miss => `  - ${miss}`), '']
      : []),
    'Notes:',
    ...results.flatMap(r => r.notes.map(note => `  - ${r.name}: ${note}`)),
    '',
    `chaos: ${
      results.filter(
        r => !r.error && !report.misses.some(m => m.startsWith(`${r.name}:`)),
      ).length
    } of ${results.length} scenarios met every target, in ${(
      (Date.now() - suiteStarted) /
      1000
    ).toFixed(0)} s; logs and figures in ${
      path.relative(process.cwd(), OUTPUT_DIR) || OUTPUT_DIR
    }`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
  writeFileSync(path.join(OUTPUT_DIR, 'report.txt'), `${lines.join('\n')}\n`);
  writeFileSync(
    path.join(OUTPUT_DIR, 'figures.json'),
    JSON.stringify({ settings, runs, results }, null, 2),
  );
  writeFileSync(
    path.join(OUTPUT_DIR, 'hits.jsonl'),
    targets.hits.map(hit => JSON.stringify(hit)).join('\n'),
  );

  await targets.close();
  await proxy.close();
  await database.close({ keep: settings.keepDatabase });
  return report.passed ? 0 : 1;
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
