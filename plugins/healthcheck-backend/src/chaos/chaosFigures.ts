/*
 * The chaos suite's figures, from what it recorded: the targets' hits, the
 * run rows in the database afterwards, the flips of the targets and the
 * notifications the instances sent. Pure functions, so that what decides
 * whether the suite passes is tested on its own (chaosFigures.test.ts).
 */
import { claimKeyAt } from '../scheduler';
import type { Flip, Hit } from './ChaosTargets';

/** A slice the suite checks the ticks of. @internal */
export interface SuiteSlice {
  id: string;
  check: string;
  system: string;
  environment: string;
  intervalMs: number;
}

/** A row of `healthcheck_runs`, as read after the suite. @internal */
export interface RunRow {
  sliceId: string;
  scheduledAt: number;
  /** The instance's name (`chaos-a`), not its id. */
  claimedBy: string;
  /** Unset while the run has no result: claimed, never completed. */
  startedAt?: number;
  durationMs?: number;
}

/**
 * What the database was doing: `up`, `outage` (unreachable: dropped by the
 * proxy, or restarting) or `slow` (reachable, every packet late).
 * @internal
 */
export type DatabasePhase = 'up' | 'outage' | 'slow';

/** The timeline of one scenario, as its script recorded it. @internal */
export interface ScenarioTimeline {
  name: string;
  from: number;
  to: number;
  /** Where the database was not up; the rest of [from, to) was. */
  faults: Array<{
    phase: Exclude<DatabasePhase, 'up'>;
    from: number;
    to: number;
  }>;
  /** After an instance died or left: its slices may go unprobed here. */
  takeovers: Array<{ from: number; to: number }>;
  kills: Array<{ instance: string; at: number }>;
}

/** One probe the targets saw, tied to the tick it was for. @internal */
export interface Probe {
  sliceId: string;
  /** The tick's grid time: its run row's, or the grid point before the hit. */
  tick: number;
  at: number;
  instance?: string;
  /** Whether a completed run row in the database stands for it. */
  recorded: boolean;
}

/** Hits and runs of one slice are 2 s apart or more; this is well inside. */
const MATCH_SLACK_MS = 1_000;

const keyOf = (sliceId: string, tick: number) => `${sliceId}@${tick}`;

/** `flipper alpha/production @12:00:04.079`: a tick as the report shows it (UTC). @internal */
export function tickLabel(slice: SuiteSlice, tick: number): string {
  return `${slice.check} ${slice.system}/${slice.environment} @${new Date(tick)
    .toISOString()
    .slice(11, 23)}`;
}

/** The grid ticks of a slice in [from, to). @internal */
export function ticksBetween(
  slice: Pick<SuiteSlice, 'id' | 'intervalMs'>,
  from: number,
  to: number,
): number[] {
  const ticks: number[] = [];
  let tick = claimKeyAt(slice.id, from, slice.intervalMs);
  if (tick < from) {
    tick += slice.intervalMs;
  }
  for (; tick < to; tick += slice.intervalMs) {
    ticks.push(tick);
  }
  return ticks;
}

/**
 * Ties each hit of a known slice to the completed run that made it: the
 * run of that slice that started before the hit and ended (give or take
 * the slack) after it, each run standing for one hit at most. A hit no run
 * stands for was probed and never recorded; its tick is the grid point
 * before it.
 * @internal
 */
