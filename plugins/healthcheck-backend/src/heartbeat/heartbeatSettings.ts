import type { LoggerService } from '@backstage/backend-plugin-api';
import type { Config } from '@backstage/config';
import { stringifyEntityRef, parseEntityRef } from '@backstage/catalog-model';
import {
  canonicalEnvironmentName,
  encodeSliceId,
} from '@vigil/plugin-healthcheck-common';
import type { DatabaseHeartbeatStore } from './DatabaseHeartbeatStore';
import { isPingTokenShaped } from './pingTokens';

/** Pings a token may send per minute unless configured otherwise. */
export const DEFAULT_PINGS_PER_MINUTE = 30;

/** `healthcheck.heartbeats`: how often each ping URL may be pinged. */
export function readHeartbeatSettings(config: Config): {
  pingsPerMinute: number;
} {
  return {
    pingsPerMinute:
      config.getOptionalNumber('healthcheck.heartbeats.pingsPerMinute') ??
      DEFAULT_PINGS_PER_MINUTE,
  };
}

/**
 * Gives the slices named in `healthcheck.heartbeats.demoTokens` their fixed
 * tokens: for the demo only, whose pinger starts without an API call.
 */
export async function fixDemoPingTokens(
  config: Config,
  store: Pick<DatabaseHeartbeatStore, 'fixToken'>,
  logger: LoggerService,
  now: number = Date.now(),
): Promise<void> {
  const entries =
    config.getOptionalConfigArray('healthcheck.heartbeats.demoTokens') ?? [];
  for (const entry of entries) {
    const token = entry.getString('token');
    if (!isPingTokenShaped(token)) {
      throw new Error(
        `healthcheck.heartbeats.demoTokens: a token is 32 characters of A-Z, a-z, 0-9, _ and -`,
      );
    }
    const checkId = entry.getString('check');
    const systemRef = stringifyEntityRef(
      parseEntityRef(entry.getString('system'), { defaultKind: 'system' }),
    );
    const environment = canonicalEnvironmentName(
      entry.getString('environment'),
    );
    await store.fixToken(
      checkId,
      encodeSliceId({ checkId, systemRef, environment }),
      token,
      now,
    );
    logger.warn(
      `DEMO ONLY: check ${checkId} on ${systemRef} in ${environment} has a ping token fixed in configuration (healthcheck.heartbeats.demoTokens)`,
    );
  }
}
