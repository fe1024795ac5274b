/*
 * The read-path bench's HTTP server: the real `createSystemsRouter` and
 * `createBadgeRouter` on the real stores, wired as plugin.ts wires them
 * (rollup reads through a `RollupService`, with its 2 s cache; badge
 * loaders from `badgeLoaders`; both behind `createApiRouter`'s OpenAPI
 * validator), on 127.0.0.1, before Backstage's error middleware. The same
 * routers are also mounted under /without-validator. Fake: the catalog (an
 * in-memory map, O(1) getEntityByRef) and HttpAuthService (every request is
 * a user). Instrumented: server-side request time, each SQL statement's time
 * on its connection, the knex pool, event-loop delay and CPU.
 */
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
// A dev dependency on purpose: benches run from source, never in the build.
// eslint-disable-next-line @backstage/no-undeclared-imports
import { MiddlewareFactory } from '@backstage/backend-defaults/rootHttpRouter';
import type {
  AuthService,
  BackstageCredentials,
  HttpAuthService,
  PermissionsService,
} from '@backstage/backend-plugin-api';
import {
  parseEntityRef,
  stringifyEntityRef,
  type CompoundEntityRef,
  type Entity,
} from '@backstage/catalog-model';
import { ConfigReader } from '@backstage/config';
import type { CatalogService } from '@backstage/plugin-catalog-node';
import { AuthorizeResult } from '@backstage/plugin-permission-common';
import type {
  SystemHealthDetails,
  SystemRollup,
} from '@vigil/plugin-healthcheck-common';
import express from 'express';
import type { Knex } from 'knex';
import { badgeLoaders } from '../../src/badges/badgeLoaders';
import { createBadgeRouter } from '../../src/badges/badgeRouter';
import { DatabaseStateStore } from '../../src/database/DatabaseStateStore';
import { DatabaseHistoryStore } from '../../src/history/DatabaseHistoryStore';
import { LIVE_KEY_LENGTH, liveKeysUnder } from '../../src/rollup/liveKeys';
import { RollupService } from '../../src/rollup/RollupService';
import { createApiRouter } from '../../src/service/createApiRouter';
import { createSystemsRouter } from '../../src/service/systemsRouter';
import { quietLogger } from '../../src/tooling/quietLogger';
import { createTypedRouter } from '../../src/schema/createTypedRouter';
import { SystemReadModel } from '../../src/readModel';
import { listenForSystemChanges } from '../../src/readModel/systemChanges';
import { FLOOR_PATH, VALIDATED_FLOOR_PATH } from '../loadGenerator';

/** Where the routers are also mounted without the OpenAPI validator. */
export const WITHOUT_VALIDATOR = '/without-validator';

/**
 * Where the routers are also mounted, behind the validator, reading the
 * database (through the rollup cache of 2 s) instead of the read model.
 */
export const WITHOUT_READ_MODEL = '/without-read-model';

/**
 * A CatalogService over a map of entities by lower-case ref: getEntityByRef
 * is one map lookup and hands back the stored object (the real client makes
 * an HTTP call to the catalog and parses fresh JSON). It has nothing else:
 * the read routes the bench drives call nothing else.
 */
export function indexedCatalog(entities: readonly Entity[]): CatalogService {
  const byRef = new Map(
    entities.map(entity => [stringifyEntityRef(entity).toLowerCase(), entity]),
  );
  const refOf = (ref: string | CompoundEntityRef) =>
    (typeof ref === 'string'
      ? stringifyEntityRef(parseEntityRef(ref))
      : stringifyEntityRef(ref)
    ).toLowerCase();
  return {
    getEntityByRef: async (ref: string | CompoundEntityRef) =>
      byRef.get(refOf(ref)),
  } as unknown as CatalogService;
}

const userCredentials = {
  $$type: '@backstage/BackstageCredentials',
  principal: { type: 'user', userEntityRef: 'user:default/bench' },
} as BackstageCredentials;

