import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { ConfigReader } from '@backstage/config';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { DatabaseSliceStore } from '../database/DatabaseSliceStore';
import { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { DesiredSlice } from '../model';
import { createInstanceRunner, InstanceRunner } from './createInstanceRunner';
import { CachedSliceStates } from './CachedSliceStates';
import { builtinProbeTypeRegistry } from '../__testUtils__/builtinProbeTypeRegistry';

/*
 * Slices come and go all the time (checks edited, systems renamed,
 * environments added and dropped). One instance on SQLite, with the real
 * loader, scheduler, bulkhead and runner, probing a loopback target, goes
 * through many cycles of new slices replacing the last ones: what it keeps
 * per slice must come back to the same size, and so must its heap.
 */

const CYCLES = 60;
const ALIVE = 20;
const WARM_UP_CYCLES = 5;
/** Long enough for the loader to see a change and the slices to probe. */
const CYCLE_MS = 250;

jest.setTimeout(120_000);

function sliceOf(cycle: number, index: number, port: number): DesiredSlice {
  const key = {
    checkId: `churn-${cycle}-${index}`,
    systemRef: 'system:default/churn',
    environment: 'production',
  };
  return {
    id: encodeSliceId(key),
    ...key,
    intervalMs: 100,
    timeoutMs: 80,
    type: 'http',
    target: `http://127.0.0.1:${port}/health`,
    config: {},
    conditions: ['[STATUS] == 200'],
    thresholds: {},
    configHash: `hash-${cycle}-${index}`,
  };
}

/** Heap in use after a full collection, when the process allows one. */
function heapAfterGc(): number | undefined {
  const gc = (global as { gc?: () => void }).gc;
  if (!gc) {
    return undefined;
  }
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('slice churn', () => {
  const databases = TestDatabases.create({ ids: ['SQLITE_3'] });
  let server: Server | undefined;
  let instance: InstanceRunner | undefined;

  afterAll(async () => {
    await instance?.stop();
    server?.close();
  });

  it('keeps what it holds per slice, and its heap, flat while slices are created and removed', async () => {
    const knex = await databases.init('SQLITE_3');
    const database = mockServices.database({
      knex,
      migrations: { skip: false },
    });
    const slices = await DatabaseSliceStore.create({ database });
    const stateStore = await DatabaseStateStore.create({ database });
    server = createServer((_req, res) => res.writeHead(200).end());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;

    const states = new CachedSliceStates({
      readSliceStates: ids => stateStore.readSliceStates(ids),
    });
    const config = new ConfigReader({
      healthcheck: {
        network: { allowLoopback: true },
        scheduler: { refreshInterval: '50ms' },
      },
    });
    const probeTypes = builtinProbeTypeRegistry(config);
    instance = await createInstanceRunner({
      config,
      logger: mockServices.logger.mock(),
      database,
      slices,
      probeTypes,
      states,
    });
    const { scheduler, bulkhead, runner } = instance.engine;
    instance.start();

    const removed: string[] = [];
    let alive: DesiredSlice[] = [];
    const cycle = async (n: number) => {
      const next = Array.from({ length: ALIVE }, (_, i) => sliceOf(n, i, port));
      await slices.applyChanges({
        write: next.map(slice => ({ paused: false, slice })),
        remove: alive.map(slice => slice.id),
      });
      removed.push(...alive.map(slice => slice.id));
      alive = next;
      await sleep(CYCLE_MS);
    };
    const sizes = () => {
      const scheduled = scheduler.stats();
      const admission = bulkhead.stats();
      return {
        liveSlices: scheduled.liveSlices,
        heapEntries: scheduled.heapSize,
        bulkheadSlices: admission.trackedSlices,
        bulkheadEndpoints: admission.trackedEndpoints,
        statesOfRemoved: removed.filter(id => states.get(id) !== undefined)
          .length,
      };
    };
    /** After the last change is applied and the runs under way ended. */
    const settled = async () => {
      await sleep(500);
      return sizes();
    };

    for (let n = 0; n < WARM_UP_CYCLES; n++) {
      await cycle(n);
    }
    const before = await settled();
    const heapBefore = heapAfterGc();
    for (let n = WARM_UP_CYCLES; n < WARM_UP_CYCLES + CYCLES; n++) {
      await cycle(n);
    }
    const after = await settled();
    const heapAfter = heapAfterGc();
    const runs = runner.stats().runs;

    // The figures, for whoever reads the test's output.
    process.stdout.write(
      `slice churn: ${CYCLES} cycles of ${ALIVE} slices created and ${ALIVE} removed, ${runs} runs\n${JSON.stringify(
        {
          before: { ...before, heapMb: heapBefore && heapBefore / 2 ** 20 },
          after: { ...after, heapMb: heapAfter && heapAfter / 2 ** 20 },
        },
        null,
        1,
      )}\n`,
    );
    expect(runs).toBeGreaterThan(CYCLES * ALIVE);
    expect(after).toEqual(before);
    expect(after).toMatchObject({
      liveSlices: ALIVE,
      bulkheadSlices: ALIVE,
      bulkheadEndpoints: 1,
      statesOfRemoved: 0,
    });
    expect(after.heapEntries).toBeLessThanOrEqual(2 * ALIVE);
    // Judged only where a full collection can be asked for (--expose-gc).
    const heapGrowth = heapBefore && heapAfter ? heapAfter / heapBefore - 1 : 0;
    expect(heapGrowth).toBeLessThan(0.1);
  });
});
