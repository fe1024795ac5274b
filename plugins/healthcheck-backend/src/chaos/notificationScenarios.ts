/*
 * The chaos suite's scenarios of what people receive: each makes a fault
 * between a transition and the owner's notification of it, with
 * Backstage's own notifications and events backends in every instance's
 * process, and waits until the outbox has delivered what it holds. Each
 * flips only environments that are healthy when it begins, and leaves
 * them healthy, so that any of them can run without the others.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ScenarioTimeline } from './chaosFigures';
import {
  BEFORE_FAULT_MS,
  type ChaosContext,
  ENVIRONMENTS,
  flipDuring,
  FLIPPED_SYSTEMS,
  INSTANCE_NAMES,
  restartInstance,
  type ScenarioRun,
  seconds,
  sleepUntil,
  TAKEOVER_MS,
  watchRollups,
  wrongEnvironments,
} from './chaosScenarios';
import { FLIPPING_CHECK, type Hit } from './ChaosTargets';
import type { RefusalState } from './notificationsRefusal';
import type { WaitingEntry } from './SuiteDatabase';

/**
 * After the notifications backends answer again: the outbox's retries
 * have backed off to 30 s at most, and the next one comes within that.
 */
const DRAIN_AFTER_REFUSAL_MS = 45_000;
/**
 * After an instance died or stopped: an entry it had claimed and could not
 * give back waits out its lease (60 s) before another delivers it.
 */
const DRAIN_AFTER_INSTANCE_LEFT_MS = 75_000;
/** A failing target is judged unhealthy after two 2 s ticks; a busy machine takes longer. */
const TRANSITION_TIMEOUT_MS = 30_000;
/** Between reads of the outbox, and looks for an instance's probes. */
const LOOK_AGAIN_MS = 250;

/** What notify-5xx flips, and when in the refusal: no other scenario's environments. */
const REFUSED_FLIPS: Array<
  [fraction: number, system: string, env: string, failing: boolean]
> = [
  [1 / 6, 'alpha', 'staging', true],
  [1 / 3, 'bravo', 'dev', true],
  [1 / 2, 'alpha', 'staging', false],
  [2 / 3, 'bravo', 'dev', false],
];
/** What kill-mid-transition flips: no other scenario's environment. */
const KILLED_ENVIRONMENT = { system: 'charlie', environment: 'production' };
/**
 * How long a healing probe is under way, its target answering late: the
 * instance that sent it is SIGTERMed meanwhile. (The checks time out at 1 s.)
 */
const HEALING_PROBE_MS = 600;
/** The next probe of a slice every 2 s comes within this, on a busy machine. */
const NEXT_PROBE_TIMEOUT_MS = 6_000;
/** The instance that probed a target within this still owns its slice, mostly. */
const RECENT_PROBE_MS = 4_000;
/**
 * An instance that just started probes nothing until the others see it
 * (their next heartbeat, within 5 s) and its first ticks come.
 */
const FIRST_PROBES_TIMEOUT_MS = 20_000;
/** Between looks at the targets' hits. */
const HIT_POLL_MS = 5;

/** `2 environment-notification (attempt 4, unclaimed)`: what waits, in short. */
function describeWaiting(entries: readonly WaitingEntry[]): string {
  if (entries.length === 0) {
    return 'nothing';
  }
  const byKind = new Map<string, WaitingEntry[]>();
  for (const entry of entries) {
    byKind.set(entry.kind, [...(byKind.get(entry.kind) ?? []), entry]);
  }
  return [...byKind]
    .map(([kind, list]) => {
      const claimers = [...new Set(list.map(e => e.claimedBy ?? 'unclaimed'))];
      const attempts = Math.max(...list.map(e => e.attempts));
      return `${list.length} ${kind} (${
        attempts > 0 ? `${attempts} attempt(s) at most, ` : ''
      }${claimers.join(', ')})`;
    })
    .join(', ');
}

/** The outbox when it was last read: empty, or what it still held. */
interface Drained {
  at: number;
  left: WaitingEntry[];
}