/** Every request is the user `user:default/bench`. */
const acceptingHttpAuth = {
  credentials: async () => userCredentials,
  issueUserCookie: async () => ({ expiresAt: new Date(Date.now() + 3600e3) }),
} as unknown as HttpAuthService;

/** Permits every read: the bench measures the read path, not a policy. */
const allowingPermissions = {
  authorizeConditional: async (requests: unknown[]) =>
    requests.map(() => ({ result: AuthorizeResult.ALLOW })),
} as unknown as PermissionsService;

const benchAuth = {
  getOwnServiceCredentials: async () => ({
    $$type: '@backstage/BackstageCredentials',
    principal: { type: 'service', subject: 'bench' },
  }),
} as unknown as AuthService;

/** The real state store, counting the rollup reads that reach the database. */
class CountingStateStore extends DatabaseStateStore {
  rollupReads = 0;

  override async readRollup(
    systemRef: string,
  ): Promise<SystemRollup | undefined> {
    this.rollupReads += 1;
    return super.readRollup(systemRef);
  }
}

/** The name of a statement the read path sends, from its SQL. */
function statementName(sql: string): string {
  const text = sql.replace(/\s+/g, ' ').toLowerCase();
  if (text.includes('from "healthcheck_rollups"')) return 'readRollup';
  if (text.includes('from "healthcheck_slices" as "s" left join')) {
    return 'readEnvironmentSlices';
  }
  if (text.includes('healthcheck_history_state')) return 'aggregated_until';
  if (text.includes('from "healthcheck_run_hours"')) {
    return text.includes('group by')
      ? 'hours: prorated hour'
      : 'hours: whole hours';
  }
  if (text.includes('from "healthcheck_slices" where "system_ref"')) {
    return 'raw: slices of system';
  }
  if (text.includes('cross join lateral')) return 'raw: run before window';
  if (text.includes('from "healthcheck_runs"')) return 'raw: runs in window';
  return text.slice(0, 48);
}

/** What the server saw during one measured load. */
export interface ServerSample {
  requests: number;
  /** Server-side time of each request, arrival at express to the last byte. */
  requestMs: number[];
  /** Per statement name: each execution's ms on its connection. */
  statements: Map<string, number[]>;
  rollupReads: number;
  /** Mean connections in use and mean callers waiting for one. */
  poolUsed: number;
  poolWaiting: number;
  eventLoopP99Ms: number;
  /** CPU of the server process (this process), in cores. */
  cpuCores: number;
  seconds: number;
}

export interface BenchServer {
  url: string;
  /** Starts recording; the returned function stops and returns the sample. */
  record(): () => ServerSample;
  /**
   * Resolves when no request is being served and no statement runs (a
   * load's tail drained).
   */
  idle(): Promise<void>;
  /** The SQL and bindings of the last statement of that name, for EXPLAIN. */
  lastStatement(name: string): { sql: string; bindings: unknown[] } | undefined;
  /** The read model: how long its first full read took, what it holds. */
  readModel: { ms: number; systems: number; slices: number; heapBytes: number };
  close(): Promise<void>;
}

