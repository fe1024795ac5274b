/*
 * Whether a heartbeat check that kept being pinged through a fault was
 * left alone: every ping taken, no transition, no notification. Pure, so
 * what decides it is tested on its own (heartbeatFigures.test.ts).
 */
import type { ScenarioTimeline, SentNotification } from './chaosFigures';

/** A ping the suite's job sent, and what it was answered. @internal */
export interface PingAnswer {
  at: number;
  environment: string;
  instance: string;
  /** The HTTP status; 0 when it had no answer. */
  status: number;
}

/** A completed run of a heartbeat slice, as read after the fault. @internal */
export interface HeartbeatRun {
  environment: string;
  scheduledAt: number;
  status: string;
}

/** What became of a heartbeat check pinged throughout a window. @internal */
export interface HeartbeatFigures {
  pings: number;
  /** Pings answered 202: kept while the database was away. */
  journaled: number;
  /** Pings not taken (no 2xx), as `<environment> <instance>: <status>`. */
  refused: string[];
  /** Status changes of its slices in the window, as `<environment>: a -> b`. */
  transitions: string[];
  /** Notifications about its system in the window. */
  notified: string[];
}

/**
 * The figures of a heartbeat check on `system` in [from, to): a status
 * change is a run whose status differs from the slice's run before it
 * (the last before `from` included, as the status the window starts from).
 * @internal
 */
export function heartbeatFigures(options: {
  system: string;
  from: number;
  to: number;
  answers: readonly PingAnswer[];
  runs: readonly HeartbeatRun[];
  notifications: readonly SentNotification[];
}): HeartbeatFigures {
  const { from, to } = options;
  const within = (at: number) => from <= at && at < to;
  const answers = options.answers.filter(answer => within(answer.at));
  const transitions: string[] = [];
  const byEnvironment = new Map<string, HeartbeatRun[]>();
  for (const run of [...options.runs].sort(
    (a, b) => a.scheduledAt - b.scheduledAt,
  )) {
    if (run.scheduledAt >= to) {
      continue;
    }
    const list = byEnvironment.get(run.environment) ?? [];
    list.push(run);
    byEnvironment.set(run.environment, list);
  }
  for (const [environment, runs] of byEnvironment) {
    runs.forEach((run, i) => {
      const before = runs[i - 1];
      if (within(run.scheduledAt) && before && before.status !== run.status) {
        transitions.push(
          `${environment}: ${before.status} -> ${run.status} @${new Date(
            run.scheduledAt,
          ).toISOString()}`,
        );
      }
    });
  }
  return {
    pings: answers.length,
    journaled: answers.filter(answer => answer.status === 202).length,
    refused: answers
      .filter(answer => answer.status < 200 || answer.status >= 300)
      .map(
        answer =>
          `${answer.environment} ${answer.instance}: ${
            answer.status || 'no answer'
          }`,
      ),
    transitions,
    notified: options.notifications
      .filter(sent => sent.system === options.system && within(sent.at))
      .map(sent => `${sent.environment} ${sent.kind}`),
  };
}

/**
 * The heartbeat's figures in a scenario with a database fault, from the
 * fault's start to the scenario's end (the database's return included);
 * undefined for a scenario without one.
 * @internal
 */
export function scenarioHeartbeat(options: {
  system: string;
  timeline: ScenarioTimeline;
  answers: readonly PingAnswer[];
  runs: readonly HeartbeatRun[];
  notifications: readonly SentNotification[];
}): HeartbeatFigures | undefined {
  const [fault] = options.timeline.faults;
  if (!fault) {
    return undefined;
  }
  return heartbeatFigures({
    ...options,
    from: fault.from,
    to: options.timeline.to,
  });
}

/** What a scenario's row says of its heartbeat: a note, and its misses. @internal */
export function heartbeatReport(
  system: string,
  figures: HeartbeatFigures,
): { note: string; misses: string[] } {
  const refused =
    figures.refused.length > 0
      ? `, ${figures.refused.length} refused (${figures.refused
          .slice(0, 3)
          .join('; ')})`
      : '';
  return {
    note: `heartbeat ${system} pinged throughout: ${figures.pings} pings (${figures.journaled} journaled${refused}), ${figures.transitions.length} transition(s), ${figures.notified.length} notification(s)`,
    misses: [
      ...figures.transitions.map(
        transition =>
          `${system}/${transition} (a heartbeat pinged throughout: Vigil's own fault)`,
      ),
      ...figures.refused.map(ping => `${system} ping refused on ${ping}`),
    ],
  };
}
