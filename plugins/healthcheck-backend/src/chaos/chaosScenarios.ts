/*
 * The chaos suite's scenarios: each a script against the running fleet
 * that makes one fault, flips some targets meanwhile, and records when it
 * did what (its timeline) and what it measured live (the wait for correct
 * rollups, memory). The figures that need the database's final word are
 * computed after every scenario has run (see runChaosSuite.ts).
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosFleet } from './ChaosFleet';
import type { MemoryReport } from './chaosInstanceProcess';
import type { ScenarioTimeline } from './chaosFigures';
import type { ScenarioResult } from './chaosReport';
import type { ChaosSettings, ScenarioName } from './chaosSettings';
import { type ChaosTargets, FLIPPING_CHECK } from './ChaosTargets';
import type { FaultProxy } from './FaultProxy';
import type { HeartbeatPinger } from './HeartbeatPinger';
import {
  killedMidTransition,
  notificationsRefused,
  rollingDeploy,
} from './notificationScenarios';
import type { SuiteDatabase } from './SuiteDatabase';

/** The suite's checks, named as the path segment of their targets. */
export const STEADY_CHECK = 'steady';
export const ON_DEMAND_CHECK = 'on-demand';
export const SUITE_CHECKS = [STEADY_CHECK, FLIPPING_CHECK, ON_DEMAND_CHECK];

/** The systems whose targets the scenarios flip, each with three environments. */
export const FLIPPED_SYSTEMS = ['alpha', 'bravo', 'charlie', 'delta'];
export const ENVIRONMENTS = ['production', 'staging', 'dev'];
export const INSTANCE_NAMES = ['chaos-a', 'chaos-b', 'chaos-c'];
/** The system of the churned checks: none of the scenarios' rollups. */
export const CHURN_SYSTEM = 'churn';
/** The instances' rollup window (`healthcheck.rollup.window`). */
export const ROLLUP_WINDOW_MS = 2_000;
/**
 * How long the others take to run a dead instance's slices: a heartbeat
 * (5 s) and the TTL (15 s), the instances' defaults, and the heartbeat that
 * finds it gone: its own reads, and the claims after them, take a while on
 * a busy machine (ticks 0.1-0.3 s past 20 s went unclaimed). Ticks due in
 * this window after an instance dies or leaves have no target.
 */
export const TAKEOVER_MS = 22_000;
/** The database is up this long before a fault, so the fault starts on a fleet at work. */
export const BEFORE_FAULT_MS = 5_000;
/** Between polls of the stored statuses and rollups. */
const POLL_MS = 250;

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** What the scenarios work with. @internal */
export interface ChaosContext {
  settings: ChaosSettings;
  fleet: ChaosFleet;
  proxy: FaultProxy;
  targets: ChaosTargets;
  database: SuiteDatabase;
  api: ChaosApi;
  log(message: string): void;
  /** When the scenario under way began to be judged. */
  judgedFrom: number;
  /** What was wrong then (see beginScenario). */
  inherited: Set<string>;
  /** The job of the heartbeat check, once the fleet has started. */
  heartbeat?: HeartbeatPinger;
}

/** A run-now request and what it answered. @internal */
export interface RunNowRequest {
  instance: string;
  at: number;
  status: number;
  runs: Array<{ runId: string; sliceId: string }>;
}

/** What a scenario's script recorded. @internal */
export interface ScenarioRun {
  timeline: ScenarioTimeline;
  rollupsCorrectAfterMs?: number | null;
  rollupWatchMs?: number;
  /** Environments whose stored status was wrong when the scenario ended. */
  wrongAtEnd?: string[];
  runNow?: RunNowRequest[];
  memory?: ScenarioResult['memory'];
  notes: string[];
}

/** The plugin's REST API on one instance, as a signed-in user. @internal */
export class ChaosApi {
  readonly #authorization: string;

  constructor(authorization: string) {
    this.#authorization = authorization;
  }

