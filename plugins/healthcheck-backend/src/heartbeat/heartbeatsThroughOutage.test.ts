import { createServiceFactory } from '@backstage/backend-plugin-api';
import { TestDatabases } from '@backstage/backend-test-utils';
import { notificationService } from '@backstage/plugin-notifications-node';
import { setTimeout as sleep } from 'node:timers/promises';
import { cutDatabase } from '../__testUtils__/cutDatabase';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { waitFor } from '../__testUtils__/waitFor';
import {
  HeartbeatPortal,
  startHeartbeatPortal,
} from './__testUtils__/heartbeatPortal';

jest.setTimeout(240_000);

/*
 * A job pings its heartbeat check every second (period 2 s, grace 2 s, the
 * default thresholds: two misses page) while Vigil's database is cut for
 * 20 s, four of the slice's ticks. The job did nothing wrong: every ping is
 * taken, the slice never changes status, and nobody is paged.
 */
const CUT_MS = 20_000;
const AFTER_MS = 15_000;

const databases = TestDatabases.create({ ids: requiredTestDatabases() });

describe.each(databases.eachSupportedId())(
  'a heartbeat check pinged through a database outage, on %p',
  databaseId => {
    let heartbeat: HeartbeatPortal;
    const notified: string[] = [];

    beforeAll(async () => {
      heartbeat = await startHeartbeatPortal({
        databases,
        databaseId,
        check: {
          name: 'export-heartbeat',
          spec: { period: '2s', grace: '2s' },
        },
        healthcheck: { heartbeats: { pingsPerMinute: 120 } },
        features: [
          createServiceFactory({
            service: notificationService,
            deps: {},
            factory: () => ({
              async send(notification) {
                notified.push(notification.payload.title);
              },
            }),
          }),
        ],
      });
    });

    afterAll(async () => {
      await heartbeat?.stop();
    });

    it('takes every ping, changes no status and pages nobody', async () => {
      const { slice, sliceId, portal } = heartbeat;
      const issued = await heartbeat.issueTokens().expect(201);
      const token: string = issued.body.items[0].token;
      const answers: number[] = [];
      let pinging = true;
      const pinger = (async () => {
        while (pinging) {
          const answer = await heartbeat.ping(token);
          answers.push(answer.status);
          await sleep(1_000);
        }
      })();
      const healthy = await waitFor(
        'healthy on the pings',
        slice,
        s => s.status === 'healthy',
      );
      // Told of the recovery from "No ping URL yet", before the outage.
      await sleep(2_000);
      const notifiedBefore = notified.length;

      const database = cutDatabase(await portal.databaseOf('healthcheck'));
      const cutAt = Date.now();
      database.cut();
      await sleep(CUT_MS);
      database.restore();
      const backAt = Date.now();
      await sleep(AFTER_MS);
      pinging = false;
      await pinger;

      // Every ping was taken: at once, or journaled (202) while cut.
      expect(answers.filter(status => status >= 300)).toEqual([]);
      expect(answers).toContain(202);
      // No transition: the slice is healthy since it first was.
      const after = await slice();
      expect(after).toMatchObject({ status: 'healthy', since: healthy.since });
      const knex = await portal.databaseOf('healthcheck');
      const runs: Array<{ status: string; started_at: string | number }> =
        await knex('healthcheck_runs')
          .where({ slice_id: sliceId })
          .whereNotNull('started_at')
          .where('started_at', '>=', Date.parse(healthy.since))
          .select('status', 'started_at');
      expect(new Set(runs.map(run => run.status))).toEqual(
        new Set(['healthy']),
      );
      // Judged again after the outage, from the pings it kept.
      expect(
        runs.filter(run => Number(run.started_at) > backAt).length,
      ).toBeGreaterThan(0);
      // Nobody was paged.
      expect(notified.slice(notifiedBefore)).toEqual([]);
      // The deadlines waited out the time Vigil could not hear pings.
      const spans = await knex('healthcheck_ping_deaf_spans').select(
        'from_at',
        'to_at',
      );
      expect(
        spans.some(
          span =>
            Number(span.from_at) >= cutAt - 1_000 &&
            Number(span.to_at) >= backAt - 1_000,
        ),
      ).toBe(true);
    });
  },
);
