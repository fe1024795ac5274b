/* eslint-disable no-console */
/*
 * Vigil against Backstage's real catalog backend (issue 17, section 2): the
 * catalog plugin with Vigil's catalog module, in a process of its own, on a
 * PostgreSQL database of its own, fed a generated catalog (by default
 * 10,000 Systems, 30,000 Components and Resources with environment
 * annotations and 10,000 HealthChecks: 50,000 entities). Vigil's change
 * poller and full pass run here, in the bench process, through the real
 * CatalogClient over HTTP, on a slice store in another PostgreSQL database.
 *
 *   yarn bench:catalog [--systems N] [--runs N] [--probe-moves N]
 *     [--announced-moves N] [--poll-interval 30s] [--poll-budget 0.01]
 *     [--postgres URL]
 *
 * Per run (median of `--runs`, default 3), each step measured for its wall
 * time, the CPU of both processes (and of PostgreSQL), the requests, the
 * entities and the bytes read:
 *
 * 1. the change poll when nothing changed;
 * 2. the naive way: every entity read in full, as a poll that keeps no
 *    fingerprints would;
 * 3. the full pass on an unchanged catalog;
 * 4. the change poll after 1% of the entities changed (of each kind, in
 *    different systems), with the pass it runs.
 *
 * Then the time from a system's move into a new environment (its
 * annotation changed in the catalog) to the first probe of it there, with
 * the poller on its interval, paced by its budget as the plugin's poll task
 * is (`healthcheck.reconcile.catalogPollBudget`), and a real scheduler
 * loading the stored slices
 * as a backend instance does (`--probe-moves`, default 3, each at a random
 * point of the poll interval). The catalog re-processes nothing on its own
 * meanwhile (`catalog.processingInterval` 24 h), so its CPU is Vigil's
 * doing.
 */