/** Waits until the outbox holds nothing, or `until`. */
async function outboxDrained(
  ctx: ChaosContext,
  until: number,
): Promise<Drained> {
  for (;;) {
    const left = await ctx.database.readOutbox();
    if (left.length === 0 || Date.now() >= until) {
      return { at: Date.now(), left };
    }
    await sleep(LOOK_AGAIN_MS);
  }
}

function drainNote(drained: Drained, since: number, what: string): string {
  return drained.left.length > 0
    ? `the outbox still held ${describeWaiting(drained.left)} ${seconds(
        drained.at - since,
      )} after ${what}`
    : `the outbox was empty ${seconds(drained.at - since)} after ${what}`;
}

/** Starts whichever of the suite's instances is not running. */
async function startMissing(ctx: ChaosContext): Promise<void> {
  const running = new Set(ctx.fleet.running().map(i => i.name));
  for (const name of INSTANCE_NAMES.filter(n => !running.has(n))) {
    await ctx.fleet.start(name);
  }
}

/**
 * Every instance's notifications backend answers 503 for a while, and
 * meanwhile two environments fail and heal: their four notifications
 * wait in the outbox, retried with backoff, and reach the owner once each
 * after the backends answer again.
 * @internal
 */
export async function notificationsRefused(
  ctx: ChaosContext,
): Promise<ScenarioRun> {
  const { fleet, settings } = ctx;
  const from = Date.now();
  await sleep(BEFORE_FAULT_MS);
  const faultFrom = Date.now();
  const notes: string[] = [];
  let refusals: Array<[string, RefusalState]> = [];
  try {
    for (const { name } of fleet.running()) {
      await fleet.refuseNotifications(name, true);
    }
    ctx.log(
      `  every notifications backend answers 503 for ${
        settings.notifyRefusalMs / 1000
      } s`,
    );
    await flipDuring(ctx, faultFrom, settings.notifyRefusalMs, REFUSED_FLIPS);
    await sleepUntil(faultFrom + settings.notifyRefusalMs);
    notes.push(
      `when the notifications backends answered again, the outbox held ${describeWaiting(
        await ctx.database.readOutbox(),
      )}`,
    );
  } finally {
    refusals = await Promise.all(
      fleet
        .running()
        .map(
          async ({ name }) =>
            [name, await fleet.refuseNotifications(name, false)] as [
              string,
              RefusalState,
            ],
        ),
    );
  }
  const faultTo = Date.now();
  ctx.log('  the notifications backends answer again');
  const rollups = watchRollups(ctx, faultTo, settings.recoveryMs);
  const drained = await outboxDrained(ctx, faultTo + DRAIN_AFTER_REFUSAL_MS);
  await sleepUntil(faultTo + settings.recoveryMs);
  notes.push(
    `the notifications backends refused ${refusals
      .map(([name, state]) => `${state.refused} request(s) on ${name}`)
      .join(', ')}`,
    drainNote(drained, faultTo, 'they answered again'),
  );
  return {
    timeline: {
      name: 'notify-5xx',
      from,
      to: Date.now(),
      faults: [],
      takeovers: [],
      kills: [],
    },
    rollupsCorrectAfterMs: await rollups,
    rollupWatchMs: settings.recoveryMs,
    wrongAtEnd: await wrongEnvironments(ctx),
    notes,
  };
}

/**
 * An environment fails, and the instance that stores its transition is
 * SIGKILLed on the line it logs once the status and the outbox entries are
 * committed, before it can deliver them. Then the environment heals, and
 * the same again: the last instance delivers both notifications, once
 * each. The killed instances start again once it has taken their slices
 * over (a start's work, on a small machine, would slow the takeover).
 * @internal
 */
