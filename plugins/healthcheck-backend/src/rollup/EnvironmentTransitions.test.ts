import { mockServices } from '@backstage/backend-test-utils';
import type { HealthStatus } from '@vigil/plugin-healthcheck-common';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { EnvironmentSlice } from '../model';
import { EnvironmentTransitions } from './EnvironmentTransitions';

const SYSTEMS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot'].map(
  name => `system:default/${name}`,
);

function healthySlice(systemRef: string): EnvironmentSlice {
  return {
    sliceId: `ping:${systemRef}:production`,
    checkId: 'ping',
    systemRef,
    environment: 'production',
    paused: false,
    state: {
      sliceId: `ping:${systemRef}:production`,
      checkId: 'ping',
      systemRef,
      environment: 'production',
      status: 'healthy',
      consecutiveFailures: 0,
      consecutiveSuccesses: 1,
      since: 0,
      lastOutcome: 'pass',
      lastScheduledAt: 0,
      lastRunAt: 0,
    },
  };
}

/**
 * A store whose every environment was unknown and whose slices are now
 * healthy, each compare-and-set held until the test lets it go: how many
 * run at once shows how many systems are checked at once.
 */
function slowStore() {
  let running = 0;
  let mostAtOnce = 0;
  const held: Array<() => void> = [];
  const store = {
    readEnvironmentSlices: async (keys: ReadonlyArray<{ systemRef: string }>) =>
      keys.map(key => healthySlice(key.systemRef)),
    readEnvironmentStates: async () =>
      new Map<string, { status: HealthStatus }>(),
    transitionEnvironment: async () => {
      running++;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise<void>(resolve => held.push(resolve));
      running--;
      return true;
    },
  } as unknown as DatabaseStateStore;
  return {
    store,
    mostAtOnce: () => mostAtOnce,
    releaseAll: () => held.splice(0).forEach(release => release()),
  };
}

describe('EnvironmentTransitions', () => {
  it('checks up to four systems at once, and returns their transitions in the order asked', async () => {
    const { store, mostAtOnce, releaseAll } = slowStore();
    const transitions = new EnvironmentTransitions({
      store,
      logger: mockServices.logger.mock(),
      // The store above runs no transaction, so there is nothing to write in.
      outbox: {
        write: async () => {},
        transaction: async work => work({} as any),
        wake() {},
      },
    });

    const made = transitions.check(
      SYSTEMS.map(systemRef => ({ systemRef, environment: 'production' })),
    );
    // Release the moves under way until every system has been checked.
    let settled = false;
    made.finally(() => (settled = true));
    while (!settled) {
      await new Promise(resolve => setImmediate(resolve));
      releaseAll();
    }

    expect(mostAtOnce()).toBe(4);
    expect(
      (await made).map(
        event => `${event.systemRef} ${event.from}->${event.to}`,
      ),
    ).toEqual(SYSTEMS.map(systemRef => `${systemRef} unknown->healthy`));
  });
});
