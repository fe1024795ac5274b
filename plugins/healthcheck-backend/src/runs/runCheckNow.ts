import { LoggerService } from '@backstage/backend-plugin-api';
import type { DesiredSlice } from '../model';
import type { CheckRunStarted } from '../model';
import type { RunNowRateLimiter } from './runNowRateLimit';
import type { RunNowStarted } from './TickRunner';

/**
 * "Run now" of a check: one run of each of its running slices, off the
 * schedule, through the bulkhead like any tick, on this instance whichever
 * owns each slice. A slice with a run under way (here or on another
 * instance) is not probed again: its answer is that run. Each caller has a
 * small token bucket; an empty one answers 429 before anything is read.
 * Answers with the runs once each is claimed or joined, before they finish.
 * @internal
 */
export function createRunCheckNow(deps: {
  readRunningOfCheck: (checkId: string) => Promise<DesiredSlice[]>;
  runNow: (slice: DesiredSlice, at: number) => Promise<RunNowStarted>;
  limiter: RunNowRateLimiter;
  logger: LoggerService;
  now?: () => number;
}): (checkId: string, caller: string) => Promise<CheckRunStarted[]> {
  const now = deps.now ?? Date.now;
  return async (checkId, caller) => {
    deps.limiter.take(caller);
    const slices = await deps.readRunningOfCheck(checkId);
    const at = now();
    return await Promise.all(
      slices.map(async slice => {
        const run = await deps.runNow(slice, at);
        if (!run.joined) {
          run.done.then(
            record => {
              if (!record) {
                deps.logger.info(
                  `Run now ${run.runId} did not probe: the bulkhead deferred it`,
                );
              }
            },
            error => deps.logger.warn(`Run now of ${slice.id} failed`, error),
          );
        }
        return {
          runId: run.runId,
          sliceId: slice.id,
          systemRef: slice.systemRef,
          environment: slice.environment,
        };
      }),
    );
  };
}
