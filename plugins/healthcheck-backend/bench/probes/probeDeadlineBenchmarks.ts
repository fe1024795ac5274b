/* eslint-disable no-console */
import { ProbeSecrets, type ProbeType } from '@vigil/plugin-healthcheck-node';
import { createSocket } from 'node:dgram';
import { createServer as createHttpServer } from 'node:http';
import {
  type AddressInfo,
  createServer as createTcpServer,
  type Server,
  type Socket,
} from 'node:net';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { createBuiltinProbeTypes } from '../../src/probes/builtinProbeTypes';
import { readBenchArgs, type BenchCommand } from '../benchArgs';

/** A server on 127.0.0.1 that accepts and never answers. */
async function listenSilently(
  kind: 'http' | 'tcp' | 'udp',
): Promise<{ port: number; close: () => void }> {
  if (kind === 'udp') {
    const socket = createSocket('udp4');
    await new Promise<void>(resolve => socket.bind(0, '127.0.0.1', resolve));
    return { port: socket.address().port, close: () => socket.close() };
  }
  const sockets = new Set<Socket>();
  const server: Server =
    kind === 'http' ? createHttpServer(() => {}) : createTcpServer(() => {});
  server.on('connection', socket => sockets.add(socket));
  await new Promise<void>(resolve => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => {
      sockets.forEach(socket => socket.destroy());
      server.close();
    },
  };
}

interface Scenario {
  type: string;
  target: string;
  config: Record<string, unknown>;
}

const COMMAND: BenchCommand = {
  command:
    'node --require @backstage/cli/config/nodeTransform.cjs bench/probes/benchProbeDeadlines.ts',
  flags: {
    runs: { value: 'N' },
    timeout: { value: 'MS' },
    concurrency: { value: 'N,...' },
  },
};

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

async function measure(
  probeType: ProbeType<any>,
  scenario: Scenario,
  timeoutMs: number,
  runs: number,
  concurrency: number,
) {
  const overshoots: number[] = [];
  const kinds = new Map<string, number>();
  for (let done = 0; done < runs; done += concurrency) {
    const batch = Math.min(concurrency, runs - done);
    await Promise.all(
      Array.from({ length: batch }, async () => {
        const started = performance.now();
        const result = await probeType.run({
          target: scenario.target,
          config: scenario.config,
          timeoutMs,
          signal: new AbortController().signal,
        });
        overshoots.push(performance.now() - started - timeoutMs);
        const kind = result.error?.kind ?? 'ok';
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }),
    );
  }
  overshoots.sort((a, b) => a - b);
  return {
    kinds: [...kinds].map(([kind, count]) => `${kind}:${count}`).join(' '),
    min: overshoots[0],
    p50: percentile(overshoots, 0.5),
    p99: percentile(overshoots, 0.99),
    max: overshoots[overshoots.length - 1],
  };
}

function table(rows: string[][]): string {
  const widths = rows[0].map((_, i) => Math.max(...rows.map(r => r[i].length)));
  return rows
    .map(r =>
      r
        .map((v, i) => (i === 0 ? v.padEnd(widths[i]) : v.padStart(widths[i])))
        .join('  '),
    )
    .join('\n');
}

export async function main(argv: string[]): Promise<void> {
  const { runs, timeoutMs, concurrencies } = readBenchArgs(
    argv,
    COMMAND,
    args => ({
      runs: args.whole('runs', 40),
      timeoutMs: args.whole('timeout', 300),
      concurrencies: args.wholes('concurrency', '1,50'),
    }),
  );

  const servers = [
    await listenSilently('http'),
    await listenSilently('tcp'),
    await listenSilently('udp'),
  ];
  const [httpServer, tcpServer, dnsServer] = servers;
  const scenarios: Scenario[] = [
    {
      type: 'http',
      target: `http://127.0.0.1:${httpServer.port}/`,
      config: {},
    },
    {
      type: 'tcp',
      target: `127.0.0.1:${tcpServer.port}`,
      config: { expect: 'never' },
    },
    { type: 'tls', target: `127.0.0.1:${tcpServer.port}`, config: {} },
    {
      type: 'dns',
      target: 'never.answered.test',
      config: { server: `127.0.0.1:${dnsServer.port}` },
    },
  ];
  const types = new Map(
    createBuiltinProbeTypes({
      networkPolicy: { allowLoopback: true, allowPrivate: false },
      secrets: new ProbeSecrets({}),
    }).map(type => [type.type, type]),
  );

  console.log(
    `Probe deadline overshoot: wall time from run() to its answer minus timeout ${timeoutMs} ms; ${runs} runs per row`,
  );
  console.log(
    `Node ${process.version}, ${cpus().length} CPUs, load ${loadavg()
      .map(l => l.toFixed(2))
      .join(' ')}`,
  );
  const rows = [
    ['type', 'concurrent', 'results', 'min ms', 'p50 ms', 'p99 ms', 'max ms'],
  ];
  for (const concurrency of concurrencies) {
    for (const scenario of scenarios) {
      const r = await measure(
        types.get(scenario.type)!,
        scenario,
        timeoutMs,
        runs,
        concurrency,
      );
      rows.push([
        scenario.type,
        String(concurrency),
        r.kinds,
        r.min.toFixed(2),
        r.p50.toFixed(2),
        r.p99.toFixed(2),
        r.max.toFixed(2),
      ]);
    }
  }
  console.log(table(rows));
  servers.forEach(server => server.close());
}