export async function killedMidTransition(
  ctx: ChaosContext,
): Promise<ScenarioRun> {
  const { fleet, targets } = ctx;
  const { system, environment } = KILLED_ENVIRONMENT;
  const systemRef = `system:default/${system}`;
  const from = Date.now();
  const notes: string[] = [];
  const kills: ScenarioTimeline['kills'] = [];
  const takeovers: ScenarioTimeline['takeovers'] = [];
  try {
    for (const failing of [true, false]) {
      const to = failing ? 'unhealthy' : 'healthy';
      const stored = fleet.nextTransition(
        message =>
          message.startsWith(`${systemRef} in ${environment}: `) &&
          message.endsWith(` -> ${to}`),
        TRANSITION_TIMEOUT_MS,
      );
      targets.flip(system, environment, failing);
      ctx.log(`  ${system}/${environment} ${failing ? 'fails' : 'heals'}`);
      const transition = await stored;
      const kill = { instance: transition.instance, at: Date.now() };
      await fleet.kill(kill.instance);
      kills.push(kill);
      takeovers.push({ from: kill.at, to: kill.at + TAKEOVER_MS });
      const waiting = (await ctx.database.readOutbox()).filter(entry =>
        entry.stream.includes(JSON.stringify(systemRef)),
      );
      notes.push(
        `SIGKILLed ${kill.instance} ${
          kill.at - transition.at
        } ms after the suite read its line "${
          transition.message
        }"; the outbox then held ${describeWaiting(waiting)} of ${system}`,
      );
      ctx.log(`  ${notes[notes.length - 1]}`);
    }
  } catch (error) {
    await startMissing(ctx);
    throw error;
  }
  const lastKill = kills[kills.length - 1].at;
  // Watched, not judged: when the kill lands after the dispatcher claimed
  // the transition's entries, they wait out the claim's lease (60 s), as
  // the outbox means them to, and the rollup with them.
  const rollups = watchRollups(ctx, lastKill, DRAIN_AFTER_INSTANCE_LEFT_MS);
  const drained = outboxDrained(ctx, lastKill + DRAIN_AFTER_INSTANCE_LEFT_MS);
  await sleepUntil(lastKill + TAKEOVER_MS);
  await startMissing(ctx);
  ctx.log('  the killed instances are back');
  const rollupsRightAfter = await rollups;
  notes.push(
    drainNote(await drained, lastKill, 'the last kill'),
    `the rollups were right ${
      rollupsRightAfter === null
        ? `no sooner than ${seconds(DRAIN_AFTER_INSTANCE_LEFT_MS)}`
        : seconds(rollupsRightAfter)
    } after the last kill (not judged here: see above)`,
  );
  await sleep(BEFORE_FAULT_MS);
  return {
    timeline: {
      name: 'kill-mid-transition',
      from,
      to: Date.now(),
      faults: [],
      takeovers,
      kills,
    },
    wrongAtEnd: await wrongEnvironments(ctx),
    notes,
  };
}

/**
 * The healthy environment of a flipped system whose `flipper` target
 * `instance` probed last, lately, and not yet `used`.
 */
function environmentProbedBy(
  ctx: ChaosContext,
  instance: string,
  used: ReadonlySet<string>,
): { system: string; environment: string } | undefined {
  const lastProbeBy = new Map<string, Hit>();
  for (const hit of ctx.targets.hits) {
    if (hit.check === FLIPPING_CHECK) {
      lastProbeBy.set(`${hit.system}/${hit.environment}`, hit);
    }
  }
  for (const system of FLIPPED_SYSTEMS) {
    for (const environment of ENVIRONMENTS) {
      const key = `${system}/${environment}`;
      const last = lastProbeBy.get(key);
      if (
        !used.has(key) &&
        !ctx.targets.isFailing(system, environment) &&
        last?.instance === instance &&
        last.at >= Date.now() - RECENT_PROBE_MS
      ) {
        return { system, environment };
      }
    }
  }
  return undefined;
}

/** The first hit from now on that `matches`, if one comes within `timeoutMs`. */
async function nextHit(
  ctx: ChaosContext,
  matches: (hit: Hit) => boolean,
  timeoutMs: number,
): Promise<Hit | undefined> {
  const { hits } = ctx.targets;
  const deadline = Date.now() + timeoutMs;
  for (let seen = hits.length; Date.now() < deadline; ) {
    const hit = hits.slice(seen).find(matches);
    if (hit) {
      return hit;
    }
    seen = hits.length;
    await sleep(HIT_POLL_MS);
  }
  return undefined;
}

