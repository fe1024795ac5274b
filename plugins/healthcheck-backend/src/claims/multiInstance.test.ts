import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import { encodeSliceId } from '@vigil/plugin-healthcheck-common';
import { ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Knex } from 'knex';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseSliceStore } from '../database/DatabaseSliceStore';
import type { DesiredSlice } from '../model';
import { claimKeyAt } from '../scheduler';

/*
 * Three backend instances in three processes share one PostgreSQL and 200
 * slices on 1-2 s intervals against a loopback target that records every
 * hit. Halfway through one instance is killed with SIGKILL. Every tick of
 * every slice must be probed once: never twice, and none missed except
 * while the dead instance's slices move (its TTL, 2 s here).
 */

const SLICE_COUNT = 200;
const RUN_MS = 30_000;
const KILL_AT_MS = 15_000;
/** Membership settles and first probes are out before this. */
const WARM_UP_MS = 5_000;
/** TTL 2 s + a heartbeat + a refresh, with margin. */
const TAKEOVER_MS = 5_000;
/** Probes of the last ticks may still be under way when the run stops. */
const COOL_DOWN_MS = 2_000;
/**
 * A hit belongs to the run that started at most this long before it ended:
 * the probe's own duration stops a little before the target's event loop
 * gets to the request, and two runs of a slice are at least 500 ms apart.
 */
const MATCH_SLACK_MS = 250;

const WORKER = path.resolve(
  __dirname,
  '__testUtils__/instanceRunnerProcess.ts',
);
const postgres = requiredTestDatabases().filter(id => id === 'POSTGRES_15');
/**
 * `npm test` runs this on its own (VIGIL_MULTI_INSTANCE_TEST=1), after the
 * other suites: three processes racing for ticks need the machine's cores,
 * which a full set of jest workers would take.
 */
const runHere = process.env.VIGIL_MULTI_INSTANCE_TEST === '1';

jest.setTimeout(120_000);

interface Hit {
  slice: number;
  at: number;
}

function sliceOf(index: number, port: number): DesiredSlice {
  const key = {
    checkId: `check-${index}`,
    systemRef: 'system:default/fleet',
    environment: 'production',
  };
  return {
    id: encodeSliceId(key),
    ...key,
    intervalMs: index % 2 === 0 ? 1_000 : 2_000,
    timeoutMs: 800,
    type: 'http',
    target: `http://127.0.0.1:${port}/hit/${index}`,
    config: {},
    conditions: ['[STATUS] == 200'],
    thresholds: {},
    configHash: `hash-${index}`,
  };
}

