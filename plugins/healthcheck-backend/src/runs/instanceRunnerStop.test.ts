import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseSliceStore } from '../database/DatabaseSliceStore';
import type { DesiredSlice } from '../model';
import { createInstanceRunner, InstanceRunner } from './createInstanceRunner';
import { builtinProbeTypeRegistry } from '../__testUtils__/builtinProbeTypeRegistry';

/*
 * An instance that shares the database is stopped (a rolling deploy) while
 * a probe of its is still waiting for its target. The others should not
 * wait for that probe, or for a slow shutdown, to take over its slices: it
 * leaves the live set at once, and still records the probe in flight.
 * Only PostgreSQL is shared between instances; on SQLite one instance owns
 * everything and there is nothing to leave.
 */

/** The target answers this late, so the probe is in flight while the instance stops. */
const ANSWER_AFTER_MS = 1_500;

jest.setTimeout(60_000);

const postgres = requiredTestDatabases().filter(id => id === 'POSTGRES_15');

function sliceProbing(port: number): DesiredSlice {
  const key = {
    checkId: 'slow-target',
    systemRef: 'system:default/rolling',
    environment: 'production',
  };
  return {
    id: encodeSliceId(key),
    ...key,
    intervalMs: 10_000,
    timeoutMs: 5_000,
    type: 'http',
    target: `http://127.0.0.1:${port}/health`,
    config: {},
    conditions: ['[STATUS] == 200'],
    thresholds: {},
    configHash: 'slow-target-1',
  };
}

(postgres.length > 0 ? describe : describe.skip)(
  'stopping an instance that shares the database',
  () => {
    const databases = TestDatabases.create({ ids: postgres });
    let server: Server | undefined;
    let instance: InstanceRunner | undefined;

    afterAll(async () => {
      await instance?.stop();
      server?.close();
    });

    it('leaves the live set before its probe in flight ends, and still records that probe', async () => {
      const knex = await databases.init('POSTGRES_15');
      const database = mockServices.database({
        knex,
        migrations: { skip: false },
      });
      const slices = await DatabaseSliceStore.create({ database });
      const events: string[] = [];
      let probed: () => void = () => {};
      const probeArrived = new Promise<void>(resolve => {
        probed = resolve;
      });
      server = createServer((_req, res) => {
        probed();
        setTimeout(() => {
          events.push('target answered');
          res.writeHead(200).end();
        }, ANSWER_AFTER_MS);
      });
      server.listen(0, '127.0.0.1');
      await once(server, 'listening');
      const slice = sliceProbing((server.address() as AddressInfo).port);
      await slices.applyChanges({
        write: [{ paused: false, slice }],
        remove: [],
      });

      const config = new ConfigReader({
        healthcheck: { network: { allowLoopback: true } },
      });
      const probeTypes = builtinProbeTypeRegistry(config);
      instance = await createInstanceRunner({
        config,
        logger: mockServices.logger.mock(),
        database,
        slices,
        probeTypes,
      });
      const { instanceId } = instance;
      const isLive = async () =>
        (await knex('healthcheck_instances').where('id', instanceId)).length >
        0;
      await instance.start();
      expect(await isLive()).toBe(true);
      // The first probe comes within the first-probe window of its interval.
      await probeArrived;

      const stopped = instance.stop().then(() => events.push('stopped'));
      while (await isLive()) {
        await sleep(10);
      }
      events.push('left');
      await stopped;
      instance = undefined;

      expect(events).toEqual(['left', 'target answered', 'stopped']);
      const runs = await knex('healthcheck_runs').where('slice_id', slice.id);
      expect(runs).toHaveLength(1);
      expect(runs[0].started_at).not.toBeNull();
    });
  },
);