/**
 * A rolling deploy: each instance in turn is SIGTERMed and started again.
 * Before each stop, an environment whose `flipper` target that instance
 * probes fails (stored and told as usual), then heals with its target
 * answering late, and the instance is SIGTERMed while its healing probe is
 * under way: the recovery is stored during its drain, while its
 * notifications and events backends stop beside it (their routers answer
 * 503 from the first moment) and its outbox has stopped delivering, so
 * another instance tells the owner. Every transition reaches its owner once.
 * @internal
 */
export async function rollingDeploy(ctx: ChaosContext): Promise<ScenarioRun> {
  const { fleet, targets, settings } = ctx;
  const from = Date.now();
  const notes: string[] = [];
  const takeovers: ScenarioTimeline['takeovers'] = [];
  const used = new Set<string>();
  try {
    for (const name of INSTANCE_NAMES) {
      const { pid } = fleet.instance(name);
      const lookedFrom = Date.now();
      let target = environmentProbedBy(ctx, name, used);
      while (!target && Date.now() < lookedFrom + FIRST_PROBES_TIMEOUT_MS) {
        await sleep(LOOK_AGAIN_MS);
        target = environmentProbedBy(ctx, name, used);
      }
      if (!target) {
        throw new Error(
          `No healthy environment's flipper target was probed by ${name} within ${seconds(
            FIRST_PROBES_TIMEOUT_MS,
          )}`,
        );
      }
      const { system, environment } = target;
      const key = `${system}/${environment}`;
      used.add(key);
      const failed = fleet.nextTransition(
        message =>
          message.startsWith(`system:default/${system} in ${environment}: `) &&
          message.endsWith(' -> unhealthy'),
        TRANSITION_TIMEOUT_MS,
      );
      targets.flip(system, environment, true);
      ctx.log(`  ${key} fails`);
      await failed;
      targets.slow(system, environment, HEALING_PROBE_MS);
      const healedAt = Date.now();
      targets.flip(system, environment, false);
      ctx.log(`  ${key} heals, its target answering late`);
      const healing = await nextHit(
        ctx,
        hit =>
          hit.check === FLIPPING_CHECK &&
          hit.system === system &&
          hit.environment === environment &&
          hit.at >= healedAt,
        NEXT_PROBE_TIMEOUT_MS,
      );
      const stoppedAt = Date.now();
      takeovers.push({ from: stoppedAt, to: stoppedAt + TAKEOVER_MS });
      const restarted = await restartInstance(ctx, name);
      targets.slow(system, environment, 0);
      // What this scenario is for: a transition stored in the drain.
      const whileStopping = fleet
        .transitions()
        .filter(t => t.pid === pid && t.at >= stoppedAt)
        .map(t => `"${t.message}"`);
      notes.push(
        `${restarted}; SIGTERMed ${
          healing
            ? `${
                stoppedAt - healing.at
              } ms into the healing probe of ${key} by ${healing.instance}`
            : `with no healing probe of ${key} seen`
        }; it stored while it stopped: ${
          whileStopping.length > 0 ? whileStopping.join(', ') : 'nothing'
        }`,
      );
      ctx.log(`  ${notes[notes.length - 1]}`);
    }
  } finally {
    for (const key of used) {
      const [system, environment] = key.split('/');
      targets.slow(system, environment, 0);
    }
    await startMissing(ctx);
  }
  const deployed = Date.now();
  const rollups = watchRollups(ctx, deployed, settings.recoveryMs);
  const drained = await outboxDrained(
    ctx,
    deployed + DRAIN_AFTER_INSTANCE_LEFT_MS,
  );
  notes.push(drainNote(drained, deployed, 'the last instance served again'));
  // Up, past the last takeover window, for a while.
  await sleepUntil(takeovers[takeovers.length - 1].to + BEFORE_FAULT_MS);
  return {
    timeline: {
      name: 'rolling-deploy',
      from,
      to: Date.now(),
      faults: [],
      takeovers,
      kills: [],
    },
    rollupsCorrectAfterMs: await rollups,
    rollupWatchMs: settings.recoveryMs,
    wrongAtEnd: await wrongEnvironments(ctx),
    notes,
  };
}
