import { LoggerService } from '@backstage/backend-plugin-api';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { EnvironmentTransitions } from './EnvironmentTransitions';
import type { RunRecord, StoredSliceState } from '../model';

/**
 * What a run shows as its reason: the first failing condition as displayed
 * (conditions that only degrade after the rest), or the probe's error.
 * @internal
 */
export function reasonOfRun(
  record: Pick<RunRecord, 'conditions' | 'error' | 'outcome'>,
): string | undefined {
  if (record.outcome === 'pass') {
    return undefined;
  }
  const failed = record.conditions.filter(c => !c.success);
  const first =
    failed.find(c => c.severity !== 'degraded') ?? failed[0] ?? undefined;
  if (first) {
    return first.display;
  }
  return record.error
    ? `${record.error.kind}: ${record.error.message}`
    : undefined;
}

/**
 * What follows the write of a batch of runs: their slices' durable states,
 * then the environments whose slices changed status are checked for a
 * transition.
 * @internal
 */
export function createRunFollowUp(deps: {
  store: DatabaseStateStore;
  transitions: EnvironmentTransitions;
  logger: LoggerService;
  /** Debounced rollup recompute of a system whose slices changed status. */
  requestRollup?: (systemRef: string) => Promise<void>;
}): (
  // A journaled run has no probe details; a follow-up needs none.
  records: ReadonlyArray<Omit<RunRecord, 'probe' | 'queueWaitMs'>>,
) => Promise<void> {
  const { store, transitions, logger, requestRollup } = deps;
  return async records => {
    if (records.length === 0) {
      return;
    }
    // Runs written back after an outage hold several ticks of a slice: its
    // state is the latest one's.
    const latest = new Map<string, (typeof records)[number]>();
    for (const record of records) {
      const known = latest.get(record.sliceId);
      if (!known || known.scheduledAt < record.scheduledAt) {
        latest.set(record.sliceId, record);
      }
    }
    await store.writeSliceStates(
      [...latest.values()].map(
        (record): StoredSliceState => ({
          ...record.state,
          sliceId: record.sliceId,
          checkId: record.checkId,
          systemRef: record.systemRef,
          environment: record.environment,
          lastScheduledAt: record.scheduledAt,
          lastRunAt: record.startedAt,
          lastDurationMs: record.durationMs,
          lastReason: reasonOfRun(record),
        }),
      ),
    );
    const changed = records.filter(record => record.statusChanged);
    if (changed.length === 0) {
      return;
    }
    try {
      await transitions.check(changed);
      // The environments' statuses may hold while the reasons change.
      for (const systemRef of new Set(changed.map(r => r.systemRef))) {
        await requestRollup?.(systemRef);
      }
    } catch (error) {
      logger.warn(
        'Could not check environments for a change of status',
        error as Error,
      );
    }
  };
}
