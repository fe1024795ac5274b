import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseClaimStore } from '../claims';
import { Bulkhead } from './Bulkhead';
import { primeBulkhead, recordedRunOf } from './primeBulkhead';

jest.setTimeout(60_000);

const NOW = Date.UTC(2026, 11, 1, 12, 0, 0);
const intervalMs = 10_000;
const timeoutMs = 2_000;
const down = 'healthcheck:api:system%3Adefault%2Fshop:production';
const up = 'healthcheck:web:system%3Adefault%2Fshop:production';
const silent = 'healthcheck:new:system%3Adefault%2Fshop:production';

describe('primeBulkhead', () => {
  const databases = TestDatabases.create({ ids: requiredTestDatabases() });

  it('counts a stored run without its timeout as run at the configured one', () => {
    expect(
      recordedRunOf({ outcome: 'fail', durationMs: 900 }, timeoutMs),
    ).toEqual({
      outcome: 'fail',
      durationMs: 900,
      timeoutMsUsed: timeoutMs,
      fullTimeoutProbe: true,
    });
    expect(
      recordedRunOf(
        { outcome: 'pass', durationMs: 40, timeoutMs: 1_000 },
        timeoutMs,
      ),
    ).toMatchObject({ timeoutMsUsed: 1_000, fullTimeoutProbe: false });
  });

  it.each(databases.eachSupportedId())(
    'starts a restarted bulkhead from the stored runs: a slice that kept timing out is suspect at once, on %p',
    async databaseId => {
      const knex = await databases.init(databaseId);
      const store = await DatabaseClaimStore.create({
        database: mockServices.database({ knex, migrations: { skip: false } }),
      });
      // Five timed-out runs of one slice, five quick ones of another, and
      // an old timed-out run beyond what the bulkhead keeps.
      const ticks = [
        { sliceId: down, scheduledAt: NOW - 200 * intervalMs },
        ...[1, 2, 3, 4, 5].flatMap(n => [
          { sliceId: down, scheduledAt: NOW - n * intervalMs },
          { sliceId: up, scheduledAt: NOW - n * intervalMs },
        ]),
      ];
      await store.claimTicks('instance-a', ticks, NOW);
      await store.writeRuns(
        'instance-a',
        ticks.map(tick => ({
          ...tick,
          startedAt: tick.scheduledAt + 1,
          durationMs: tick.sliceId === down ? timeoutMs : 35,
          outcome: tick.sliceId === down ? 'fail' : 'pass',
          status: tick.sliceId === down ? 'unhealthy' : 'healthy',
          conditions: [],
          error:
            tick.sliceId === down
              ? { kind: 'timeout', message: 'No answer within 2000 ms' }
              : undefined,
          lane: 'normal',
          timeoutMs,
        })),
        NOW,
      );
      const reads: number[] = [];
      const bulkhead = new Bulkhead();

      const primed = await primeBulkhead({
        bulkhead,
        slices: [down, up, silent].map(id => ({ id, intervalMs, timeoutMs })),
        readRecentRuns: async (ids, since, perSlice) => {
          const recent = await store.readRecentRuns(ids, since, perSlice);
          recent.forEach(runs => reads.push(runs.length));
          return recent;
        },
        now: NOW,
      });

      expect(primed).toBe(2);
      expect(reads).toEqual([5, 5]);
      expect(bulkhead.classification(down).suspect).toBe(true);
      expect(bulkhead.classification(up).suspect).toBe(false);
      expect(bulkhead.classification(silent).suspect).toBe(false);
      expect(new Bulkhead().classification(down).suspect).toBe(false);
    },
  );
});