export function probesOf(
  hits: readonly Hit[],
  slices: readonly SuiteSlice[],
  runs: readonly RunRow[],
): Probe[] {
  const sliceOf = new Map(
    slices.map(s => [`${s.check}/${s.system}/${s.environment}`, s]),
  );
  const openRunsOf = new Map<string, RunRow[]>();
  for (const run of runs) {
    if (run.startedAt === undefined) {
      continue;
    }
    const list = openRunsOf.get(run.sliceId) ?? [];
    list.push(run);
    openRunsOf.set(run.sliceId, list);
  }
  for (const list of openRunsOf.values()) {
    list.sort((a, b) => a.startedAt! - b.startedAt!);
  }
  const probes: Probe[] = [];
  for (const hit of [...hits].sort((a, b) => a.at - b.at)) {
    const slice = sliceOf.get(`${hit.check}/${hit.system}/${hit.environment}`);
    if (!slice) {
      continue;
    }
    const open = openRunsOf.get(slice.id) ?? [];
    const index = open.findIndex(
      run =>
        run.startedAt! - MATCH_SLACK_MS <= hit.at &&
        hit.at <= run.startedAt! + (run.durationMs ?? 0) + MATCH_SLACK_MS,
    );
    const run = index >= 0 ? open.splice(index, 1)[0] : undefined;
    probes.push({
      sliceId: slice.id,
      tick: run
        ? run.scheduledAt
        : claimKeyAt(slice.id, hit.at, slice.intervalMs),
      at: hit.at,
      instance: hit.instance,
      recorded: run !== undefined,
    });
  }
  return probes;
}

/** Due ticks and how many of them were probed. @internal */
export interface ProbedShare {
  due: number;
  probed: number;
  /** A few of the ticks that were not, `<slice>@<tick>`. */
  missed: string[];
}

/** The tick figures of one scenario. @internal */
export interface TickFigures {
  /** Ticks due while the database was up, outside takeover windows. */
  up: ProbedShare;
  /** Ticks due while it was away or slow, outside takeover windows. */
  fault: ProbedShare;
  /** Ticks due in takeover windows: shown, no target. */
  takeover: ProbedShare;
  /** Ticks probed twice: by anyone while the database was up, by one instance during an outage. */
  runTwice: string[];
  /** Due ticks with no completed run, and probes no run stands for. */
  lost: string[];
  /**
   * Ticks cut off by a SIGKILL: claimed or probed by the killed instance
   * shortly before, no run can stand for them; not lost, and not due.
   */
  cutOffByKill: number;
}

const EXAMPLES = 5;

function share(): ProbedShare {
  return { due: 0, probed: 0, missed: [] };
}

function count(target: ProbedShare, label: string, probed: boolean) {
  target.due++;
  if (probed) {
    target.probed++;
  } else if (target.missed.length < EXAMPLES) {
    target.missed.push(label);
  }
}

/** The database's phase at a time of the scenario. @internal */
export function phaseAt(timeline: ScenarioTimeline, at: number): DatabasePhase {
  const fault = timeline.faults.find(f => f.from <= at && at < f.to);
  return fault?.phase ?? 'up';
}

function inTakeover(timeline: ScenarioTimeline, at: number): boolean {
  return timeline.takeovers.some(w => w.from <= at && at < w.to);
}

/**
 * The tick figures of a scenario: every grid tick of the given slices due
 * in it, whether a target saw its probe and whether the database has its
 * run; the ticks probed twice; the runs lost.
 * @internal
 */
