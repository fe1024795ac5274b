import type { ProbeResult, ProbeType } from '@vigil/plugin-healthcheck-node';
import {
  HEARTBEAT_CHECK_TYPE,
  heartbeatTimingOf,
  tryDecodeSliceId,
} from '@vigil/plugin-healthcheck-common';
import type { DatabaseHeartbeatStore } from './DatabaseHeartbeatStore';
import { sliceIdOfHeartbeatTarget } from '../reconciler/heartbeatTargets';
import { observeHeartbeat } from './heartbeatDeadline';

/**
 * The `heartbeat` type: a tick "probes" by reading the slice's last pings
 * from the database (where any instance may have written them) against its
 * deadline, so a heartbeat result goes through the judgement, thresholds,
 * history, rollup, notifications and objectives of every probe.
 */
export function createHeartbeatProbeType(options: {
  store: Pick<DatabaseHeartbeatStore, 'read'>;
  now?: () => number;
}): ProbeType<Record<string, string>> {
  const now = options.now ?? Date.now;
  return {
    type: HEARTBEAT_CHECK_TYPE,
    async run({ target, config }): Promise<ProbeResult> {
      const sliceId = sliceIdOfHeartbeatTarget(target);
      const signals = await options.store.read(sliceId);
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
      return observeHeartbeat(signals, heartbeatTimingOf(config), now());
    },
  };
}
