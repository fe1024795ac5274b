import { mockServices, TestDatabases } from '@backstage/backend-test-utils';
import {
  encodeSliceId,
  type SystemRollup,
} from '@vigil/plugin-healthcheck-common';
import knexFactory, { type Knex } from 'knex';
import { requiredTestDatabases } from '../__testUtils__/testDatabases';
import { DatabaseSliceStore } from '../database/DatabaseSliceStore';
import { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { EnvironmentSlice, StoredSliceState } from '../model';
import type { DesiredSlice } from '../model';
import { RollupService } from '../rollup/RollupService';
import { liveKeysUnder } from '../rollup/liveKeys';
import { quietLogger } from '../tooling/quietLogger';
import { startSystemReadModel, SystemReadModel } from '.';
import {
  listenForSystemChanges,
  type SystemChangesHandlers,
} from './systemChanges';

jest.setTimeout(60_000);

const postgres = requiredTestDatabases().filter(id => id === 'POSTGRES_15');
const SYSTEM = 'system:default/payments';
const CHECK = 'healthcheck:default/api';
const logger = quietLogger('read model test');

function sliceIn(environment: string, systemRef = SYSTEM): DesiredSlice {
  return {
    id: encodeSliceId({ checkId: CHECK, systemRef, environment }),
    checkId: CHECK,
    systemRef,
    environment,
    intervalMs: 30_000,
    timeoutMs: 5_000,
    type: 'http',
    target: 'https://payments.example.com/health',
    config: {},
    conditions: ['[STATUS] == 200'],
    thresholds: {},
    configHash: 'hash',
  };
}

function stateOf(
  environment: string,
  status: 'healthy' | 'unhealthy',
  lastRunAt: number,
): StoredSliceState {
  const slice = sliceIn(environment);
  return {
    sliceId: slice.id,
    checkId: CHECK,
    systemRef: SYSTEM,
    environment,
    status,
    consecutiveFailures: status === 'unhealthy' ? 3 : 0,
    consecutiveSuccesses: status === 'healthy' ? 3 : 0,
    since: 1_000,
    lastOutcome: status === 'healthy' ? 'pass' : 'fail',
    lastScheduledAt: lastRunAt,
    lastRunAt,
    lastDurationMs: 12,
  };
}

/** What a read of the model shows, within `withinMs`, or what it last showed. */
async function eventually<T>(
  read: () => T,
  wanted: (value: T) => boolean,
  withinMs: number,
): Promise<{ value: T; ms: number }> {
  const start = Date.now();
  for (;;) {
    const value = read();
    if (wanted(value) || Date.now() - start > withinMs) {
      return { value, ms: Date.now() - start };
    }
    await new Promise(resolve => setTimeout(resolve, 10));
  }
}

/** One plugin instance's stores and read model, on a client of its own. */
async function instance(connection: Knex.Config['connection']) {
  const knex = knexFactory({ client: 'pg', connection });
  const database = mockServices.database({ knex, migrations: { skip: false } });
  const states = await DatabaseStateStore.create({ database });
  const slices = await DatabaseSliceStore.create({ database });
  const model = new SystemReadModel({
    store: states,
    listen: handlers => listenForSystemChanges(knex, handlers),
    logger,
  });
  const rollups = new RollupService({
    store: states,
    catalog: { getEntityByRef: async () => undefined } as any,
    auth: { getOwnServiceCredentials: async () => ({}) } as any,
    logger,
    liveKeyOf: liveKeysUnder(Buffer.alloc(32)),
    readModel: model,
  });
  return { knex, states, slices, model, rollups };
}

(postgres.length > 0 ? describe : describe.skip)(
  'SystemReadModel, two instances on one PostgreSQL',
  () => {
    const databases = TestDatabases.create({ ids: postgres });
    const open: Array<{ knex: Knex; model: SystemReadModel }> = [];

    afterEach(async () => {
      for (const { knex, model } of open.splice(0)) {
        await model.stop();
        await knex.destroy();
      }
    });

    async function twoInstances() {
      const knex = await databases.init('POSTGRES_15');
      const connection = (knex.client.config as Knex.Config).connection;
      const a = await instance(connection);
      const b = await instance(connection);
      open.push(a, b);
      await a.slices.applyChanges({
        write: ['production', 'staging'].map(environment => ({
          paused: false,
          slice: sliceIn(environment),
        })),
        remove: [],
      });
      await a.states.writeSliceStates([
        stateOf('production', 'healthy', 5_000),
        stateOf('staging', 'healthy', 5_000),
      ]);
      await a.rollups.recompute(SYSTEM);
      return { a, b };
    }

    it('reads every system on start, and is not read before', async () => {
      const { b } = await twoInstances();
      expect(b.model.read(SYSTEM)).toBeUndefined();

      await b.model.start();

      expect(b.model.current).toBe(true);
      const view = b.model.read(SYSTEM.toUpperCase());
      expect(view?.rollup?.status).toBe('healthy');
      expect(view?.slices.map(s => s.environment).sort()).toEqual([
        'production',
        'staging',
      ]);
      expect(b.model.read('system:default/nothing-here')).toEqual({
        slices: [],
      });
    });

    it('shows a rollup recomputed on one instance on the other within 1 s', async () => {
      const { a, b } = await twoInstances();
      await b.model.start();
      const readsBefore = jest.spyOn(b.states, 'readRollup');

      await a.states.writeSliceStates([
        stateOf('production', 'unhealthy', 6_000),
      ]);
      await a.rollups.recompute(SYSTEM);

      const seen = await eventually<SystemRollup | undefined>(
        () => b.model.read(SYSTEM)?.rollup,
        rollup => rollup?.status === 'unhealthy',
        1_000,
      );
      expect(seen.value?.status).toBe('unhealthy');
      expect(seen.ms).toBeLessThanOrEqual(1_000);
      // Served from memory: no statement per read.
      expect((await b.rollups.get(SYSTEM))?.status).toBe('unhealthy');
      expect(readsBefore).not.toHaveBeenCalled();
    });

    it("shows another instance's slice states in the matrix within 1 s", async () => {
      const { a, b } = await twoInstances();
      await b.model.start();

      await a.states.writeSliceStates([stateOf('staging', 'healthy', 9_000)]);

      const seen = await eventually(
        () =>
          b.model.read(SYSTEM)?.slices.find(s => s.environment === 'staging')
            ?.state?.lastRunAt,
        lastRunAt => lastRunAt === 9_000,
        1_000,
      );
      expect(seen.value).toBe(9_000);
    });

    it("puts another instance's slice states in the slices it holds, reading nothing", async () => {
      const { a, b } = await twoInstances();
      await b.model.start();
      const slicesRead = jest.spyOn(b.states, 'readEnvironmentSlices');
      const rollupsRead = jest.spyOn(b.states, 'readRollupsUnlessKnown');
      const heldBefore = b.model.read(SYSTEM)!.slices;

      await a.states.writeSliceStates([stateOf('staging', 'unhealthy', 9_000)]);

      const seen = await eventually(
        () =>
          b.model.read(SYSTEM)?.slices.find(s => s.environment === 'staging')
            ?.state,
        state => state?.lastRunAt === 9_000,
        1_000,
      );
      expect(seen.value).toEqual(stateOf('staging', 'unhealthy', 9_000));
      expect(slicesRead).not.toHaveBeenCalled();
      expect(rollupsRead).not.toHaveBeenCalled();
      // A new array, so that answers built from the old one are made again;
      // the other environment's slice is the same object.
      const heldAfter = b.model.read(SYSTEM)!.slices;
      expect(heldAfter).not.toBe(heldBefore);
      expect(heldAfter.find(s => s.environment === 'production')).toBe(
        heldBefore.find(s => s.environment === 'production'),
      );

      // An older state (a late writer) changes nothing, here as there.
      await a.states.writeSliceStates([stateOf('staging', 'healthy', 8_000)]);
      await a.states.writeSliceStates([
        stateOf('production', 'healthy', 9_500),
      ]);
      await eventually(
        () =>
          b.model.read(SYSTEM)?.slices.find(s => s.environment === 'production')
            ?.state?.lastRunAt,
        lastRunAt => lastRunAt === 9_500,
        1_000,
      );
      expect(
        b.model.read(SYSTEM)?.slices.find(s => s.environment === 'staging')
          ?.state?.status,
      ).toBe('unhealthy');
    });

    it('keeps the rollup it holds while only slice states change, and reads it again once recomputed', async () => {
      const { a, b } = await twoInstances();
      await b.model.start();
      const lastRunSeen = (lastRunAt: number) =>
        eventually(
          () =>
            b.model.read(SYSTEM)?.slices.find(s => s.environment === 'staging')
              ?.state?.lastRunAt,
          seen => seen === lastRunAt,
          1_000,
        );
      await a.states.writeSliceStates([stateOf('staging', 'healthy', 9_000)]);
      await lastRunSeen(9_000);
      const held = b.model.read(SYSTEM)?.rollup;
      expect(held?.status).toBe('healthy');

      await a.states.writeSliceStates([stateOf('staging', 'healthy', 10_000)]);
      expect((await lastRunSeen(10_000)).value).toBe(10_000);
      // Not sent again, nor parsed: the very object held before.
      expect(b.model.read(SYSTEM)?.rollup).toBe(held);

      await a.states.writeSliceStates([
        stateOf('production', 'unhealthy', 11_000),
      ]);
      await a.rollups.recompute(SYSTEM);
      const recomputed = await eventually(
        () => b.model.read(SYSTEM)?.rollup?.status,
        status => status === 'unhealthy',
        1_000,
      );
      expect(recomputed.value).toBe('unhealthy');
    });

    it('drops a system whose slices are removed and that has no rollup', async () => {
      const { a, b } = await twoInstances();
      const other = 'system:default/checkout';
      await a.slices.applyChanges({
        write: [{ paused: false, slice: sliceIn('production', other) }],
        remove: [],
      });
      await b.model.start();
      expect(b.model.size.systems).toBe(2);

      await a.slices.applyChanges({
        write: [],
        remove: [sliceIn('production', other).id],
      });

      const seen = await eventually(
        () => b.model.size.systems,
        systems => systems === 1,
        1_000,
      );
      expect(seen.value).toBe(1);
      expect(b.model.lastHeld(other)).toBeUndefined();
    });

    it('stops answering when its connection is cut, and reads everything again once back', async () => {
      const { a, b } = await twoInstances();
      await b.model.start();
      const backend = (
        await b.knex.raw(
          `SELECT pid FROM pg_stat_activity
           WHERE query LIKE 'LISTEN healthcheck_systems_changed%'
             AND datname = current_database() AND pid <> pg_backend_pid()`,
        )
      ).rows as Array<{ pid: number }>;
      // Both instances listen; cut the one whose model is started (b's):
      // a never started its model. (Other test files listen too, in
      // databases of their own.)
      expect(backend).toHaveLength(1);

      await a.knex.raw('SELECT pg_terminate_backend(?)', [backend[0].pid]);
      const lost = await eventually(
        () => b.model.current,
        current => !current,
        2_000,
      );
      expect(lost.value).toBe(false);
      expect(b.model.read(SYSTEM)).toBeUndefined();
      // Written while nobody listened: only a full read finds it.
      await a.states.writeSliceStates([
        stateOf('production', 'unhealthy', 7_000),
      ]);
      await a.rollups.recompute(SYSTEM);
      // While it is not current, a read goes to the database.
      expect((await b.rollups.get(SYSTEM))?.status).toBe('unhealthy');

      const back = await eventually(
        () => b.model.read(SYSTEM)?.rollup?.status,
        status => status === 'unhealthy',
        5_000,
      );
      expect(back.value).toBe('unhealthy');
    });
  },
);

describe('startSystemReadModel', () => {
  const databases = TestDatabases.create({ ids: ['SQLITE_3'] });

  it('makes no model on SQLite, whose one instance reads the database', async () => {
    const knex = await databases.init('SQLITE_3');
    const states = await DatabaseStateStore.create({
      database: mockServices.database({ knex, migrations: { skip: false } }),
    });
    expect(startSystemReadModel({ knex, store: states, logger })).toBe(
      undefined,
    );
  });
});

/** A promise and the functions that settle it. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>(done => {
    resolve = done;
  });
  return { promise, resolve };
}

const SYSTEM_A = 'system:default/a';

function environmentSlice(
  environment: string,
  lastScheduledAt?: number,
): EnvironmentSlice {
  const slice = sliceIn(environment, SYSTEM_A);
  return {
    sliceId: slice.id,
    checkId: CHECK,
    systemRef: SYSTEM_A,
    environment,
    paused: false,
    state:
      lastScheduledAt === undefined
        ? undefined
        : {
            ...stateOf(environment, 'healthy', lastScheduledAt),
            sliceId: slice.id,
            systemRef: SYSTEM_A,
          },
  };
}

function toldState(environment: string, lastScheduledAt: number) {
  return environmentSlice(environment, lastScheduledAt).state!;
}

/**
 * A model over a store whose reads the test answers: the first full read
 * finds system A with a production slice run at 100, and each read of
 * changed systems waits for `answerRead`.
 */
async function modelOverFakeStore(options: { holdFullRead?: boolean } = {}) {
  let handlers: SystemChangesHandlers | undefined;
  const fullRead = deferred<void>();
  if (!options.holdFullRead) {
    fullRead.resolve();
  }
  const reads: Array<{
    refs: string[];
    answer: (slices: EnvironmentSlice[]) => void;
  }> = [];
  let pages = 0;
  let fullReadAsked = false;
  const model = new SystemReadModel({
    store: {
      listSystemsPage: async () => (pages++ === 0 ? [SYSTEM_A] : []),
      readSystemsBetween: async () => {
        fullReadAsked = true;
        await fullRead.promise;
        return {
          slices: [environmentSlice('production', 100)],
          rollups: new Map(),
        };
      },
      readRollupsUnlessKnown: async () => new Map(),
      readEnvironmentSlices: (asked: Array<{ systemRef: string }>) =>
        new Promise<EnvironmentSlice[]>(answer => {
          reads.push({ refs: asked.map(a => a.systemRef), answer });
        }),
    } as unknown as DatabaseStateStore,
    listen: async told => {
      handlers = told;
      return { close: async () => {} };
    },
    logger,
    readSpacingMs: 0,
  });
  const started = model.start();
  while (!handlers || (options.holdFullRead && !fullReadAsked)) {
    await new Promise(resolve => setTimeout(resolve, 1));
  }
  const stateIn = (environment: string) =>
    model.lastHeld(SYSTEM_A)?.slices.find(s => s.environment === environment)
      ?.state?.lastScheduledAt;
  const readsAsked = async (count: number) => {
    while (reads.length < count) {
      await new Promise(resolve => setTimeout(resolve, 1));
    }
  };
  return {
    model,
    handlers: handlers!,
    fullRead,
    started,
    reads,
    readsAsked,
    stateIn,
  };
}

describe('SystemReadModel, told slice states', () => {
  it('puts a told state in the slice it holds at once, unless it holds a later one', async () => {
    const { model, handlers, started, reads, stateIn } =
      await modelOverFakeStore();
    await started;

    handlers.onSliceStates([toldState('production', 200)]);
    expect(stateIn('production')).toBe(200);
    handlers.onSliceStates([toldState('production', 150)]);
    expect(stateIn('production')).toBe(200);
    expect(reads).toEqual([]);
    await model.stop();
  });

  it('keeps a state told while its system is read over the older one the read brings', async () => {
    const { model, handlers, started, reads, readsAsked, stateIn } =
      await modelOverFakeStore();
    await started;

    handlers.onChanged([SYSTEM_A]);
    await readsAsked(1);
    // Committed after the read began: the read still sees 100.
    handlers.onSliceStates([toldState('production', 200)]);
    reads[0].answer([
      environmentSlice('production', 100),
      environmentSlice('staging'),
    ]);
    await new Promise(resolve => setTimeout(resolve, 20));

    expect(stateIn('production')).toBe(200);
    // What the read brought new is there too.
    expect(
      model.read(SYSTEM_A)?.slices.map(slice => slice.environment),
    ).toEqual(['production', 'staging']);
    await model.stop();
  });

  it('puts the states told while it reads every system in once they are read', async () => {
    const { model, handlers, fullRead, started, stateIn } =
      await modelOverFakeStore({ holdFullRead: true });

    handlers.onSliceStates([toldState('production', 300)]);
    handlers.onSliceStates([toldState('production', 250)]);
    fullRead.resolve();
    await started;

    expect(model.current).toBe(true);
    expect(stateIn('production')).toBe(300);
    await model.stop();
  });

  it('reads the system of a state whose slice it does not hold', async () => {
    const { model, handlers, started, reads, readsAsked, stateIn } =
      await modelOverFakeStore();
    await started;

    handlers.onSliceStates([toldState('staging', 200)]);
    await readsAsked(1);
    expect(reads[0].refs).toEqual([SYSTEM_A]);
    reads[0].answer([
      environmentSlice('production', 100),
      environmentSlice('staging', 200),
    ]);
    await new Promise(resolve => setTimeout(resolve, 20));

    expect(stateIn('staging')).toBe(200);
    await model.stop();
  });
});

describe('SystemReadModel, told of changes', () => {
  it('reads the systems changed over its read spacing together, the first at once', async () => {
    const reads: string[][] = [];
    let handlers: SystemChangesHandlers | undefined;
    const model = new SystemReadModel({
      store: {
        listSystemsPage: async () => [],
        readSystemsBetween: async () => ({ slices: [], rollups: new Map() }),
        readRollupsUnlessKnown: async (known: Map<string, unknown>) => {
          reads.push([...known.keys()].sort());
          return new Map();
        },
        readEnvironmentSlices: async () => [],
      } as unknown as DatabaseStateStore,
      listen: async told => {
        handlers = told;
        return { close: async () => {} };
      },
      logger,
      readSpacingMs: 300,
    });
    await model.start();
    const readsMade = async (count: number) => {
      while (reads.length < count) {
        await new Promise(resolve => setTimeout(resolve, 5));
      }
    };

    handlers!.onChanged(['system:default/a']);
    await readsMade(1);
    for (const name of ['b', 'c', 'd']) {
      await new Promise(resolve => setTimeout(resolve, 10));
      handlers!.onChanged([`system:default/${name}`]);
    }
    expect(reads).toEqual([['system:default/a']]);

    await readsMade(2);
    expect(reads).toEqual([
      ['system:default/a'],
      ['system:default/b', 'system:default/c', 'system:default/d'],
    ]);
    await model.stop();
  });

  it('stops while changes wait for the read spacing, and reads nothing more', async () => {
    const reads: string[][] = [];
    let handlers: SystemChangesHandlers | undefined;
    const model = new SystemReadModel({
      store: {
        listSystemsPage: async () => [],
        readSystemsBetween: async () => ({ slices: [], rollups: new Map() }),
        readRollupsUnlessKnown: async (known: Map<string, unknown>) => {
          reads.push([...known.keys()]);
          return new Map();
        },
        readEnvironmentSlices: async () => [],
      } as unknown as DatabaseStateStore,
      listen: async told => {
        handlers = told;
        return { close: async () => {} };
      },
      logger,
      readSpacingMs: 200,
    });
    await model.start();
    handlers!.onChanged(['system:default/a']);
    handlers!.onChanged(['system:default/b']);
    await new Promise(resolve => setTimeout(resolve, 20));

    // With changes left when stopped, a drain used to start again for good.
    await model.stop();
    await new Promise(resolve => setTimeout(resolve, 300));

    expect(reads).toEqual([['system:default/a']]);
  });
});
