/*
 * A heartbeat check whose job never misses a ping, on a system of its own,
 * for the outage test and the chaos suite: it must ride out every database
 * fault with no transition and no notification (see heartbeatFigures.ts).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChaosInstance } from './ChaosFleet';
import type { ChaosApi } from './chaosScenarios';
import { heartbeatCheckRequest, HeartbeatPinger } from './HeartbeatPinger';
import type { SuiteDatabase } from './SuiteDatabase';

/** The system of the heartbeat check, which nothing else checks. @internal */
export const HEARTBEAT_SYSTEM = 'echo';
/** @internal */
export const HEARTBEAT_CHECK = 'heartbeat';

/**
 * Due every 2 s with 2 s of grace, looked at every 5 s: two ticks of an
 * outage, as failures, would page with the default threshold.
 */
const HEARTBEAT_TIMING = { period: '2s', grace: '2s' };

/**
 * Makes the heartbeat check, starts its job (every slice pinged every
 * second, through the running instances in turn) and resolves once every
 * environment of it is healthy on its pings. The instances must allow more
 * than 30 pings a minute per URL (`healthcheck.heartbeats.pingsPerMinute`)
 * when fewer than two run.
 * @internal
 */
export async function startChaosHeartbeat(options: {
  api: ChaosApi;
  instances: () => ChaosInstance[];
  database: SuiteDatabase;
  environments: readonly string[];
}): Promise<HeartbeatPinger> {
  const made = await options.api.request(
    options.instances()[0],
    'POST',
    '/checks',
    heartbeatCheckRequest(
      HEARTBEAT_CHECK,
      [`system:default/${HEARTBEAT_SYSTEM}`],
      HEARTBEAT_TIMING,
    ),
  );
  if (made.status !== 201) {
    throw new Error(
      `Could not make the heartbeat check: ${made.status} ${JSON.stringify(
        made.body,
      )}`,
    );
  }
  const pinger = await HeartbeatPinger.start({
    api: options.api,
    instances: options.instances,
    checkId: HEARTBEAT_CHECK,
    everyMs: 1_000,
  });
  await waitForHealthy(options.database, options.environments);
  return pinger;
}

/** Until every environment of the heartbeat check is healthy on its pings. */
async function waitForHealthy(
  database: SuiteDatabase,
  environments: readonly string[],
): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const statuses = await database.readEnvironmentStatuses();
    if (
      environments.every(
        env => statuses.get(`${HEARTBEAT_SYSTEM}/${env}`) === 'healthy',
      )
    ) {
      return;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `The heartbeat check was not healthy within 60 s: ${JSON.stringify([
          ...statuses,
        ])}`,
      );
    }
    await sleep(250);
  }
}