export function tickFigures(options: {
  timeline: ScenarioTimeline;
  slices: readonly SuiteSlice[];
  probes: readonly Probe[];
  runs: readonly RunRow[];
  /** A probe this long before its instance's SIGKILL may be cut off. */
  killCutOffMs: number;
}): TickFigures {
  const { timeline, slices, killCutOffMs } = options;
  const inScenario = options.probes.filter(
    p => timeline.from <= p.tick && p.tick < timeline.to,
  );
  const probed = new Set(inScenario.map(p => keyOf(p.sliceId, p.tick)));
  const completed = new Set(
    options.runs
      .filter(run => run.startedAt !== undefined)
      .map(run => keyOf(run.sliceId, run.scheduledAt)),
  );
  const figures: TickFigures = {
    up: share(),
    fault: share(),
    takeover: share(),
    runTwice: [],
    lost: [],
    cutOffByKill: 0,
  };
  /** Why each lost tick is lost, by `<slice>@<tick>`. */
  const lost = new Map<string, string>();
  const sliceOf = new Map(slices.map(slice => [slice.id, slice]));
  const killedBefore = (instance: string | undefined, at: number) =>
    timeline.kills.some(
      kill =>
        kill.instance === instance &&
        kill.at - killCutOffMs <= at &&
        at <= kill.at,
    );
  const killedJustAfter = (at: number) =>
    timeline.kills.some(kill => kill.at - killCutOffMs <= at && at <= kill.at);
  const claimerOf = new Map(
    options.runs.map(run => [
      keyOf(run.sliceId, run.scheduledAt),
      run.claimedBy,
    ]),
  );
  const claimedByAnyone = new Set(claimerOf.keys());
  // The killed instance's work under way: ticks it had claimed and not
  // completed, ticks it had probed and not recorded, and ticks nobody had
  // claimed yet (claims are batched a few ms apart; a live owner's claim
  // lands well within the cut-off, so only the killed one's is missing).
  const cutOff = new Set([
    ...options.runs
      .filter(
        run =>
          run.startedAt === undefined &&
          killedBefore(run.claimedBy, run.scheduledAt),
      )
      .map(run => keyOf(run.sliceId, run.scheduledAt)),
    ...inScenario
      .filter(
        probe => !probe.recorded && killedBefore(probe.instance, probe.at),
      )
      .map(probe => keyOf(probe.sliceId, probe.tick)),
    ...slices.flatMap(slice =>
      ticksBetween(slice, timeline.from, timeline.to)
        .filter(tick => killedJustAfter(tick))
        .map(tick => keyOf(slice.id, tick))
        .filter(key => !claimedByAnyone.has(key) && !probed.has(key)),
    ),
  ]);

  for (const slice of slices) {
    for (const tick of ticksBetween(slice, timeline.from, timeline.to)) {
      const key = keyOf(slice.id, tick);
      const label = tickLabel(slice, tick);
      if (cutOff.has(key)) {
        figures.cutOffByKill++;
        continue;
      }
      if (inTakeover(timeline, tick)) {
        count(figures.takeover, label, probed.has(key));
        continue;
      }
      const phase = phaseAt(timeline, tick);
      count(
        phase === 'up' ? figures.up : figures.fault,
        label,
        probed.has(key),
      );
      if (!completed.has(key)) {
        const claimer = claimerOf.get(key);
        lost.set(
          key,
          `${label} (${phase}): no run in the database (${
            claimer ? `claimed by ${claimer}, never completed` : 'never claimed'
          }${probed.has(key) ? ', probed' : ''})`,
        );
      }
    }
  }

  const byTick = new Map<string, Probe[]>();
  for (const probe of inScenario) {
    const key = keyOf(probe.sliceId, probe.tick);
    byTick.set(key, [...(byTick.get(key) ?? []), probe]);
    if (probe.recorded || cutOff.has(key)) {
      continue;
    }
    if (!lost.has(key) && sliceOf.has(probe.sliceId)) {
      lost.set(
        key,
        `${tickLabel(sliceOf.get(probe.sliceId)!, probe.tick)} (${phaseAt(
          timeline,
          probe.tick,
        )}): probed by ${
          probe.instance ?? 'an unknown process'
        }, no run stands for it`,
      );
    }
  }
  figures.lost = [...lost.values()];

  for (const list of byTick.values()) {
    const slice = sliceOf.get(list[0].sliceId);
    if (list.length < 2 || !slice) {
      continue;
    }
    const instances = list.map(p => p.instance ?? '?');
    const outage = phaseAt(timeline, list[0].tick) === 'outage';
    // During an outage each instance may probe a tick it last owned: at
    // most once each.
    const twice = outage ? new Set(instances).size < instances.length : true;
    if (twice) {
      figures.runTwice.push(
        `${tickLabel(slice, list[0].tick)}: ${instances.join(', ')}`,
      );
    }
  }
  return figures;
}