import { fork, type ChildProcess } from 'node:child_process';
import {
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
// Bench only: the client a remote catalog is reached through.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { CatalogClient } from '@backstage/catalog-client';
import { ConfigReader } from '@backstage/config';
import type { Entity } from '@backstage/catalog-model';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import {
  probeTypeLookup,
  validateHealthCheckSpec,
} from '@vigil/plugin-healthcheck-common';
import {
  builtinProbeTypeDeclarations,
  ProbeSecrets,
  secretUsesOf,
} from '@vigil/plugin-healthcheck-node';
import knexFactory from 'knex';
import { startCpuSpan } from '../cpuUsage';
import { DatabaseSliceStore } from '../../src/database/DatabaseSliceStore';
import { SliceScheduler } from '../../src/scheduler/SliceScheduler';
import { catalogFingerprints } from '../../src/reconciler/catalogFingerprints';
import { CatalogChangePoller } from '../../src/reconciler/CatalogChangePoller';
import { CatalogChangeListener } from '../../src/reconciler/CatalogChangeListener';
import { createStoredSliceSource } from '../../src/reconciler/createStoredSliceSource';
import type { DesiredSlice } from '../../src/model';
import { createReconcileLock } from '../../src/reconciler/ReconcileLock';
import { Reconciler } from '../../src/reconciler/Reconciler';
import { readReconcileSettings } from '../../src/reconciler/reconcileSettings';
import {
  nextCatalogPollAt,
  type CatalogPollPacing,
} from '../../src/reconciler/catalogPollPacing';
import { sliceSecretProblems } from '../../src/reconciler/sliceSecretProblems';
import type {
  CatalogProcessReport,
  CatalogProcessRequest,
} from './catalogBackendProcess';
import {
  judgeCatalogTargets,
  formatBytes,
  formatMs,
  medianOf,
  renderCostTable,
  renderTargetTable,
  type StepName,
  type StepSample,
} from './catalogBenchTable';
import { BenchArgsError, readBenchArgs, type BenchCommand } from '../benchArgs';
import {
  DEFAULT_POSTGRES_URL,
  openPostgres,
  type BenchDatabase,
} from '../benchDatabases';
import { benchAuth, check, collectGarbage, silentLogger } from './benchPasses';
import {
  changedEnvironmentOf,
  CHANGED_SHARE,
  ENTITIES_PER_SYSTEM,
  generatedCatalog,
  systemEntity,
  systemRefOf,
} from './generatedCatalog';

/** As a backend instance's probe engine re-reads the stored slices. */
const LOADER_REFRESH_MS = 2_000;
/** The longest the catalog may take to show the generated catalog. */
const SEED_TIMEOUT_MS = 60 * 60_000;
/** The longest a change may take to show in the catalog. */
const CHANGE_TIMEOUT_MS = 5 * 60_000;
const KINDS = ['System', 'Component', 'Resource', 'HealthCheck', 'Environment'];

interface Options {
  systems: number;
  runs: number;
  probeMoves: number;
  /** Moves timed with the catalog module's announcements heard. */
  announcedMoves: number;
  pollIntervalMs: number;
  /** The plugin's pacing of the poll, with this bench's interval and budget. */
  pacing: CatalogPollPacing;
  postgresUrl: string;
}

const COMMAND: BenchCommand = {
  command: 'yarn bench:catalog',
  flags: {
    systems: { value: 'N' },
    runs: { value: 'N' },
    'probe-moves': { value: 'N' },
    'announced-moves': { value: 'N' },
    'poll-interval': { value: '30s' },
    'poll-budget': { value: '0.01' },
    postgres: { value: 'URL' },
  },
};

function parseOptions(argv: string[]): Options {
  return readBenchArgs(argv, COMMAND, args => {
    const runs = args.whole('runs', 3);
    if (runs > CHANGED_SHARE) {
      throw new BenchArgsError(
        `--runs wants 1 to ${CHANGED_SHARE}, not ${runs}`,
      );
    }
    const pollInterval = args.text('poll-interval');
    const pollBudget = args.text('poll-budget');
    // Read as the plugin reads them, so a bad value is refused alike.
    const settings = readReconcileSettings(
      new ConfigReader({
        healthcheck: {
          reconcile: {
            ...(pollInterval ? { catalogPollInterval: pollInterval } : {}),
            ...(pollBudget ? { catalogPollBudget: Number(pollBudget) } : {}),
          },
        },
      }),
    );
    return {
      systems: args.whole('systems', 10_000),
      runs,
      probeMoves: args.whole('probe-moves', 3, 0),
      announcedMoves: args.whole('announced-moves', 3, 0),
      pollIntervalMs: settings.catalogPollIntervalMs,
      pacing: settings,
      postgresUrl: args.text('postgres', DEFAULT_POSTGRES_URL),
    };
  });
}

/** Requests, bodies and entities the catalog answered, added up. */
class Traffic {
  requests = 0;
  bytes = 0;
  entities = 0;
}

/**
 * The real CatalogClient over HTTP with a static token, as a
 * CatalogService: credentials are dropped, the token stands for them.
 * Counts the requests, the body bytes and the entities of the answers.
 */
function httpCatalog(
  baseUrl: string,
  token: string,
  traffic: Traffic,
): CatalogService {
  const client = new CatalogClient({
    discoveryApi: { getBaseUrl: async () => `${baseUrl}/api/catalog` },
    fetchApi: {
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        const response = await fetch(input, init);
        const body = await response.arrayBuffer();
        traffic.requests += 1;
        traffic.bytes += body.byteLength;
        return new Response(body, {
          status: response.status,
          statusText: response.statusText,
          headers: response.headers,
        });
      },
    },
  });
  return new Proxy({} as CatalogService, {
    get(_, method: string) {
      return async (request: unknown) => {
        const call = (client as unknown as Record<string, Function>)[method];
        const result = await call.call(client, request, { token });
        const items = (result as { items?: unknown[] } | undefined)?.items;
        traffic.entities += items?.filter(Boolean).length ?? 0;
        return result;
      };
    },
  });
}

