import type { ProbeResult, ProbeType } from '@vigil/plugin-healthcheck-node';
import { stringifyError } from '@backstage/errors';
import {
  HEARTBEAT_CHECK_TYPE,
  heartbeatTimingOf,
  tryDecodeSliceId,
} from '@vigil/plugin-healthcheck-common';
import type {
  DatabaseHeartbeatStore,
  HeartbeatSlice,
} from './DatabaseHeartbeatStore';
import type { DeafSpans } from './DeafSpans';
import { sliceIdOfHeartbeatTarget } from '../reconciler/heartbeatTargets';
import { TickNotJudged } from '../runs/notJudged';
import { observeHeartbeat } from './heartbeatDeadline';

/** A read of the last pings slower than this means the database struggles. */
const SLOW_READ_MS = 500;

/**
 * How long after this instance last found the database away or slow a
 * missed deadline is not judged: pings other instances took meanwhile may
 * still wait in their journals, to be written with the time they came.
 */
const SETTLE_AFTER_TROUBLE_MS = 30_000;

/**
 * The `heartbeat` type: a tick "probes" by reading the slice's last pings
 * from the database (where any instance may have written them) against its
 * deadline, so a heartbeat result goes through the judgement, thresholds,
 * history, rollup, notifications and objectives of every probe. The
 * deadline moves by the time Vigil could not hear pings; a tick whose read
 * fails, or does not answer in time, is not judged: Vigil's database being
 * away says nothing about the job. Nor is a missed deadline within 30 s of
 * a read that failed or was slow (over 500 ms): under a slow database the
 * other instances journal the pings they take and write them later.
 */
export function createHeartbeatProbeType(options: {
  store: Pick<DatabaseHeartbeatStore, 'read'>;
  deafSpans?: Pick<DeafSpans, 'deaf' | 'heard' | 'spans'>;
  now?: () => number;
}): ProbeType<Record<string, string>> {
  const now = options.now ?? Date.now;
  const { deafSpans } = options;
  /** When this instance last found the database away or slow. */
  let lastTrouble = -Infinity;
  return {
    type: HEARTBEAT_CHECK_TYPE,
    async run({ target, config, signal }): Promise<ProbeResult> {
      const sliceId = sliceIdOfHeartbeatTarget(target);
      let signals: HeartbeatSlice | undefined;
      const readFrom = now();
      try {
        signals = await untilAborted(options.store.read(sliceId), signal);
        deafSpans?.heard(now());
        if (now() - readFrom > SLOW_READ_MS) {
          lastTrouble = now();
        }
      } catch (error) {
        if (signal.aborted && signal.reason?.name !== 'TimeoutError') {
          throw new TickNotJudged(
            'stopping',
            'The instance stopped while it read the last pings',
          );
        }
        deafSpans?.deaf(now());
        lastTrouble = now();
        throw new TickNotJudged(
          'database',
          `Could not read the last pings: ${stringifyError(error)}`,
        );
      }
      if (!signals) {
        return {
          ok: false,
          durationMs: 0,
          error: {
            kind: 'config',
            message: `No ping URL yet: whoever may edit check '${
              tryDecodeSliceId(sliceId)?.checkId ?? sliceId
            }' makes one with POST /api/healthcheck/v1/checks/{id}/heartbeat/tokens`,
          },
        };
      }
      const at = now();
      const observed = observeHeartbeat(
        signals,
        heartbeatTimingOf(config),
        at,
        deafSpans?.spans(at),
      );
      if (!observed.ok && at - lastTrouble < SETTLE_AFTER_TROUBLE_MS) {
        throw new TickNotJudged(
          'database',
          `The database was away or slow ${Math.round(
            (at - lastTrouble) / 1000,
          )} s ago; pings taken meanwhile may not be written yet`,
        );
      }
      return observed;
    },
  };
}

/** The read, or its signal's reason once it aborts (a timeout, a stop). */
function untilAborted<T>(read: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) {
    return Promise.reject(signal.reason);
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    read.then(resolve, reject).finally(() => {
      signal.removeEventListener('abort', onAbort);
    });
  });
}