/** A notification as its owner has it. @internal */
export interface SentNotification {
  /** When the owner first had it. */
  at: number;
  system: string;
  environment: string;
  kind: 'unhealthy' | 'recovered';
  /** The instance that sent it, where that is known; the notifications table does not say. */
  instance?: string;
  /** When a delivery repeated in its scope last updated it, if one did. */
  updatedAt?: number;
  /** `healthcheck:<system ref>:<environment>:<epoch ms of the transition>` */
  scope?: string;
}

/** A row of Backstage's notifications table, as read after the suite. @internal */
export interface StoredNotification {
  /** The user who has it: `user:default/chaos-owner`. */
  user: string;
  /** `healthcheck:<system ref>:<environment>:<epoch ms of the transition>`. */
  scope?: string;
  title: string;
  createdAt: number;
  updatedAt?: number;
}

/**
 * A notification as the figures read it, from what it says: its system
 * and environment from its scope, its kind from its title.
 * @internal
 */
export function sentNotificationOf(notification: {
  at: number;
  scope?: string;
  title: string;
}): SentNotification {
  // healthcheck:system:default/<name>:<environment>:<transition ms>
  const scope = (notification.scope ?? '').split(':');
  const systemRef = scope.slice(1, 3).join(':');
  return {
    at: notification.at,
    system: systemRef.slice(systemRef.indexOf('/') + 1),
    environment: scope[3] ?? '',
    kind: / recovered$/.test(notification.title) ? 'recovered' : 'unhealthy',
    scope: notification.scope,
  };
}

/**
 * The notifications `user` has, oldest first: one per row of the
 * notifications table (a second row in one scope is a second notification
 * the user sees, a repeated delivery only updates the row).
 * @internal
 */
export function notificationsOfUser(
  rows: readonly StoredNotification[],
  user: string,
): SentNotification[] {
  return rows
    .filter(row => row.user === user)
    .sort((a, b) => a.createdAt - b.createdAt)
    .map(row => ({
      ...sentNotificationOf({ ...row, at: row.createdAt }),
      updatedAt: row.updatedAt,
    }));
}

/** A flip of a target and the notifications that announced it. @internal */
export interface AnnouncedFlip {
  flip: Flip;
  notifications: number;
  /** The notifications tied to it, in the order they were sent. */
  by: SentNotification[];
}

/**
 * Ties notifications to the flips they announce, per environment and in
 * order: a notification announces the earliest flip not yet announced that
 * it fits (same direction, made before it was sent); flips it passes over
 * were never announced. One that fits none is a repeat of the flip before
 * it when that fits, else spurious.
 * @internal
 */
export function announceFlips(
  flips: readonly Flip[],
  notifications: readonly SentNotification[],
): { flips: AnnouncedFlip[]; spurious: SentNotification[] } {
  const announced: AnnouncedFlip[] = flips.map(flip => ({
    flip,
    notifications: 0,
    by: [],
  }));
  const spurious: SentNotification[] = [];
  const environmentOf = (x: { system: string; environment: string }) =>
    `${x.system}/${x.environment}`;
  const kindOf = (flip: Flip) => (flip.failing ? 'unhealthy' : 'recovered');

  const environments = new Set([
    ...flips.map(environmentOf),
    ...notifications.map(environmentOf),
  ]);
  for (const environment of environments) {
    const own = announced
      .filter(a => environmentOf(a.flip) === environment)
      .sort((a, b) => a.flip.at - b.flip.at);
    const sent = notifications
      .filter(n => environmentOf(n) === environment)
      .sort((a, b) => a.at - b.at);
    let next = 0;
    let last: AnnouncedFlip | undefined;
    for (const notification of sent) {
      const fits = (a: AnnouncedFlip) =>
        kindOf(a.flip) === notification.kind && a.flip.at <= notification.at;
      const index = own.slice(next).findIndex(fits);
      if (index >= 0) {
        last = own[next + index];
        last.notifications++;
        last.by.push(notification);
        next += index + 1;
      } else if (last && fits(last)) {
        last.notifications++;
        last.by.push(notification);
      } else {
        spurious.push(notification);
      }
    }
  }
  return { flips: announced, spurious };
}