async function startTarget(hits: Hit[]): Promise<Server> {
  const server = createServer((req, res) => {
    const match = /^\/hit\/(\d+)$/.exec(req.url ?? '');
    if (match) {
      hits.push({ slice: Number(match[1]), at: Date.now() });
    }
    res.writeHead(match ? 200 : 404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return server;
}

function startInstance(instanceId: string, connection: unknown): ChildProcess {
  const child = spawn(
    process.execPath,
    [
      '--require',
      require.resolve('@backstage/cli/config/nodeTransform.cjs'),
      WORKER,
      instanceId,
      JSON.stringify(connection),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stderr!.on('data', chunk => process.stderr.write(chunk));
  return child;
}

async function ready(child: ChildProcess): Promise<void> {
  let output = '';
  for await (const chunk of child.stdout!) {
    output += String(chunk);
    if (output.includes('ready')) {
      return;
    }
  }
  throw new Error(`An instance exited before it was ready (${child.exitCode})`);
}

/** The grid ticks of a slice in [from, to). */
function ticksBetween(slice: DesiredSlice, from: number, to: number): number[] {
  const ticks: number[] = [];
  let tick = claimKeyAt(slice.id, from, slice.intervalMs);
  if (tick < from) {
    tick += slice.intervalMs;
  }
  for (; tick < to; tick += slice.intervalMs) {
    ticks.push(tick);
  }
  return ticks;
}

(postgres.length > 0 && runHere ? describe : describe.skip)(
  'many instances on one PostgreSQL',
  () => {
    const databases = TestDatabases.create({ ids: postgres });
    const children: ChildProcess[] = [];
    let server: Server | undefined;

    afterAll(async () => {
      for (const child of children) {
        if (child.exitCode === null && child.signalCode === null) {
          child.kill('SIGKILL');
        }
      }
      server?.close();
    });

    it('probes each tick of 200 slices once across three instances, and takes over a killed one', async () => {
      const knex: Knex = await databases.init('POSTGRES_15');
      const slices = await DatabaseSliceStore.create({
        database: mockServices.database({ knex, migrations: { skip: false } }),
      });
      const hits: Hit[] = [];
      server = await startTarget(hits);
      const { port } = server.address() as AddressInfo;
      const definitions = Array.from({ length: SLICE_COUNT }, (_, i) =>
        sliceOf(i, port),
      );
      await slices.applyChanges({
        write: definitions.map(slice => ({ paused: false, slice })),
        remove: [],
      });

      const connection = (knex.client.config as Knex.Config).connection;
      const instanceIds = ['instance-a', 'instance-b', 'instance-c'];
      children.push(...instanceIds.map(id => startInstance(id, connection)));
      await Promise.all(children.map(ready));
      const startedAt = Date.now();

      await sleep(KILL_AT_MS);
      const killedAt = Date.now();
      children[1].kill('SIGKILL');
      await sleep(RUN_MS - KILL_AT_MS);
      const stoppedAt = Date.now();
      for (const child of [children[0], children[2]]) {
        child.kill('SIGTERM');
      }
      await Promise.all(
        [children[0], children[2]].map(child => once(child, 'exit')),
      );

      const beforeKill: [number, number] = [
        startedAt + WARM_UP_MS,
        killedAt - COOL_DOWN_MS,
      ];
      const afterTakeover: [number, number] = [
        killedAt + TAKEOVER_MS,
        stoppedAt - COOL_DOWN_MS,
      ];
      const runs = (await knex('healthcheck_runs')).map(row => ({
        sliceId: row.slice_id as string,
        scheduledAt: Number(row.scheduled_at),
        claimedBy: row.claimed_by as string,
        startedAt: row.started_at === null ? undefined : Number(row.started_at),
        durationMs: Number(row.duration_ms ?? 0),
      }));

      // No tick probed twice: every hit the target saw is the probe of one
      // claimed run (one row per slice and tick), and no run has two hits.
      // A hit with no completed run may only come from the killed instance,
      // which claimed the tick and died before recording the result.
      const unmatched = definitions.flatMap((slice, index) => {
        const open = runs
          .filter(run => run.sliceId === slice.id && run.startedAt)
          .sort((a, b) => a.startedAt! - b.startedAt!);
        const cutOff = runs.filter(
          run =>
            run.sliceId === slice.id &&
            !run.startedAt &&
            run.claimedBy === 'instance-b',
        ).length;
        const strays = hits
          .filter(hit => hit.slice === index)
          .filter(hit => {
            const match = open.findIndex(
              run =>
                run.startedAt! <= hit.at &&
                hit.at <= run.startedAt! + run.durationMs + MATCH_SLACK_MS,
            );
            if (match === -1) {
              return true;
            }
            open.splice(match, 1);
            return false;
          });
        return [
          ...(strays.length > cutOff
            ? [`${slice.id}: ${strays.length} hits of no run of its own`]
            : []),
          ...(open.length > 0
            ? [`${slice.id}: ${open.length} runs the target never saw`]
            : []),
        ];
      });
      expect(unmatched).toEqual([]);

      // Every tick probed, before the kill and after the takeover.
      const completed = new Set(
        runs
          .filter(run => run.startedAt)
          .map(run => `${run.sliceId}@${run.scheduledAt}`),
      );
      const missed = ([from, to]: [number, number]) =>
        definitions.flatMap(slice =>
          ticksBetween(slice, from, to)
            .map(tick => `${slice.id}@${tick}`)
            .filter(key => !completed.has(key)),
        );
      expect(missed(beforeKill)).toEqual([]);
      expect(missed(afterTakeover)).toEqual([]);
      const probes = hits.length;

      // Before the kill, each instance claimed about a third.
      const shares: Array<{ claimed_by: string; runs: string | number }> =
        await knex('healthcheck_runs')
          .whereBetween('scheduled_at', beforeKill)
          .groupBy('claimed_by')
          .select('claimed_by')
          .count({ runs: '*' });
      const total = shares.reduce((sum, row) => sum + Number(row.runs), 0);
      expect(shares.map(row => row.claimed_by).sort()).toEqual(instanceIds);
      for (const row of shares) {
        const share = Number(row.runs) / total;
        expect(share).toBeGreaterThanOrEqual(0.2);
        expect(share).toBeLessThanOrEqual(0.45);
      }

      // After the takeover, the two survivors run everything.
      const after = await knex('healthcheck_runs')
        .whereBetween('scheduled_at', afterTakeover)
        .distinct('claimed_by');
      expect(after.map(row => row.claimed_by).sort()).toEqual([
        'instance-a',
        'instance-c',
      ]);
      process.stdout.write(
        `multi-instance: ${probes} probes, ${total} ticks claimed in the ${
          beforeKill[1] - beforeKill[0]
        } ms before the kill, shares ${shares
          .map(
            row => `${row.claimed_by} ${(Number(row.runs) / total).toFixed(3)}`,
          )
          .join(', ')}\n`,
      );
    });
  },
);
