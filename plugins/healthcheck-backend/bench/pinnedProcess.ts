/*
 * Benches that measure a server under load run the server and the load
 * generator as processes of their own, each on a core of its own where the
 * machine has two or more and `taskset` can pin them: otherwise the load
 * generator's event loop and the server's compete for one core, and what is
 * measured is their contention.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpus } from 'node:os';

/** Whether `taskset` is there and may set this machine's affinities. */
function tasksetWorks(): boolean {
  const probe = spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
  return probe.status === 0;
}

/**
 * The cores the server and the load generator are pinned to: the first and
 * the last of the machine's, or none where it has one core or no `taskset`
 * (then `why` says so).
 */
export function benchCores():
  | { server: number; load: number }
  | { why: string } {
  const count = cpus().length;
  if (count < 2) {
    return { why: `one CPU, nothing to pin apart` };
  }
  if (!tasksetWorks()) {
    return { why: 'taskset is missing or may not set affinities here' };
  }
  return { server: 0, load: count - 1 };
}

/**
 * Forks `file` as Node with this process's flags (so the TypeScript
 * transform comes along) and an IPC channel, on `core` when given.
 */
export function forkOnCore(
  file: string,
  args: readonly string[],
  core: number | undefined,
): ChildProcess {
  const node = [...process.execArgv, file, ...args];
  const [command, argv] =
    core === undefined
      ? [process.execPath, node]
      : ['taskset', ['-c', String(core), process.execPath, ...node]];
  return spawn(command, argv, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}
