/*
 * CPU use over a span, from /proc (Linux): the whole machine's, and that of
 * PostgreSQL server processes when the server runs on this machine. On a
 * shared 2-core machine this tells the bench's own load apart from what
 * else was running.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** Clock ticks per second of /proc's times (USER_HZ; 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * The machine's ticks: busy (this machine's processes), stolen (a virtual
 * machine's CPUs running someone else's work, by the hypervisor) and in all.
 */
function machineTicks(): { busy: number; stolen: number; total: number } {
  // user nice system idle iowait irq softirq steal guest guest_nice; guest
  // time is counted in user as well.
  const fields = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1, 9)
    .map(Number);
  const total = fields.reduce((sum, value) => sum + value, 0);
  const idle = fields[3] + (fields[4] ?? 0);
  const stolen = fields[7] ?? 0;
  return { busy: total - idle - stolen, stolen, total };
}

/** utime + stime of one process, in ticks; reads `/proc/<pid>/stat`. */
function ticksOfStat(stat: string): number {
  // After "pid (comm) " come state (field 3) ... utime (14), stime (15).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * CPU seconds (user and system) one process has used since it started,
 * from /proc: how the probe-cost bench measures a process that is not its
 * own (a backend instance, blackbox_exporter) without instrumenting it.
 */
export function processCpuSeconds(pid: number): number {
  return (
    ticksOfStat(readFileSync(`/proc/${pid}/stat`, 'utf8')) / TICKS_PER_SECOND
  );
}

/** utime + stime of each process whose command is `postgres`, by pid. */
function postgresTicks(): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) {
      continue;
    }
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const close = stat.lastIndexOf(')');
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') {
        continue;
      }
      ticks.set(pid, ticksOfStat(stat));
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks;
}

/**
 * PostgreSQL's ticks between two readings: per process alive at the end,
 * what it used since the first reading (or since it started). A process
 * that ended in between is missed (a short-lived worker, a connection that
 * closed); the pooled connections the bench uses live throughout.
 */
function postgresTicksBetween(
  before: Map<string, number>,
  after: Map<string, number>,
  only?: ReadonlySet<string>,
): number {
  let ticks = 0;
  for (const [pid, value] of after) {
    if (!only || only.has(pid)) {
      ticks += value - (before.get(pid) ?? 0);
    }
  }
  return ticks;
}

/** Cores in use over a span: the machine's and PostgreSQL's. */
export interface CpuSpan {
  /** Used by this machine's processes. */
  machineCores: number;
  /** Taken by the hypervisor for other machines (0 on bare metal). */
  stolenCores: number;
  postgresCores: number;
}

/**
 * Starts a span; the returned function ends it. NaN where /proc is missing.
 * `postgresPids`, given at the start and the end, limit PostgreSQL to those
 * server processes (the bench database's backends; the server may serve
 * others too).
 */
export function startCpuSpan(
  postgresPids?: ReadonlySet<string>,
): (postgresPidsAtEnd?: ReadonlySet<string>) => CpuSpan {
  let before: {
    machine: ReturnType<typeof machineTicks>;
    postgres: Map<string, number>;
  };
  const startedAt = Date.now();
  try {
    before = { machine: machineTicks(), postgres: postgresTicks() };
  } catch {
    return () => ({ machineCores: NaN, stolenCores: NaN, postgresCores: NaN });
  }
  return postgresPidsAtEnd => {
    const only =
      postgresPids || postgresPidsAtEnd
        ? new Set([...(postgresPids ?? []), ...(postgresPidsAtEnd ?? [])])
        : undefined;
    const machine = machineTicks();
    const total = machine.total - before.machine.total;
    const seconds = (Date.now() - startedAt) / 1000;
    return {
      machineCores:
        total > 0
          ? ((machine.busy - before.machine.busy) / total) * cpus().length
          : NaN,
      stolenCores:
        total > 0
          ? ((machine.stolen - before.machine.stolen) / total) * cpus().length
          : NaN,
      postgresCores:
        seconds > 0
          ? postgresTicksBetween(before.postgres, postgresTicks(), only) /
            TICKS_PER_SECOND /
            seconds
          : NaN,
    };
  };
}
