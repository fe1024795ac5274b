import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import knexFactory, { Knex } from 'knex';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseSliceStore } from '../database/DatabaseSliceStore';
import {
  createInstanceRunner,
  InstanceRunner,
} from '../runs/createInstanceRunner';
import { createRunCheckNow } from '../runs/runCheckNow';
import { RunNowRateLimiter } from '../runs/runNowRateLimit';
import { DatabaseHistoryStore } from '../history';
import type { DesiredSlice } from '../model';
import { eventually } from '../rollup/__testUtils__/healthTestbed';
import { ownerOf } from './rendezvous';
import { builtinProbeTypeRegistry } from '../__testUtils__/builtinProbeTypeRegistry';

/*
 * Two instances share one PostgreSQL, each with its own pool, both probing
 * (scheduler running). A run now of a check with three environments, asked
 * of either instance or of both at once, probes each environment exactly
 * once, never while another probe of it is open at the target, and each run
 * id it answers with is listed with its result once done.
 */

const postgres = requiredTestDatabases().filter(id => id === 'POSTGRES_15');
const ENVIRONMENTS = ['production', 'staging', 'canary'];
const INSTANCES = ['instance-a', 'instance-b'];
/** Long enough that two probes of a slice would be seen overlapping. */
const TARGET_ANSWERS_AFTER_MS = 300;

jest.setTimeout(60_000);

interface Hit {
  environment: string;
  from: number;
  to: number;
}

/** A check whose environments the two instances share between them. */
function checkSlices(port: number): DesiredSlice[] {
  for (let n = 0; ; n++) {
    const checkId = `on-demand-${n}`;
    const slices = ENVIRONMENTS.map(environment => {
      const key = {
        checkId,
        systemRef: 'system:default/on-demand',
        environment,
      };
      return {
        id: encodeSliceId(key),
        ...key,
        intervalMs: 3_600_000,
        timeoutMs: 2_000,
        type: 'http',
        target: `http://127.0.0.1:${port}/${environment}`,
        config: {},
        conditions: ['[STATUS] == 200'],
        thresholds: {},
        configHash: `hash-${environment}`,
      };
    });
    const owners = new Set(slices.map(s => ownerOf(s.id, INSTANCES)));
    if (owners.size === INSTANCES.length) {
      return slices;
    }
  }
}

async function startTarget(hits: Hit[]): Promise<Server> {
  const server = createServer((req, res) => {
    const from = Date.now();
    setTimeout(() => {
      hits.push({ environment: req.url!.slice(1), from, to: Date.now() });
      res.writeHead(200).end();
    }, TARGET_ANSWERS_AFTER_MS);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

(postgres.length > 0 ? describe : describe.skip)(
  'run now across instances on one PostgreSQL',
  () => {
    const databases = TestDatabases.create({ ids: postgres });
    const clients: Knex[] = [];
    const instances: InstanceRunner[] = [];
    let server: Server | undefined;

    afterAll(async () => {
      await Promise.all(instances.map(instance => instance.stop()));
      await Promise.all(clients.map(client => client.destroy()));
      server?.close();
    });

    it('probes each environment once on whichever instance is asked, never beside another probe of it, and lists every run id it answers', async () => {
      const knex = await databases.init('POSTGRES_15');
      const sliceStore = await DatabaseSliceStore.create({
        database: mockServices.database({ knex, migrations: { skip: false } }),
      });
      const hits: Hit[] = [];
      server = await startTarget(hits);
      const slices = checkSlices((server.address() as AddressInfo).port);
      await sliceStore.applyChanges({
        write: slices.map(slice => ({ paused: false, slice })),
        remove: [],
      });

      const config = new ConfigReader({
        healthcheck: {
          network: { allowLoopback: true },
          instances: { heartbeatInterval: '200ms', ttl: '2s' },
          scheduler: { refreshInterval: '500ms' },
        },
      });
      const runChecks = [];
      for (const instanceId of INSTANCES) {
        // Its own pool, as another process has.
        const client = knexFactory({
          client: 'pg',
          connection: knex.client.config.connection,
          pool: { min: 0, max: 5 },
        });
        clients.push(client);
        const probeTypes = builtinProbeTypeRegistry(config);
        const instance = await createInstanceRunner({
          config,
          logger: mockServices.logger.mock(),
          database: {
            getClient: async () => client,
            migrations: { skip: true },
          },
          slices: new DatabaseSliceStore(client),
          probeTypes,
          instanceId,
        });
        instances.push(instance);
        runChecks.push(
          createRunCheckNow({
            readRunningOfCheck: checkId =>
              sliceStore.readRunningOfCheck(checkId),
            runNow: (slice, at) => instance.engine.runner.runNow(slice, at),
            limiter: new RunNowRateLimiter({ perCallerPerMinute: 60 }),
            logger: mockServices.logger.mock(),
          }),
        );
      }
      // Both see both, so each owns some of the three environments.
      await new Promise(resolve => setTimeout(resolve, 600));
      instances.forEach(instance => instance.start());
      const checkId = slices[0].checkId;
      const history = await DatabaseHistoryStore.create({
        database: mockServices.database({ knex }),
      });
      /** The runs listed with a result, as GET .../runs lists them. */
      const runsOf = async (slice: DesiredSlice) =>
        (
          await history.listRuns({
            sliceId: slice.id,
            // A scheduled first probe is recorded under the hour's grid tick.
            from: Date.now() - 2 * slice.intervalMs,
            to: Date.now(),
          })
        ).runs.filter(run => run.outcome === 'pass');
      const listed = async (runIds: string[]) => {
        const done = new Set<string>();
        for (const slice of slices) {
          (await runsOf(slice)).forEach(run =>
            done.add(`${slice.id}@${run.scheduledAt}`),
          );
        }
        return runIds.filter(id => done.has(id));
      };

      // Asked of both at once, while their first scheduled probes fall due.
      const [fromA, fromB] = await Promise.all(
        runChecks.map(runCheck => runCheck(checkId, 'user:default/alice')),
      );
      expect(fromA.map(run => run.runId)).toEqual(fromB.map(run => run.runId));
      const together = fromA.map(run => run.runId);
      await eventually(async () => (await listed(together)).length === 3);
      expect(await listed(together)).toEqual(together);

      // Then of one instance alone, for slices the other owns too.
      const alone = (await runChecks[1](checkId, 'user:default/bob')).map(
        run => run.runId,
      );
      expect(alone).not.toEqual(together);
      await eventually(async () => (await listed(alone)).length === 3);
      expect(await listed(alone)).toEqual(alone);

      await Promise.all(instances.splice(0).map(instance => instance.stop()));
      for (const slice of slices) {
        const ofEnvironment = hits
          .filter(hit => hit.environment === slice.environment)
          .sort((x, y) => x.from - y.from);
        // Each probe is one recorded run: the two runs now, and the first
        // scheduled probe if it fell due apart from them.
        expect(ofEnvironment.length).toBe((await runsOf(slice)).length);
        expect(ofEnvironment.length).toBeGreaterThanOrEqual(2);
        for (let i = 1; i < ofEnvironment.length; i++) {
          expect(ofEnvironment[i].from).toBeGreaterThanOrEqual(
            ofEnvironment[i - 1].to,
          );
        }
      }
    });
  },
);
