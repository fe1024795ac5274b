import { LoggerService } from '@backstage/backend-plugin-api';
import type { DesiredSlice } from '../reconciler/desiredSlices';
import type { CheckRunStarted } from '../service/router';
import type { RunRecord } from './SliceRunner';

/**
 * "Run now" of a check: one one-off run of each of its running slices,
 * started at one instant, off the schedule and past the bulkhead. Answers
 * with the runs started, before they finish.
 * @internal
 */
export function createRunCheckNow(deps: {
  readRunningOfCheck: (checkId: string) => Promise<DesiredSlice[]>;
  runOnce: (slice: DesiredSlice, at: number) => Promise<RunRecord | undefined>;
  logger: LoggerService;
  now?: () => number;
}): (checkId: string) => Promise<CheckRunStarted[]> {
  const now = deps.now ?? Date.now;
  return async checkId => {
    const at = now();
    const slices = await deps.readRunningOfCheck(checkId);
    for (const slice of slices) {
      deps
        .runOnce(slice, at)
        .catch(error =>
          deps.logger.warn(`Run now of ${slice.id} failed`, error),
        );
    }
    return slices.map(slice => ({
      runId: `${slice.id}@${at}`,
      sliceId: slice.id,
      systemRef: slice.systemRef,
      environment: slice.environment,
    }));
  };
}
