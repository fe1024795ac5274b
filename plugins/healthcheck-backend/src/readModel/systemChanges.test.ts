import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseSliceStore } from '../database/DatabaseSliceStore';
import { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { StoredSliceState } from '../model';
import {
  listenForSystemChanges,
  sliceStatesOfNotification,
  systemRefsOfNotification,
} from './systemChanges';

jest.setTimeout(60_000);

describe('systemRefsOfNotification', () => {
  it('reads one ref a line, and nothing from an empty payload', () => {
    expect(
      systemRefsOfNotification('system:default/a\nsystem:team-x/b'),
    ).toEqual(['system:default/a', 'system:team-x/b']);
    expect(systemRefsOfNotification('')).toEqual([]);
    expect(systemRefsOfNotification(undefined)).toEqual([]);
  });
});

describe('sliceStatesOfNotification', () => {
  const row = {
    slice_id: 'slice-1',
    check_id: 'healthcheck:default/api',
    system_ref: 'system:default/a',
    environment: 'production',
    status: 'unhealthy',
    consecutive_failures: 2,
    consecutive_successes: 0,
    since: 1_000,
    last_outcome: 'fail',
    last_scheduled_at: 2_000,
    last_run_at: 2_010,
    last_duration_ms: null,
    last_reason: 'The status was 503',
  };

  it('reads one state a line, as row_to_json writes the row', () => {
    const states = sliceStatesOfNotification(
      `${JSON.stringify(row)}\n${JSON.stringify({
        ...row,
        slice_id: 'slice-2',
        last_reason: null,
        last_duration_ms: 12,
      })}`,
    );
    expect(states).toEqual([
      {
        sliceId: 'slice-1',
        checkId: 'healthcheck:default/api',
        systemRef: 'system:default/a',
        environment: 'production',
        status: 'unhealthy',
        consecutiveFailures: 2,
        consecutiveSuccesses: 0,
        since: 1_000,
        lastOutcome: 'fail',
        lastScheduledAt: 2_000,
        lastRunAt: 2_010,
        lastDurationMs: undefined,
        lastReason: 'The status was 503',
      },
      expect.objectContaining({
        sliceId: 'slice-2',
        lastDurationMs: 12,
        lastReason: undefined,
      }),
    ]);
    expect(sliceStatesOfNotification('')).toEqual([]);
  });

  it('refuses a line that is not a slice state, saying which', () => {
    expect(() => sliceStatesOfNotification('{"slice_id": 3}')).toThrow(
      /healthcheck_slice_states_changed carries something that is not a slice state: \{"slice_id": 3\}/,
    );
    expect(() => sliceStatesOfNotification('system:default/a')).toThrow(
      SyntaxError,
    );
  });
});

const postgres = requiredTestDatabases().filter(id => id === 'POSTGRES_15');

(postgres.length > 0 ? describe : describe.skip)(
  'system change notifications on PostgreSQL',
  () => {
    const databases = TestDatabases.create({ ids: postgres });

    it('names every system a statement touched, over as many notifications as its refs need', async () => {
      const knex = await databases.init('POSTGRES_15');
      const slices = await DatabaseSliceStore.create({
        database: mockServices.database({ knex, migrations: { skip: false } }),
      });
      const notifications: string[][] = [];
      const listener = await listenForSystemChanges(knex, {
        onChanged: refs => notifications.push(refs),
        onSliceStates: () => {},
        onLost: () => {},
      });
      try {
        // About 40 bytes a ref: 600 of them are three times the 8000 bytes
        // one notification may carry.
        const systems = Array.from(
          { length: 600 },
          (_, i) => `system:default/a-system-with-a-longer-name-${i}`,
        );
        await slices.applyChanges({
          write: systems.map(systemRef => {
            const key = {
              checkId: 'healthcheck:default/api',
              systemRef,
              environment: 'production',
            };
            return { paused: true, slice: { id: encodeSliceId(key), ...key } };
          }),
          remove: [],
        });
        const start = Date.now();
        while (
          notifications.flat().length < systems.length &&
          Date.now() - start < 5_000
        ) {
          await new Promise(resolve => setTimeout(resolve, 10));
        }
        expect(new Set(notifications.flat())).toEqual(new Set(systems));
        expect(notifications.length).toBeGreaterThan(2);
      } finally {
        await listener.close();
      }
    });

    it('carries the slice states a statement wrote, over as many notifications as they need, and names the system of one too long to carry', async () => {
      const knex = await databases.init('POSTGRES_15');
      const states = await DatabaseStateStore.create({
        database: mockServices.database({ knex, migrations: { skip: false } }),
      });
      const told: StoredSliceState[][] = [];
      const systemsTold: string[] = [];
      const listener = await listenForSystemChanges(knex, {
        onChanged: refs => systemsTold.push(...refs),
        onSliceStates: written => told.push(written),
        onLost: () => {},
      });
      const stateOf = (i: number, reason?: string): StoredSliceState => ({
        sliceId: `slice-${i}`,
        checkId: 'healthcheck:default/api',
        systemRef: `system:default/system-${i % 7}`,
        environment: 'production',
        status: 'healthy',
        consecutiveFailures: 0,
        consecutiveSuccesses: 1,
        since: 1_000,
        lastOutcome: 'pass',
        lastScheduledAt: 2_000 + i,
        lastRunAt: 2_010 + i,
        lastDurationMs: 12,
        lastReason: reason,
      });
      const until = async (done: () => boolean) => {
        const start = Date.now();
        while (!done() && Date.now() - start < 5_000) {
          await new Promise(resolve => setTimeout(resolve, 10));
        }
      };
      try {
        // About 350 bytes a row: 100 of them are four times what one
        // notification may carry.
        const written = Array.from({ length: 100 }, (_, i) => stateOf(i));
        await states.writeSliceStates(written);
        await until(() => told.flat().length >= written.length);
        expect(told.length).toBeGreaterThan(3);
        expect(
          told.flat().sort((a, b) => a.lastScheduledAt - b.lastScheduledAt),
        ).toEqual(written);
        expect(systemsTold).toEqual([]);

        // A reason of 9,000 characters cannot travel: its system is named.
        told.length = 0;
        await states.writeSliceStates([
          { ...stateOf(3, 'x'.repeat(9_000)), lastScheduledAt: 9_000 },
          { ...stateOf(4), lastScheduledAt: 9_000 },
        ]);
        await until(() => systemsTold.length > 0 && told.length > 0);
        expect(systemsTold).toEqual(['system:default/system-3']);
        expect(told.flat().map(state => state.sliceId)).toEqual(['slice-4']);
      } finally {
        await listener.close();
      }
    });
  },
);
