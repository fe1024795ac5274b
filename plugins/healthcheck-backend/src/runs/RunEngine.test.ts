import { ProbeSecrets } from '@vigil/plugin-healthcheck-node';
import { mockServices } from '@backstage/backend-test-utils';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { createBuiltinProbeTypes } from '../probes/builtinProbeTypes';
import { ProbeTypeRegistry } from '../probes/ProbeTypeRegistry';
import { RunEngine } from './RunEngine';
import type { RunRecord } from '../model';
import type { RunnableSlice } from '../model';

describe('RunEngine', () => {
  let server: Server;
  let baseUrl: string;
  let failing = false;

  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.statusCode = failing ? 503 : 200;
      res.end(failing ? 'DOWN' : 'UP');
    });
    await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise(resolve => server.close(resolve));
  });

  function engineRecording(records: RunRecord[]) {
    const probeTypes = new ProbeTypeRegistry();
    createBuiltinProbeTypes({
      networkPolicy: { allowLoopback: true, allowPrivate: false },
      secrets: new ProbeSecrets({}),
    }).forEach(t => probeTypes.add(t));
    return new RunEngine({
      logger: mockServices.logger.mock(),
      probeTypes,
      onRun: record => {
        records.push(record);
      },
    });
  }

  function slice(id: string): RunnableSlice {
    return {
      id,
      intervalMs: 200,
      checkId: 'loopback',
      systemRef: 'system:default/demo',
      environment: 'default',
      type: 'http',
      target: `${baseUrl}/health`,
      timeoutMs: 1000,
      config: {},
      conditions: ['[STATUS] == 200', '[BODY] == UP'],
      thresholds: { failure: 2, success: 1 },
    };
  }

  it('probes submitted slices on their grid with a real HTTP probe, never before their due time, and stops cleanly', async () => {
    failing = false;
    const records: RunRecord[] = [];
    const engine = engineRecording(records);
    engine.start();
    await engine.scheduler.submit({
      type: 'replace',
      slices: [slice('a'), slice('b')],
    });

    await new Promise(resolve => setTimeout(resolve, 1200));
    await engine.stop();
    const count = records.length;
    await new Promise(resolve => setTimeout(resolve, 400));

    expect(count).toBeGreaterThanOrEqual(6);
    expect(records.length).toBe(count);
    for (const record of records) {
      expect(record.startedAt).toBeGreaterThanOrEqual(record.scheduledAt);
      expect(record.outcome).toBe('pass');
      expect(record.status).toBe('healthy');
    }
    const ticksOfA = records
      .filter(r => r.sliceId === 'a')
      .map(r => r.scheduledAt);
    expect(new Set(ticksOfA).size).toBe(ticksOfA.length);
  });

  it('turns a slice unhealthy after its failure threshold when the target starts failing', async () => {
    failing = true;
    const records: RunRecord[] = [];
    const engine = engineRecording(records);
    engine.start();
    await engine.scheduler.submit({ type: 'replace', slices: [slice('c')] });

    await new Promise(resolve => setTimeout(resolve, 1000));
    await engine.stop();

    expect(records.map(r => r.status).slice(0, 2)).toEqual([
      'unknown',
      'unhealthy',
    ]);
    expect(records[0].conditions[0].display).toBe('[STATUS] (503) == 200');
  });
});