  async request(
    instance: { port: number },
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any }> {
    const response = await fetch(
      `http://127.0.0.1:${instance.port}/api/healthcheck/v1${path}`,
      {
        method,
        headers: {
          authorization: this.#authorization,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      },
    );
    const text = await response.text();
    return {
      status: response.status,
      body: text ? JSON.parse(text) : undefined,
    };
  }
}

export async function sleepUntil(at: number): Promise<void> {
  const wait = at - Date.now();
  if (wait > 0) {
    await sleep(wait);
  }
}

const expectedStatus = (targets: ChaosTargets, system: string, env: string) =>
  targets.isFailing(system, env) ? 'unhealthy' : 'healthy';

/** A stored status or rollup that is not what the targets say. */
interface Wrong {
  /** `alpha/staging`, or `alpha` for a system's own status. */
  key: string;
  text: string;
}

/** Environments whose stored status is not what their targets say. */
async function environmentsWrong(ctx: ChaosContext): Promise<Wrong[]> {
  const stored = await ctx.database.readEnvironmentStatuses();
  return FLIPPED_SYSTEMS.flatMap(system =>
    ENVIRONMENTS.flatMap(env => {
      const expected = expectedStatus(ctx.targets, system, env);
      const status = stored.get(`${system}/${env}`);
      return status === expected
        ? []
        : [
            {
              key: `${system}/${env}`,
              text: `${system}/${env} stored ${
                status ?? 'nothing'
              }, expected ${expected}`,
            },
          ];
    }),
  );
}

/** Rollups that do not show what the targets say, per environment and overall. */
async function rollupsWrong(ctx: ChaosContext): Promise<Wrong[]> {
  const rollups = await ctx.database.readRollups();
  return FLIPPED_SYSTEMS.flatMap(system => {
    const rollup = rollups.get(system);
    const expected = ENVIRONMENTS.map(env => ({
      env,
      status: expectedStatus(ctx.targets, system, env),
    }));
    const worst = expected.some(e => e.status === 'unhealthy')
      ? 'unhealthy'
      : 'healthy';
    const wrong: Wrong[] = expected
      .filter(e => rollup?.environments.get(e.env) !== e.status)
      .map(e => ({
        key: `${system}/${e.env}`,
        text: `${system}/${e.env} in the rollup ${
          rollup?.environments.get(e.env) ?? 'missing'
        }, expected ${e.status}`,
      }));
    if (rollup?.status !== worst) {
      wrong.push({
        key: system,
        text: `${system} rollup ${
          rollup?.status ?? 'missing'
        }, expected ${worst}`,
      });
    }
    return wrong;
  });
}

/**
 * Starts judging a scenario: what is wrong already is the earlier
 * scenario's doing, reported there, and left out of this one's figures
 * unless this one flips it (a flip moves its status afresh).
 * @internal
 */
export async function beginScenario(ctx: ChaosContext): Promise<string[]> {
  ctx.judgedFrom = Date.now();
  const wrong = [
    ...(await environmentsWrong(ctx)),
    ...(await rollupsWrong(ctx)),
  ];
  ctx.inherited = new Set(wrong.map(w => w.key));
  return wrong.map(w => w.text);
}

/** Of what is wrong, what this scenario is to answer for. */
function ownWrongs(ctx: ChaosContext, wrong: Wrong[]): string[] {
  const flipped = new Set(
    ctx.targets.flips
      .filter(flip => flip.at >= ctx.judgedFrom)
      .flatMap(flip => [`${flip.system}/${flip.environment}`, flip.system]),
  );
  return wrong
    .filter(w => !ctx.inherited.has(w.key) || flipped.has(w.key))
    .map(w => w.text);
}

/** Environments the scenario left with a wrong stored status. */
export async function wrongEnvironments(ctx: ChaosContext): Promise<string[]> {
  return ownWrongs(ctx, await environmentsWrong(ctx));
}

/** Rollups the scenario left wrong. */
async function wrongRollups(ctx: ChaosContext): Promise<string[]> {
  return ownWrongs(ctx, await rollupsWrong(ctx));
}

/**
 * How long after `since` the rollups first all show what the targets say
 * (each environment and the system); null when they do not within `capMs`.
 * The scenarios flip nothing while this watches. (Stored environment
 * statuses are the transitions' figure: see wrongEnvironments.)
 */
export async function watchRollups(
  ctx: ChaosContext,
  since: number,
  capMs: number,
): Promise<number | null> {
  while (Date.now() <= since + capMs) {
    try {
      if ((await wrongRollups(ctx)).length === 0) {
        return Date.now() - since;
      }
    } catch {
      // The database is still coming back (pg-restart): not right yet.
    }
    await sleep(POLL_MS);
  }
  return null;
}

/** Flips targets at fractions of a fault, in order. */
export async function flipDuring(
  ctx: ChaosContext,
  from: number,
  durationMs: number,
  flips: Array<
    [fraction: number, system: string, env: string, failing: boolean]
  >,
): Promise<void> {
  for (const [fraction, system, env, failing] of flips) {
    await sleepUntil(from + fraction * durationMs);
    ctx.targets.flip(system, env, failing);
    ctx.log(`  ${system}/${env} ${failing ? 'fails' : 'heals'}`);
  }
}

/**
 * The proxy drops every database connection for the outage, then lets
 * them back. Meanwhile one environment fails, and another fails and heals
 * again: a round trip only what was probed during the outage can tell.
 */
async function databaseDropped(ctx: ChaosContext): Promise<ScenarioRun> {
  const { proxy, settings } = ctx;
  const from = Date.now();
  await sleep(BEFORE_FAULT_MS);
  const faultFrom = Date.now();
  proxy.drop();
  ctx.log(`  the proxy drops the database for ${settings.outageMs / 1000} s`);
  await flipDuring(ctx, faultFrom, settings.outageMs, [
    [1 / 6, 'alpha', 'production', true],
    [1 / 3, 'bravo', 'staging', true],
    [2 / 3, 'bravo', 'staging', false],
  ]);
  await sleepUntil(faultFrom + settings.outageMs);
  proxy.reopen();
  const faultTo = Date.now();
  ctx.log('  the database is back');
  const rollups = watchRollups(ctx, faultTo, settings.recoveryMs);
  await sleepUntil(faultTo + settings.recoveryMs);
  const { refused, dropped } = proxy.stats();
  return {
    timeline: {
      name: 'db-drop',
      from,
      to: Date.now(),
      faults: [{ phase: 'outage', from: faultFrom, to: faultTo }],
      takeovers: [],
      kills: [],
    },
    rollupsCorrectAfterMs: await rollups,
    rollupWatchMs: settings.recoveryMs,
    wrongAtEnd: await wrongEnvironments(ctx),
    notes: [
      `the proxy reset ${dropped} open database connections and refused ${refused} new ones`,
    ],
  };
}

/** Every database packet arrives late for a while; one environment heals, another fails. */
async function databaseSlow(ctx: ChaosContext): Promise<ScenarioRun> {
  const { proxy, settings } = ctx;
  const from = Date.now();
  proxy.delay(settings.latencyMs);
  ctx.log(
    `  every database packet ${settings.latencyMs} ms late for ${
      settings.latencyWindowMs / 1000
    } s`,
  );
  await flipDuring(ctx, from, settings.latencyWindowMs, [
    [1 / 6, 'alpha', 'production', false],
    [5 / 12, 'charlie', 'dev', true],
  ]);
  await sleepUntil(from + settings.latencyWindowMs);
  proxy.pass();
  const faultTo = Date.now();
  const rollups = watchRollups(ctx, faultTo, settings.recoveryMs);
  await sleepUntil(faultTo + settings.recoveryMs);
  return {
    timeline: {
      name: 'db-latency',
      from,
      to: Date.now(),
      faults: [{ phase: 'slow', from, to: faultTo }],
      takeovers: [],
      kills: [],
    },
    rollupsCorrectAfterMs: await rollups,
    rollupWatchMs: settings.recoveryMs,
    wrongAtEnd: await wrongEnvironments(ctx),
    notes: [],
  };
}

/** `15/main`: the setting, or the first cluster this machine has. */
function postgresCluster(settings: ChaosSettings): [string, string] {
  if (settings.pgCluster) {
    const [version, cluster] = settings.pgCluster.split('/');
    return [version, cluster ?? 'main'];
  }
  const versions = readdirSync('/etc/postgresql');
  if (versions.length === 0) {
    throw new Error(
      'No PostgreSQL cluster in /etc/postgresql to restart; set VIGIL_CHAOS_PG_CLUSTER',
    );
  }
  return [versions.sort()[0], 'main'];
}

/**
 * Runs `pg_ctlcluster ... <action>` in a process group of its own, so that
 * a Ctrl-C of the suite cannot stop it halfway and leave the server down.
 * @internal
 */
export function pgCtlCluster(
  settings: ChaosSettings,
  action: 'restart' | 'start',
): Promise<void> {
  const [version, cluster] = postgresCluster(settings);
  const args = ['--skip-systemctl-redirect', version, cluster, action];
  return new Promise((resolve, reject) => {
    const child = spawn('pg_ctlcluster', args, {
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', chunk => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('exit', code =>
      code === 0
        ? resolve()
        : reject(
            new Error(
              `pg_ctlcluster ${args.join(
                ' ',
              )} exited ${code}: ${stderr.trim()}`,
            ),
          ),
    );
  });
}

/** Resolves when the database answers again, with the time it did. */
async function databaseAnswers(ctx: ChaosContext, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await ctx.database.knex.raw('select 1');
      return Date.now();
    } catch (error) {
      if (Date.now() > deadline) {
        throw error;
      }
      await sleep(100);
    }
  }
}

/** PostgreSQL itself restarts, the proxy staying up; an environment heals just before. */
async function postgresRestarted(ctx: ChaosContext): Promise<ScenarioRun> {
  const { settings } = ctx;
  const from = Date.now();
  ctx.targets.flip('charlie', 'dev', false);
  ctx.log('  charlie/dev heals');
  await sleep(BEFORE_FAULT_MS);
  const faultFrom = Date.now();
  ctx.log('  PostgreSQL restarts');
  await pgCtlCluster(settings, 'restart');
  const restarted = Date.now();
  const faultTo = await databaseAnswers(ctx, 60_000);
  const rollups = watchRollups(ctx, faultTo, settings.recoveryMs);
  await sleepUntil(faultTo + settings.recoveryMs);
  return {
    timeline: {
      name: 'pg-restart',
      from,
      to: Date.now(),
      faults: [{ phase: 'outage', from: faultFrom, to: faultTo }],
      takeovers: [],
      kills: [],
    },
    rollupsCorrectAfterMs: await rollups,
    rollupWatchMs: settings.recoveryMs,
    wrongAtEnd: await wrongEnvironments(ctx),
    notes: [
      `pg_ctlcluster restart took ${((restarted - faultFrom) / 1000).toFixed(
        1,
      )} s; the database answered ${((faultTo - faultFrom) / 1000).toFixed(
        1,
      )} s after it began`,
    ],
  };
}

/**
 * SIGTERMs an instance and starts it again at once. Says how long each
 * took, and whether the stop had to be a kill, to read lost ticks against.
 */
export async function restartInstance(
  ctx: ChaosContext,
  name: string,
): Promise<string> {
  const stop = await ctx.fleet.stop(name);
  const startedAt = Date.now();
  await ctx.fleet.start(name);
  return `${name} ${
    stop.killed ? 'did not stop in time and was killed after' : 'stopped in'
  } ${seconds(stop.tookMs)}, served again ${seconds(
    Date.now() - startedAt,
  )} later`;
}

/** A rollup window is left unclaimed too close to its end to be worth a kill. */
const MIN_WINDOW_LEFT_MS = 150;

/**
 * An environment fails; the instance that claims the system's rollup window
 * for it is SIGKILLed before the window ends (when it would have
 * recomputed the rollup). After the takeover it comes back, then each
 * instance is restarted in turn; the environment heals meanwhile.
 */
async function killedAndRestarted(ctx: ChaosContext): Promise<ScenarioRun> {
  const { fleet, targets, database, settings } = ctx;
  const from = Date.now();
  const notes: string[] = [];
  const takeovers: ScenarioTimeline['takeovers'] = [];
  let kill: { instance: string; at: number } | undefined;

  // Another environment of the system if a window closes before the kill lands.
  for (const env of ENVIRONMENTS) {
    const flippedAt = Date.now();
    targets.flip('delta', env, true);
    ctx.log(`  delta/${env} fails`);
    let claim: Awaited<ReturnType<SuiteDatabase['latestRollupClaim']>>;
    while (!claim && Date.now() < flippedAt + 30_000) {
      claim = await database.latestRollupClaim(
        'system:default/delta',
        flippedAt,
        ROLLUP_WINDOW_MS,
      );
      if (!claim) {
        await sleep(20);
      }
    }
    if (!claim) {
      throw new Error(
        `No instance claimed a rollup window of delta within 30 s of delta/${env} failing`,
      );
    }
    const leftMs = claim.endsAt - Date.now();
    if (leftMs < MIN_WINDOW_LEFT_MS) {
      notes.push(
        `the window ${claim.instance} claimed for delta/${env} was ${leftMs} ms from its end; tried another environment`,
      );
      continue;
    }
    await fleet.kill(claim.instance);
    kill = { instance: claim.instance, at: Date.now() };
    notes.push(
      `SIGKILLed ${claim.instance} ${
        claim.endsAt - kill.at
      } ms before the end of its rollup window of delta`,
    );
    break;
  }
  if (!kill) {
    throw new Error(
      `Could not kill an instance in an open rollup window: ${notes.join(
        '; ',
      )}`,
    );
  }
  ctx.log(`  ${notes[notes.length - 1]}`);
  takeovers.push({ from: kill.at, to: kill.at + TAKEOVER_MS });
  const rollups = watchRollups(ctx, kill.at, settings.recoveryMs);
  await sleepUntil(kill.at + TAKEOVER_MS);
  const rollupsCorrectAfterMs = await rollups;
  await fleet.start(kill.instance);
  ctx.log(`  ${kill.instance} is back; restarting each instance in turn`);

  for (const name of INSTANCE_NAMES) {
    const stoppedAt = Date.now();
    takeovers.push({ from: stoppedAt, to: stoppedAt + TAKEOVER_MS });
    notes.push(await restartInstance(ctx, name));
    ctx.log(`  ${name} restarted: ${notes[notes.length - 1]}`);
    if (name === INSTANCE_NAMES[0]) {
      for (const env of ENVIRONMENTS) {
        targets.flip('delta', env, false);
      }
      ctx.log('  delta heals');
    }
  }
  // Up, past the last takeover window, for a while.
  await sleepUntil(takeovers[takeovers.length - 1].to + BEFORE_FAULT_MS);
  return {
    timeline: {
      name: 'kill-and-restart',
      from,
      to: Date.now(),
      faults: [],
      takeovers,
      kills: [kill],
    },
    rollupsCorrectAfterMs,
    rollupWatchMs: settings.recoveryMs,
    wrongAtEnd: await wrongEnvironments(ctx),
    notes,
  };
}

/** New slices' first probes come within 5 s; a busy machine takes longer. */
const FIRST_RUNS_TIMEOUT_MS = 90_000;

/**
 * The fleet starts (the first instance alone: it runs the migrations,
 * which the others would race it for) and the suite's checks are made:
 * `steady` and `flipper` on every flipped system, every 2 s, and
 * `on-demand` on a system of its own, hourly, for run now. Judged like a
 * scenario from the moment every slice has had its first run: its
 * environments and rollups should be right within the recovery watch.
 * @internal
 */
export async function startFleet(ctx: ChaosContext): Promise<ScenarioRun> {
  const { fleet, api, targets, database, settings } = ctx;
  const started = Date.now();
  await fleet.start(INSTANCE_NAMES[0]);
  await Promise.all(INSTANCE_NAMES.slice(1).map(name => fleet.start(name)));
  const ready = Date.now();
  ctx.log(`  3 instances ready in ${seconds(ready - started)}`);

  const flipped = FLIPPED_SYSTEMS.map(name => `system:default/${name}`);
  const ownSystem = [`system:default/${ON_DEMAND_CHECK}`];
  for (const request of [
    checkRequest(STEADY_CHECK, targets.port, STEADY_CHECK, flipped, '2s'),
    checkRequest(FLIPPING_CHECK, targets.port, FLIPPING_CHECK, flipped, '2s'),
    checkRequest(
      ON_DEMAND_CHECK,
      targets.port,
      ON_DEMAND_CHECK,
      ownSystem,
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

  // Two checks on each flipped system, one on a system of its own.
  const sliceCount = (2 * FLIPPED_SYSTEMS.length + 1) * ENVIRONMENTS.length;
  let firstRuns: number | undefined;
  while (firstRuns === undefined) {
    const slices = await database.readSlices(SUITE_CHECKS);
    const ran = new Set(
      (await database.readRuns(slices.map(slice => slice.id)))
        .filter(run => run.startedAt !== undefined)
        .map(run => run.sliceId),
    );
    if (slices.length === sliceCount && slices.every(s => ran.has(s.id))) {
      firstRuns = Date.now();
    } else if (Date.now() > ready + FIRST_RUNS_TIMEOUT_MS) {
      throw new Error(
        `${ran.size} of ${sliceCount} slices had a first run ${
          FIRST_RUNS_TIMEOUT_MS / 1000
        } s after the instances were ready`,
      );
    } else {
      await sleep(POLL_MS);
    }
  }
  ctx.log('  every slice has had its first run');
  const rollupsCorrectAfterMs = await watchRollups(
    ctx,
    firstRuns,
    settings.recoveryMs,
  );
  return {
    timeline: {
      name: 'start',
      from: firstRuns,
      to: Date.now(),
      faults: [],
      takeovers: [],
      kills: [],
    },
    rollupsCorrectAfterMs,
    rollupWatchMs: settings.recoveryMs,
    wrongAtEnd: await wrongEnvironments(ctx),
    notes: [
      `3 instances ready in ${seconds(
        ready - started,
      )}; a first run of all ${sliceCount} slices ${seconds(
        firstRuns - ready,
      )} later`,
    ],
  };
}

/** Between run-now requests: far longer than a probe of a loopback target. */
const RUN_NOW_SPACING_MS = 1_000;
/** After the last request, for its runs to be probed and recorded. */
const RUN_NOW_SETTLE_MS = 5_000;

/** A run now of the three-environment check on each instance in turn. */
async function runNowOnEachInstance(ctx: ChaosContext): Promise<ScenarioRun> {
  const from = Date.now();
  const requests: RunNowRequest[] = [];
  for (const instance of ctx.fleet.running()) {
    const answer = await ctx.api.request(
      instance,
      'POST',
      `/checks/${ON_DEMAND_CHECK}/run`,
    );
    requests.push({
      instance: instance.name,
      at: Date.now(),
      status: answer.status,
      runs: answer.status === 202 ? answer.body.items : [],
    });
    await sleep(RUN_NOW_SPACING_MS);
  }
  await sleep(RUN_NOW_SETTLE_MS);
  return {
    timeline: {
      name: 'run-now',
      from,
      to: Date.now(),
      faults: [],
      takeovers: [],
      kills: [],
    },
    runNow: requests,
    notes: requests.map(
      r =>
        `run now on ${r.instance}: ${r.status}, ${r.runs.length} run(s) started`,
    ),
  };
}

/** Churned checks alive at once; each has three slices. */
const CHURN_ALIVE = 5;
/** Churn before measuring: the first creates load code and grow the heap once. */
const CHURN_WARM_UP_MS = 15_000;
/** After the churn, for the fleet to drop the removed slices. */
const CHURN_SETTLE_MS = 10_000;
const MEMORY_SAMPLES = 6;
/** During the churn, resident memory this often: a trend, not two points. */
const MEMORY_TREND_EVERY_MS = 15_000;

/** Every second a check of three slices is made and one deleted, through the API. */
async function churnFor(
  ctx: ChaosContext,
  durationMs: number,
  prefix: string,
): Promise<{ created: number; deleted: number; failed: string[] }> {
  const { api, fleet, targets } = ctx;
  const alive: string[] = [];
  const failed: string[] = [];
  let created = 0;
  let deleted = 0;
  const remove = async (id: string, n: number) => {
    const instances = fleet.running();
    const answer = await api.request(
      instances[n % instances.length],
      'DELETE',
      `/checks/${id}`,
    );
    if (answer.status === 204) {
      deleted++;
    } else {
      failed.push(`DELETE ${id}: ${answer.status}`);
    }
  };
  const end = Date.now() + durationMs;
  for (let n = 0; Date.now() < end; n++) {
    const second = Date.now();
    const instances = fleet.running();
    const id = `${prefix}-${n}`;
    const answer = await api.request(
      instances[n % instances.length],
      'POST',
      '/checks',
      checkRequest(
        id,
        targets.port,
        CHURN_SYSTEM,
        [`system:default/${CHURN_SYSTEM}`],
        '2s',
      ),
    );
    if (answer.status === 201) {
      created++;
      alive.push(id);
    } else {
      failed.push(`POST ${id}: ${answer.status}`);
    }
    if (alive.length > CHURN_ALIVE) {
      await remove(alive.shift()!, n + 1);
    }
    await sleepUntil(second + 1_000);
  }
  for (const [n, id] of alive.entries()) {
    await remove(id, n);
  }
  return { created, deleted, failed };
}

/**
 * Each instance's memory floor: the least of a few samples a second apart,
 * each right after a full collection, so that what is compared is what
 * the instance keeps and cannot give back, not garbage or pages the
 * allocator has yet to return.
 */
async function memoryFloor(
  fleet: ChaosFleet,
): Promise<Map<string, MemoryReport>> {
  const floor = new Map<string, MemoryReport>();
  for (let i = 0; i < MEMORY_SAMPLES; i++) {
    for (const [name, report] of await fleet.measureMemory()) {
      const least = floor.get(name) ?? report;
      floor.set(name, {
        rssKiB: Math.min(least.rssKiB, report.rssKiB),
        heapUsedKiB: Math.min(least.heapUsedKiB, report.heapUsedKiB),
      });
    }
    await sleep(1_000);
  }
  return floor;
}

const mib = (kib: number) => Math.round(kib / 1024);

/** Checks made and deleted every second for a while; memory before and after. */
async function churn(ctx: ChaosContext): Promise<ScenarioRun> {
  await churnFor(ctx, CHURN_WARM_UP_MS, 'warm-up');
  // Measured as long after the warm-up's churn as `after` is after the churn.
  await sleep(CHURN_SETTLE_MS);
  const before = await memoryFloor(ctx.fleet);
  const from = Date.now();
  ctx.log(`  churning for ${ctx.settings.churnMs / 1000} s`);
  const trend = new Map(
    [...before].map(([name, m]) => [name, [`${mib(m.rssKiB)}`]]),
  );
  // As is, without a collection: one would pause every instance at once
  // in the middle of the ticks this scenario judges.
  const sampler = setInterval(() => {
    for (const [name, kib] of ctx.fleet.residentKiB()) {
      trend.get(name)?.push(`${mib(kib)}`);
    }
  }, MEMORY_TREND_EVERY_MS);
  const { created, deleted, failed } = await churnFor(
    ctx,
    ctx.settings.churnMs,
    'churn',
  ).finally(() => clearInterval(sampler));
  const to = Date.now();
  await sleep(CHURN_SETTLE_MS);
  const after = await memoryFloor(ctx.fleet);
  return {
    timeline: { name: 'churn', from, to, faults: [], takeovers: [], kills: [] },
    memory: [...before].map(([instance, m]) => ({
      instance,
      beforeKiB: m.rssKiB,
      afterKiB: after.get(instance)?.rssKiB ?? NaN,
      heapBeforeKiB: m.heapUsedKiB,
      heapAfterKiB: after.get(instance)?.heapUsedKiB ?? NaN,
    })),
    notes: [
      `${created} checks (${
        3 * created
      } slices) made and ${deleted} deleted through the API${
        failed.length > 0 ? `; failed: ${failed.slice(0, 3).join(', ')}` : ''
      }`,
      ...[...trend].map(
        ([name, samples]) =>
          `${name} MiB resident before the churn (after a collection), then every ${
            MEMORY_TREND_EVERY_MS / 1000
          } s (as is): ${samples.join(' ')}`,
      ),
    ],
  };
}

/** The scenarios by name. @internal */
export const SCENARIOS: Record<
  ScenarioName,
  { title: string; run(ctx: ChaosContext): Promise<ScenarioRun> }
> = {
  'db-drop': {
    title: 'the proxy drops every database connection, then lets them back',
    run: databaseDropped,
  },
  'db-latency': {
    title: 'every database packet late',
    run: databaseSlow,
  },
  'pg-restart': {
    title: 'PostgreSQL restarted (pg_ctlcluster), the proxy up',
    run: postgresRestarted,
  },
  'kill-and-restart': {
    title:
      'one instance SIGKILLed in an open rollup window, then each restarted in turn',
    run: killedAndRestarted,
  },
  // Through functions: the scenarios' module reads this one's helpers.
  'notify-5xx': {
    title: 'every notifications backend answers 503 while targets flip',
    run: ctx => notificationsRefused(ctx),
  },
  'kill-mid-transition': {
    title: 'an instance SIGKILLed right after it stored a transition, twice',
    run: ctx => killedMidTransition(ctx),
  },
  'rolling-deploy': {
    title:
      'each instance in turn SIGTERMed while it probes a healing target, and started again',
    run: ctx => rollingDeploy(ctx),
  },
  'run-now': {
    title: 'run now on each instance, of a check with three environments',
    run: runNowOnEachInstance,
  },
  churn: {
    title: 'checks made and deleted every second through the API',
    run: churn,
  },
};

/** A check as the API takes it, probing `/<path>/<system>/<environment>` of the targets. @internal */
export function checkRequest(
  id: string,
  port: number,
  path: string,
  systems: string[],
  interval: string,
) {
  return {
    id,
    spec: {
      type: 'http',
      target: `http://127.0.0.1:${port}/${path}/{{ system.name }}/{{ environment.name }}`,
      interval,
      timeout: '1s',
      conditions: ['[STATUS] == 200'],
      systems,
    },
  };
}