/** utime + stime of a process, in ms (Linux). */
function processCpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // USER_HZ is 100: a tick is 10 ms.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The catalog backend in its own process, and how to talk to it. */
interface CatalogProcess {
  child: ChildProcess;
  baseUrl: string;
  request(message: CatalogProcessRequest): void;
  next(type: CatalogProcessReport['type']): Promise<CatalogProcessReport>;
  /** Where the announcements it forwards go (none: dropped). */
  onAnnouncement(handler: ((payload: unknown) => void) | undefined): void;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

async function startCatalogProcess(options: {
  systems: number;
  databaseUrl: string;
  token: string;
  dir: string;
}): Promise<CatalogProcess> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const configFile = join(options.dir, 'app-config.yaml');
  writeFileSync(
    configFile,
    JSON.stringify({
      backend: {
        baseUrl,
        listen: { host: '127.0.0.1', port },
        database: {
          client: 'pg',
          connection: options.databaseUrl,
          pluginDivisionMode: 'schema',
        },
        auth: {
          externalAccess: [
            {
              type: 'static',
              options: { token: options.token, subject: 'vigil-bench' },
            },
          ],
        },
      },
      catalog: {
        rules: [
          {
            allow: [
              'System',
              'Component',
              'Resource',
              'HealthCheck',
              'Location',
            ],
          },
        ],
        // Nothing re-processed on its own while the bench measures.
        processingInterval: { hours: 24 },
      },
    }),
  );
  const log = openSync(join(options.dir, 'catalog.log'), 'a');
  const child = fork(
    require.resolve('./catalogBackendProcess.ts'),
    ['--config', configFile, '--systems', String(options.systems)],
    {
      execArgv: [
        '--require',
        require.resolve('@backstage/cli/config/nodeTransform.cjs'),
      ],
      env: { ...process.env, LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn' },
      stdio: ['ignore', log, log, 'ipc'],
    },
  );
  const waiting = new Map<string, (report: CatalogProcessReport) => void>();
  let failure: Error | undefined;
  const fail = (error: Error) => {
    failure = error;
    for (const resolve of waiting.values()) {
      resolve({ type: 'failed', message: error.message });
    }
  };
  let announcementHandler: ((payload: unknown) => void) | undefined;
  child.on('message', (report: CatalogProcessReport) => {
    if (report.type === 'announcement') {
      announcementHandler?.(report.payload);
      return;
    }
    if (report.type === 'failed') {
      fail(new Error(`The catalog process failed: ${report.message}`));
      return;
    }
    waiting.get(report.type)?.(report);
    waiting.delete(report.type);
  });
  child.on('exit', code =>
    fail(
      new Error(
        `The catalog process exited (${code}); see ${join(
          options.dir,
          'catalog.log',
        )}`,
      ),
    ),
  );
  return {
    child,
    baseUrl,
    request: message => child.send(message),
    onAnnouncement: handler => {
      announcementHandler = handler;
    },
    next: async type => {
      if (failure) {
        throw failure;
      }
      const report = await new Promise<CatalogProcessReport>(resolve =>
        waiting.set(type, resolve),
      );
      if (report.type === 'failed') {
        throw new Error(report.message);
      }
      return report;
    },
    stop: async () => {
      if (child.exitCode !== null) {
        return;
      }
      const exited = new Promise(resolve => child.once('exit', resolve));
      child.send({ type: 'stop' });
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Waits for `done`, re-asking every `everyMs`, up to `timeoutMs`. */
async function waitFor(
  what: string,
  done: () => Promise<boolean>,
  options: { everyMs: number; timeoutMs: number; progress?: () => string },
): Promise<number> {
  const start = performance.now();
  let lastNote = start;
  while (!(await done())) {
    const now = performance.now();
    if (now - start > options.timeoutMs) {
      throw new Error(
        `Gave up waiting for ${what} after ${formatMs(now - start)}`,
      );
    }
    if (options.progress && now - lastNote > 15_000) {
      lastNote = now;
      console.error(`  ${what}: ${options.progress()}`);
    }
    await sleep(options.everyMs);
  }
  return performance.now() - start;
}

async function main() {
  const options = parseOptions(process.argv.slice(2));
  const entityCount = options.systems * ENTITIES_PER_SYSTEM;
  const dir = mkdtempSync(join(tmpdir(), 'vigil-catbench-'));
  const server = new URL(options.postgresUrl);
  const catalogDatabase = `vigil_catbench_${process.pid}`;
  const adminUrl = new URL(server.href);
  adminUrl.pathname = '/postgres';
  const admin = knexFactory({
    client: 'pg',
    connection: adminUrl.href,
    pool: { min: 0, max: 1 },
  });
  let vigilDb: BenchDatabase | undefined;
  let catalogProcess: CatalogProcess | undefined;
  try {
    await admin.raw('DROP DATABASE IF EXISTS ??', [catalogDatabase]);
    await admin.raw('CREATE DATABASE ??', [catalogDatabase]);
    const opened = await openPostgres(options.postgresUrl);
    if ('unreachable' in opened) {
      throw new Error(`PostgreSQL does not answer: ${opened.unreachable}`);
    }
    vigilDb = opened;
    const catalogUrl = new URL(server.href);
    catalogUrl.pathname = `/${catalogDatabase}`;
    const token = `bench-${process.pid}-${Date.now()}`;

    console.error(
      `Starting the catalog backend with ${entityCount} entities (${options.systems} systems); logs in ${dir}`,
    );
    const seedStart = performance.now();
    catalogProcess = await startCatalogProcess({
      systems: options.systems,
      databaseUrl: catalogUrl.href,
      token,
      dir,
    });
    const { child } = catalogProcess;
    await catalogProcess.next('ready');
    const handedMs = performance.now() - seedStart;

    const traffic = new Traffic();
    const catalog = httpCatalog(catalogProcess.baseUrl, token, traffic);
    const auth = benchAuth;
    const credentials = await auth.getOwnServiceCredentials();
    // Facets are counted from the catalog's search table: a count of
    // entities by query would read every stitched entity each time, and
    // slow the stitching it waits for.
    const count = async () => {
      const { facets } = await catalog.getEntityFacets(
        { facets: ['kind'] },
        { credentials },
      );
      return (facets.kind ?? [])
        .filter(facet =>
          KINDS.some(kind => kind.toLowerCase() === facet.value.toLowerCase()),
        )
        .reduce((sum, facet) => sum + facet.count, 0);
    };
    let seen = 0;
    await waitFor(
      'the catalog to stitch the generated entities',
      async () => (seen = await count()) >= entityCount,
      {
        everyMs: 10_000,
        timeoutMs: SEED_TIMEOUT_MS,
        progress: () => `${seen} of ${entityCount}`,
      },
    );
    // Relations land after the entities they join: a system is stitched
    // again once its members have been. Settled is when nothing moves.
    let previous = '';
    const versions = async () => {
      const { items } = await catalog.getEntities(
        {
          filter: KINDS.map(kind => ({ kind })),
          fields: ['kind', 'metadata.name', 'metadata.etag'],
        },
        { credentials },
      );
      return items
        .map(e => `${e.kind}:${e.metadata.name}:${e.metadata.etag}`)
        .sort()
        .join('\n');
    };
    await waitFor(
      'the catalog to settle',
      async () => {
        const now = await versions();
        const settled = now === previous;
        previous = now;
        return settled;
      },
      { everyMs: 15_000, timeoutMs: SEED_TIMEOUT_MS },
    );
    const seedMs = performance.now() - seedStart;

    const slices = new DatabaseSliceStore(vigilDb.knex);
    const probeTypes = probeTypeLookup(builtinProbeTypeDeclarations());
    const secrets = new ProbeSecrets({});
    // As plugin.ts wires it, on a default configuration.
    const reconciler = new Reconciler({
      catalog,
      auth,
      logger: silentLogger,
      listStoredChecks: async () => [],
      slices,
      lock: createReconcileLock(vigilDb.knex),
      validateSpec: (spec, context) =>
        validateHealthCheckSpec(spec, {
          probeTypes,
          secrets: secretUsesOf(secrets),
          ...context,
        }),
      validateSlice: slice => sliceSecretProblems(secrets, slice),
    });
    const poller = new CatalogChangePoller({
      catalog,
      auth,
      logger: silentLogger,
      slices,
      reconciler,
    });
    const firstPassStart = performance.now();
    const first = await reconciler.reconcileAll();
    const firstPassMs = performance.now() - firstPassStart;
    const slicesAtStart = first.scheduled;
    // The first poll finds every system new to it; the next ones nothing.
    await poller.poll();
    check(
      (await poller.poll()).pass === 'none',
      'a poll right after a poll found changes on a settled catalog',
    );

    const postgresPids = async () =>
      new Set<string>(
        (
          await admin.raw(
            'SELECT pid FROM pg_stat_activity WHERE datname = ANY(?)',
            [[catalogDatabase, `vigil_bench_${process.pid}`]],
          )
        ).rows.map((row: { pid: number }) => String(row.pid)),
      );
    const measure = async <T>(
      fn: () => Promise<T>,
    ): Promise<{ result: T; sample: StepSample }> => {
      collectGarbage();
      const pids = await postgresPids();
      const before = { ...traffic };
      const cpu = process.cpuUsage();
      const catalogCpu = processCpuMs(child.pid!);
      const span = startCpuSpan(pids);
      const start = performance.now();
      const result = await fn();
      const wallMs = performance.now() - start;
      const vigilCpu = process.cpuUsage(cpu);
      const catalogCpuMs = processCpuMs(child.pid!) - catalogCpu;
      const postgres = span(await postgresPids());
      return {
        result,
        sample: {
          wallMs,
          vigilCpuMs: (vigilCpu.user + vigilCpu.system) / 1000,
          catalogCpuMs,
          postgresCpuMs: postgres.postgresCores * wallMs,
          requests: traffic.requests - before.requests,
          entities: traffic.entities - before.entities,
          bytes: traffic.bytes - before.bytes,
        },
      };
    };
    const idle = await (async () => {
      const cpu = processCpuMs(child.pid!);
      await sleep(5_000);
      return (processCpuMs(child.pid!) - cpu) / 5;
    })();

    const steps = new Map<StepName, StepSample[]>([
      ['unchanged poll', []],
      ['naive read', []],
      ['full pass', []],
      ['1%-changed poll', []],
    ]);
    const systemsPerRound = Math.ceil(options.systems / CHANGED_SHARE);
    for (let run = 0; run < options.runs; run++) {
      console.error(`Run ${run + 1} of ${options.runs}`);
      const poll = await measure(() => poller.poll());
      check(
        poll.result.pass === 'none',
        `run ${run}: an unchanged poll found changes`,
      );
      steps.get('unchanged poll')!.push(poll.sample);

      const naive = await measure(async () => {
        const { items } = await catalog.getEntities(
          { filter: KINDS.map(kind => ({ kind })) },
          { credentials },
        );
        return catalogFingerprints({
          systems: items.filter(e => e.kind === 'System'),
          members: items.filter(
            e => e.kind === 'Component' || e.kind === 'Resource',
          ),
          healthChecks: items.filter(e => e.kind === 'HealthCheck'),
          environments: items.filter(e => e.kind === 'Environment'),
        });
      });
      check(
        naive.sample.entities === entityCount,
        `run ${run}: the naive read got ${naive.sample.entities} of ${entityCount} entities`,
      );
      steps.get('naive read')!.push(naive.sample);

      const full = await measure(() => reconciler.reconcileAll());
      check(
        full.result.ran &&
          full.result.scheduled +
            full.result.rescheduled +
            full.result.cancelled ===
            0,
        `run ${run}: a full pass on an unchanged catalog changed slices`,
      );
      steps.get('full pass')!.push(full.sample);

      // 1% of every kind changes, then is waited for in the catalog.
      catalogProcess.request({ type: 'change', round: run });
      await catalogProcess.next('changed');
      const changed = generatedCatalog(options.systems, run);
      await waitForEntities(catalog, credentials, changed);
      const changedPoll = await measure(() => poller.poll());
      check(
        changedPoll.result.pass !== 'none',
        `run ${run}: a poll after 1% changed found nothing`,
      );
      const [{ count: perfSlices }] = await vigilDb
        .knex('healthcheck_slices')
        .where({ removed: false, environment: changedEnvironmentOf(run) })
        .count({ count: '*' });
      check(
        Number(perfSlices) === systemsPerRound,
        `run ${run}: ${perfSlices} slices in ${changedEnvironmentOf(
          run,
        )}, not ${systemsPerRound}`,
      );
      steps.get('1%-changed poll')!.push(changedPoll.sample);
    }

    const moveContext = {
      options,
      catalogProcess,
      catalog,
      credentials,
      poller,
      reconciler,
      slices,
    };
    const timesToProbe = await timeMovesToProbe({
      ...moveContext,
      announcements: false,
    });
    const announcedTimes = await timeMovesToProbe({
      ...moveContext,
      announcements: true,
    });

    console.log(
      `## bench:catalog: Vigil against Backstage's catalog backend, ${entityCount} entities\n`,
    );
    console.log(
      `${options.systems} Systems, ${
        options.systems * 3
      } Components and Resources (each adding an environment), ${
        options.systems
      } HealthChecks: ${slicesAtStart} slices. Catalog: @backstage/plugin-catalog-backend ${
        // eslint-disable-next-line @backstage/no-undeclared-imports
        require('@backstage/plugin-catalog-backend/package.json').version
      } on ${vigilDb.description.replace(
        / \(database.*$/,
        '',
      )}, in its own process; Vigil over HTTP (CatalogClient). Medians of ${
        options.runs
      } runs; CPU is user + system of each process; ratios against the naive read of the same run.\n`,
    );
    console.log(renderCostTable(steps));
    console.log();
    console.log(
      renderTargetTable(
        judgeCatalogTargets({
          steps,
          pollIntervalMs: options.pollIntervalMs,
          pacedSpacingMs: pacedSpacingMs(steps, options.pacing),
          timesToProbeMs: timesToProbe.fromShownMs,
          moveSpacingMs: timesToProbe.longestPollSpacingMs,
          ...(options.announcedMoves > 0 && {
            announcedMovesMs: announcedTimes.fromGivenMs,
          }),
        }),
      ),
    );
    console.log();
    console.log(
      `- Seeding: the catalog had the ${entityCount} entities ${formatMs(
        handedMs,
      )} after start, stitched and settled ${formatMs(seedMs)} after start.`,
    );
    console.log(
      `- Vigil's first full pass from empty: ${formatMs(
        firstPassMs,
      )} (${slicesAtStart} slices).`,
    );
    console.log(
      `- The catalog process idle: ${formatMs(
        idle,
      )} CPU per second (its own loops; counted in every step above).`,
    );
    console.log(
      `- A 1% change: ${
        generatedCatalog(options.systems, 0).length
      } entities in ${systemsPerRound * 3} systems.`,
    );
    console.log(
      `- The poll's pace: every ${formatMs(
        options.pollIntervalMs,
      )} at most, and after a poll that took T, T / ${
        options.pacing.catalogPollBudget
      } later at the soonest (catalogPollBudget), at most ${formatMs(
        options.pacing.intervalMs,
      )} (the full pass's interval): ${formatMs(
        pacedSpacingMs(steps, options.pacing),
      )} after the median unchanged poll here.`,
    );
    if (timesToProbe.fromShownMs.length > 0) {
      console.log(
        `- Moves into a new environment, by the paced poll alone: from the catalog showing the move to its first probe ${timesToProbe.fromShownMs
          .map(formatMs)
          .join(', ')}; the catalog took ${timesToProbe.catalogMs
          .map(formatMs)
          .join(
            ', ',
          )} to show it after the provider gave it; the polls meanwhile took ${timesToProbe.pollDetectMs
          .map(formatMs)
          .join(', ')} to read and compare, at most ${formatMs(
          timesToProbe.longestPollSpacingMs ?? 0,
        )} apart.`,
      );
    }
    if (announcedTimes.fromGivenMs.length > 0) {
      console.log(
        `- Moves with the catalog module's announcements heard (forwarded from the catalog's process over IPC in place of an events bus) and the paced poll: from the provider handing the move over to its first probe ${announcedTimes.fromGivenMs
          .map(formatMs)
          .join(', ')}; the catalog took ${announcedTimes.catalogMs
          .map(formatMs)
          .join(', ')} to show it.`,
      );
    }
    console.log(
      `- Bytes are the bodies as decoded (${formatBytes(0)} when none).`,
    );
  } finally {
    await catalogProcess?.stop().catch(() => {});
    await vigilDb?.close().catch(() => {});
    await admin
      .raw('DROP DATABASE IF EXISTS ?? WITH (FORCE)', [catalogDatabase])
      .catch(error =>
        console.error(`Could not drop ${catalogDatabase}`, error),
      );
    await admin.destroy();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Waits until the catalog answers with every entity as given. */
async function waitForEntities(
  catalog: CatalogService,
  credentials: Awaited<ReturnType<typeof benchAuth.getOwnServiceCredentials>>,
  entities: Entity[],
): Promise<number> {
  const refs = entities.map(e =>
    `${e.kind}:${e.metadata.namespace ?? 'default'}/${
      e.metadata.name
    }`.toLowerCase(),
  );
  const wanted = entities.map(e =>
    JSON.stringify([e.metadata.annotations, e.spec]),
  );
  return await waitFor(
    'the catalog to show the changes',
    async () => {
      const { items } = await catalog.getEntitiesByRefs(
        { entityRefs: refs, fields: ['metadata.annotations', 'spec'] },
        { credentials },
      );
      return items.every(
        (item, i) =>
          item &&
          JSON.stringify([item.metadata.annotations, item.spec]) === wanted[i],
      );
    },
    { everyMs: 250, timeoutMs: CHANGE_TIMEOUT_MS },
  );
}

/**
 * Moves systems into a new environment one at a time, each at a random
 * point of the poll interval, with the poller on its interval (paced) and a
 * real scheduler loading the stored slices, and with `announcements` the
 * catalog module's announcements heard by a real CatalogChangeListener, as
 * plugin.ts wires both; measures until the scheduler fires the first tick
 * of the system's slice in the new environment.
 */
async function timeMovesToProbe(context: {
  options: Options;
  catalogProcess: CatalogProcess;
  catalog: CatalogService;
  credentials: Awaited<ReturnType<typeof benchAuth.getOwnServiceCredentials>>;
  poller: CatalogChangePoller;
  reconciler: Reconciler;
  slices: DatabaseSliceStore;
  announcements: boolean;
}): Promise<{
  /** From the catalog showing each move to its first probe. */
  fromShownMs: number[];
  /** From the provider handing each move to the catalog to its first probe. */
  fromGivenMs: number[];
  catalogMs: number[];
  /** Between two polls while the moves were timed. */
  longestPollSpacingMs?: number;
  /** How long each of those polls took to read and compare. */
  pollDetectMs: number[];
}> {
  const { options, catalogProcess, catalog, credentials, poller } = context;
  const fromShownMs: number[] = [];
  const fromGivenMs: number[] = [];
  const catalogMs: number[] = [];
  const pollDetectMs: number[] = [];
  let longestPollSpacingMs: number | undefined;
  const moves = context.announcements
    ? options.announcedMoves
    : options.probeMoves;
  if (moves === 0) {
    return { fromShownMs, fromGivenMs, catalogMs, pollDetectMs };
  }
  console.error(
    `Timing ${moves} moves to their first probe, ${
      context.announcements ? 'with the announcements' : 'by the poll alone'
    }`,
  );
  let watched: { systemRef: string; environment: string } | undefined;
  let fired: (() => void) | undefined;
  const nextFire = () =>
    new Promise<number>(resolve => {
      fired = () => resolve(performance.now());
    });
  const loader = createStoredSliceSource({ slices: context.slices });
  const scheduler = SliceScheduler.create<DesiredSlice>({
    logger: silentLogger,
    executor: batch => {
      if (
        watched &&
        batch.some(
          tick =>
            tick.slice.systemRef.toLowerCase() === watched!.systemRef &&
            tick.slice.environment === watched!.environment,
        )
      ) {
        fired?.();
      }
    },
    options: {
      loader: {
        loadChanges: () => loader.loadChanges(),
        refreshIntervalMs: LOADER_REFRESH_MS,
      },
    },
  });
  scheduler.start();
  const listener = new CatalogChangeListener({
    reconciler: context.reconciler,
    logger: silentLogger,
    onSlicesChanged: () => scheduler.refreshDesired(),
  });
  if (context.announcements) {
    catalogProcess.onAnnouncement(payload => listener.hear(payload));
    catalogProcess.request({ type: 'forward-announcements' });
  }
  // The poll task: every interval from the start of the last, as
  // Backstage's scheduler runs a task with a frequency, a turn passed while
  // the budget says the last poll was too recent, and what changed read at
  // once, as scheduleReconcileTasks does.
  let polling = true;
  let lastPoll: { startedAt: number; tookMs: number } | undefined;
  const pollLoop = (async () => {
    while (polling) {
      const start = performance.now();
      if (start >= nextCatalogPollAt(lastPoll, options.pacing)) {
        const outcome = await poller.poll();
        if (lastPoll) {
          longestPollSpacingMs = Math.max(
            longestPollSpacingMs ?? 0,
            start - lastPoll.startedAt,
          );
        }
        lastPoll = { startedAt: start, tookMs: outcome.detectMs };
        pollDetectMs.push(outcome.detectMs);
        if (outcome.pass !== 'none') {
          scheduler.refreshDesired();
        }
      }
      await sleep(
        Math.max(0, options.pollIntervalMs - (performance.now() - start)),
      );
    }
  })();
  try {
    for (let move = 0; move < moves; move++) {
      await sleep(Math.random() * options.pollIntervalMs);
      // Spread over the catalog; each into an environment of its own, and
      // the announced moves other systems than the polled ones.
      const index =
        (Math.floor(((move + 0.5) / moves) * options.systems) +
          (context.announcements ? 1 : 0)) %
        options.systems;
      const environment = `${
        context.announcements ? 'announced' : 'moved'
      }-${move}`;
      const system = systemEntity(index, [environment]);
      watched = { systemRef: systemRefOf(index), environment };
      const probed = nextFire();
      const givenAt = performance.now();
      catalogProcess.request({ type: 'move', system: index, environment });
      await catalogProcess.next('changed');
      await waitForEntities(catalog, credentials, [system]);
      const shownAt = performance.now();
      const probedAt = await probed;
      fired = undefined;
      catalogMs.push(shownAt - givenAt);
      fromShownMs.push(probedAt - shownAt);
      fromGivenMs.push(probedAt - givenAt);
      console.error(
        `  ${watched.systemRef} into ${watched.environment}: probed ${formatMs(
          probedAt - givenAt,
        )} after the provider gave it, ${formatMs(
          probedAt - shownAt,
        )} after the catalog showed it`,
      );
    }
  } finally {
    polling = false;
    catalogProcess.onAnnouncement(undefined);
    listener.stop();
    await pollLoop.catch(() => {});
    await scheduler.stop({ awaitInFlightMs: 0 });
  }
  return {
    fromShownMs,
    fromGivenMs,
    catalogMs,
    longestPollSpacingMs,
    pollDetectMs,
  };
}

/**
 * Between two polls after the median unchanged poll, as the poll task's
 * pacing has it: its interval, or that poll's time over the budget where
 * longer (then the first turn of the task after it).
 */
function pacedSpacingMs(
  steps: ReadonlyMap<StepName, readonly StepSample[]>,
  pacing: CatalogPollPacing,
): number {
  const wall = medianOf(steps.get('unchanged poll') ?? [], 'wallMs') ?? 0;
  const earliest = nextCatalogPollAt({ startedAt: 0, tookMs: wall }, pacing);
  const interval = pacing.catalogPollIntervalMs;
  return Math.max(interval, Math.ceil(earliest / interval) * interval);
}

main().catch(error => {
  console.error(error);
  process.exitCode = 1;
});