/** The heap in use after a full collection (when --expose-gc). */
function heapUsed(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/** A constant of the shape and size of one system's rollup with its matrix. */
function floorResponse(): SystemHealthDetails {
  const at = new Date(0).toISOString();
  const environments = ['development', 'production', 'staging'];
  return {
    systemRef: 'system:default/system-0',
    status: 'healthy',
    environments: environments.map(name => ({
      name,
      status: 'healthy',
      healthy: 2,
      total: 2,
      since: at,
    })),
    reasons: [],
    healthy: 6,
    total: 6,
    upstream: [],
    updatedAt: at,
    since: at,
    name: 'system-0',
    namespace: 'default',
    owner: 'group:default/team-0',
    liveKey: 'x'.repeat(LIVE_KEY_LENGTH),
    environmentNames: environments,
    checks: ['api', 'web'].map(check => ({
      checkId: `healthcheck:default/${check}`,
      cells: Object.fromEntries(
        environments.map(environment => [
          environment,
          {
            sliceId: `healthcheck:${check}:system-0:${environment}`,
            checkId: `healthcheck:default/${check}`,
            environment,
            status: 'healthy',
            paused: false,
            lastRunAt: at,
            lastDurationMs: 12,
            since: at,
          },
        ]),
      ),
    })),
  };
}

type QueryEvent = { __knexQueryUid: string; sql: string; bindings?: unknown[] };

export async function startBenchServer(options: {
  knex: Knex;
  catalog: CatalogService;
  /** The clock of history reads and badge windows. */
  historyNow: () => number;
}): Promise<BenchServer> {
  const { knex, catalog, historyNow } = options;
  const logger = quietLogger('bench server');
  const states = new CountingStateStore(knex);
  const history = new DatabaseHistoryStore(knex, historyNow);
  const liveKeyOf = liveKeysUnder(Buffer.alloc(32));
  // As plugin.ts: rollups and matrices from memory, current from the
  // database's notifications; read in full before the loads start.
  const readModel = new SystemReadModel({
    store: states,
    listen: handlers => listenForSystemChanges(knex, handlers),
    logger,
  });
  const heapBefore = heapUsed();
  const readModelStart = performance.now();
  await readModel.start();
  if (!readModel.current) {
    throw new Error('The read model could not read the bench database');
  }
  const readModelMs = performance.now() - readModelStart;
  const readModelHeap = heapUsed() - heapBefore;
  const rollupsOf = (model?: SystemReadModel) =>
    new RollupService({
      store: states,
      catalog,
      auth: benchAuth,
      logger,
      liveKeyOf,
      readModel: model,
    });
  const rollups = rollupsOf(readModel);
  const rollupsWithoutModel = rollupsOf(undefined);

  let recording: ServerSample | undefined;
  const started = new Map<string, number>();
  const last = new Map<string, { sql: string; bindings: unknown[] }>();
  knex.on('query', (query: QueryEvent) => {
    started.set(query.__knexQueryUid, performance.now());
  });
  knex.on('query-response', (_response: unknown, query: QueryEvent) => {
    const at = started.get(query.__knexQueryUid);
    started.delete(query.__knexQueryUid);
    const name = statementName(query.sql);
    last.set(name, { sql: query.sql, bindings: query.bindings ?? [] });
    if (recording && at !== undefined) {
      const list = recording.statements.get(name) ?? [];
      list.push(performance.now() - at);
      recording.statements.set(name, list);
    }
  });
  knex.on('query-error', (_error: unknown, query: QueryEvent) => {
    started.delete(query.__knexQueryUid);
  });

  const app = express();
  let inFlight = 0;
  let onIdle: Array<() => void> = [];
  app.use((_req, res, next) => {
    const at = performance.now();
    const sample = recording;
    inFlight += 1;
    res.once('close', () => {
      inFlight -= 1;
      // Only requests that arrived while recording count for it.
      if (sample && sample === recording) {
        sample.requests += 1;
        sample.requestMs.push(performance.now() - at);
      }
      if (inFlight === 0) {
        const waiting = onIdle;
        onIdle = [];
        waiting.forEach(resolve => resolve());
      }
    });
    next();
  });
  const routersOf = (reading: RollupService, model?: SystemReadModel) => [
    createSystemsRouter({
      httpAuth: acceptingHttpAuth,
      catalog,
      permissions: allowingPermissions,
      // The bench's reads never ask for check details.
      checks: { getCheck: async () => undefined },
      states,
      history,
      loadRollup: systemRef => reading.get(systemRef),
      loadRollups: systemRefs => reading.getMany(systemRefs),
      // As systemHealthSources.ts: from memory without a promise.
      loadSystemSlices: systemRef =>
        model?.read(systemRef)?.slices ?? states.readSystemSlices(systemRef),
      liveKeyOf,
    }),
    // As plugin.ts, but with the bench's clock for the badge windows.
    createBadgeRouter({
      logger,
      ...badgeLoaders({
        logger,
        loadRollup: systemRef => reading.getOrEmpty(systemRef),
        history,
      }),
      now: () => new Date(historyNow()),
    }),
  ];
  const routers = routersOf(rollups, readModel);
  // The floor: express answering a stored object of a rollup read's size,
  // with no validator, router, database or auth. No route can be faster on
  // this machine under the same load.
  const floorBody = floorResponse();
  app.get(`${FLOOR_PATH}/:namespace/:name`, (_req, res) => {
    res.json(floorBody);
  });
  // The same constant at the rollup read's path, in a router made as the
  // API's are and behind the same validation: what any route of the API
  // costs at least.
  const constantRollups = createTypedRouter();
  constantRollups.get('/v1/systems/:namespace/:name', (_req, res) => {
    res.json(floorBody);
  });
  app.use(VALIDATED_FLOOR_PATH, createApiRouter([constantRollups]));
  // The same routers without the OpenAPI validator, to tell its cost apart.
  app.use(WITHOUT_VALIDATOR, ...routers);
  // Routers of their own reading the database, to tell the model's part.
  app.use(
    WITHOUT_READ_MODEL,
    createApiRouter(routersOf(rollupsWithoutModel, undefined)),
  );
  // As plugin.ts: behind the OpenAPI validator (the checks router left out).
  app.use(createApiRouter(routers));
  app.use(
    MiddlewareFactory.create({ config: new ConfigReader({}), logger }).error(),
  );

  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;

  const pool = (
    knex.client as {
      pool: { numUsed(): number; numPendingAcquires(): number };
    }
  ).pool;

  return {
    url: `http://127.0.0.1:${port}`,
    readModel: {
      ms: readModelMs,
      ...readModel.size,
      heapBytes: readModelHeap,
    },
    record() {
      const sample: ServerSample = {
        requests: 0,
        requestMs: [],
        statements: new Map(),
        rollupReads: 0,
        poolUsed: 0,
        poolWaiting: 0,
        eventLoopP99Ms: 0,
        cpuCores: 0,
        seconds: 0,
      };
      recording = sample;
      const readsBefore = states.rollupReads;
      const cpuBefore = process.cpuUsage();
      const wallBefore = performance.now();
      const delay = monitorEventLoopDelay({ resolution: 5 });
      delay.enable();
      let used = 0;
      let waiting = 0;
      let samples = 0;
      const sampler = setInterval(() => {
        used += pool.numUsed();
        waiting += pool.numPendingAcquires();
        samples += 1;
      }, 5);
      return () => {
        clearInterval(sampler);
        delay.disable();
        recording = undefined;
        const cpu = process.cpuUsage(cpuBefore);
        const wall = performance.now() - wallBefore;
        sample.rollupReads = states.rollupReads - readsBefore;
        sample.poolUsed = samples ? used / samples : 0;
        sample.poolWaiting = samples ? waiting / samples : 0;
        sample.eventLoopP99Ms = delay.percentile(99) / 1e6;
        sample.cpuCores = (cpu.user + cpu.system) / 1000 / wall;
        sample.seconds = wall / 1000;
        return sample;
      };
    },
    lastStatement: name => last.get(name),
    async idle() {
      if (inFlight > 0) {
        await new Promise<void>(resolve => onIdle.push(resolve));
      }
      // A request the load generator gave up on closes before the reads it
      // started end (such as a badge figure's first read); they would land
      // in the next measurement.
      while (pool.numUsed() > 0 || pool.numPendingAcquires() > 0) {
        await new Promise(resolve => setTimeout(resolve, 10));
      }
    },
    close: async () => {
      await new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close(error => (error ? reject(error) : resolve()));
      });
      await readModel.stop();
    },
  };
}
