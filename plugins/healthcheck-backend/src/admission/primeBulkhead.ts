import type { Bulkhead } from './Bulkhead';
import type { RecordedRun } from './classifySlice';
import { runsKept } from './options';

/** Slices whose stored runs are read in one query. */
const SLICES_PER_READ = 500;

/** A stored run, as `readRecentRuns` gives it. */
export interface PrimingRun {
  readonly outcome: RecordedRun['outcome'];
  readonly durationMs: number;
  readonly errorKind?: RecordedRun['errorKind'];
  /** The timeout the run had, when known. */
  readonly timeoutMs?: number;
}

/**
 * A stored run as the bulkhead remembers it. Without its own timeout it
 * counts as run at the configured one.
 */
export function recordedRunOf(
  run: PrimingRun,
  configuredTimeoutMs: number,
): RecordedRun {
  const timeoutMsUsed = run.timeoutMs ?? configuredTimeoutMs;
  return {
    outcome: run.outcome,
    durationMs: run.durationMs,
    ...(run.errorKind !== undefined && { errorKind: run.errorKind }),
    timeoutMsUsed,
    fullTimeoutProbe: timeoutMsUsed >= configuredTimeoutMs,
  };
}

/**
 * Starts the bulkhead from the slices' stored runs, so a slice known to be
 * down does not pin slots for its full timeout again after a restart until
 * it is recognised. Slices of one interval are read together, far back
 * enough for the runs the bulkhead keeps. Returns how many were primed.
 */
export async function primeBulkhead(deps: {
  bulkhead: Bulkhead;
  slices: ReadonlyArray<{ id: string; intervalMs: number; timeoutMs: number }>;
  readRecentRuns: (
    sliceIds: string[],
    since: number,
    perSlice: number,
  ) => Promise<ReadonlyMap<string, readonly PrimingRun[]>>;
  now: number;
}): Promise<number> {
  const { bulkhead, slices, readRecentRuns, now } = deps;
  const perSlice = runsKept(bulkhead.options);
  const byInterval = new Map<number, (typeof slices)[number][]>();
  for (const slice of slices) {
    const group = byInterval.get(slice.intervalMs) ?? [];
    group.push(slice);
    byInterval.set(slice.intervalMs, group);
  }
  let primed = 0;
  for (const [intervalMs, group] of byInterval) {
    // One interval more than the runs kept: room for late and run-now rows.
    const since = now - (perSlice + 1) * intervalMs;
    for (let at = 0; at < group.length; at += SLICES_PER_READ) {
      const chunk = group.slice(at, at + SLICES_PER_READ);
      const stored = await readRecentRuns(
        chunk.map(slice => slice.id),
        since,
        perSlice,
      );
      for (const slice of chunk) {
        const runs = stored.get(slice.id);
        if (runs && runs.length > 0) {
          bulkhead.prime(
            slice.id,
            runs.map(run => recordedRunOf(run, slice.timeoutMs)),
          );
          primed++;
        }
      }
    }
  }
  return primed;
}
