/*
 * The read-path bench's server in a process of its own (pinned to a core of
 * its own where the machine allows, see pinnedProcess.ts): its heap holds
 * what a plugin instance holds, its own knex pool and the fake catalog's
 * System entities, and none of the fixture the bench seeded. The bench
 * process drives it over IPC: record a load, wait for idle, read a
 * statement for EXPLAIN, close.
 */
import type { ChildProcess } from 'node:child_process';
import knexFactory, { type Knex } from 'knex';
import { syntheticCatalog } from '../reconciler/benchCatalog';
import {
  indexedCatalog,
  startBenchServer,
  type BenchServer,
  type ServerSample,
} from './benchServer';
import { forkOnCore } from '../pinnedProcess';

const CHILD_FLAG = '--vigil-bench-server';
/** Tags this protocol's messages among other IPC messages. */
const KIND = 'vigil-bench-server';
/** The id of the one message no request asked for: the server's URL. */
const LISTENING = 0;

/** What the server process is started with. */
interface ServerArgs {
  /** How to connect to the scratch database (knex's connection, as JSON). */
  connection: Knex.Config['connection'];
  /** Systems of the synthetic catalog, as the fixture seeded them. */
  systems: number;
  /** The fixture's clock for history reads and badge windows. */
  now: number;
}

type Request =
  | { op: 'record' }
  | { op: 'stop' }
  | { op: 'idle' }
  | { op: 'lastStatement'; name: string }
  | { op: 'close' };

/** A ServerSample as it crosses IPC: the statements' Map as entries. */
type WireSample = Omit<ServerSample, 'statements'> & {
  statements: Array<[string, number[]]>;
};

/** The bench's handle on the server process. */
export class BenchServerProcess {
  readonly #child: ChildProcess;
  readonly #waiting = new Map<
    number,
    { resolve: (value: any) => void; reject: (error: Error) => void }
  >();
  #nextId = 0;
  url = '';
  readModel: BenchServer['readModel'] = {
    ms: NaN,
    systems: 0,
    slices: 0,
    heapBytes: NaN,
  };

  private constructor(child: ChildProcess) {
    this.#child = child;
    child.on(
      'message',
      (message: {
        kind?: string;
        id?: number;
        value?: any;
        error?: string;
      }) => {
        // The TypeScript transform sends messages of its own ('watch').
        if (message?.kind !== KIND || message.id === undefined) {
          return;
        }
        const waiting = this.#waiting.get(message.id);
        this.#waiting.delete(message.id);
        if (message.error !== undefined) {
          waiting?.reject(new Error(`Bench server: ${message.error}`));
        } else {
          waiting?.resolve(message.value);
        }
      },
    );
    child.on('exit', code => {
      for (const { reject } of this.#waiting.values()) {
        reject(new Error(`Bench server exited (${code})`));
      }
      this.#waiting.clear();
    });
  }

  /** Starts the server process on `core` (when given); resolves once it listens. */
  static async start(
    args: ServerArgs,
    core: number | undefined,
  ): Promise<BenchServerProcess> {
    const server = new BenchServerProcess(
      forkOnCore(__filename, [CHILD_FLAG, JSON.stringify(args)], core),
    );
    const listening = await server.#answerTo<{
      url: string;
      readModel: BenchServer['readModel'];
    }>(LISTENING);
    server.url = listening.url;
    server.readModel = listening.readModel;
    return server;
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  /** The answer with this id, when it comes. */
  #answerTo<T>(id: number): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.#waiting.set(id, { resolve, reject });
    });
  }

  #ask<T>(request: Request): Promise<T> {
    const id = ++this.#nextId;
    const answer = this.#answerTo<T>(id);
    this.#child.send({ kind: KIND, id, ...request });
    return answer;
  }

  /** Starts recording; the returned function stops and returns the sample. */
  async record(): Promise<() => Promise<ServerSample>> {
    await this.#ask({ op: 'record' });
    return async () => {
      const wire = await this.#ask<WireSample>({ op: 'stop' });
      return { ...wire, statements: new Map(wire.statements) };
    };
  }

  /** Resolves when no request is served and no statement runs. */
  async idle(): Promise<void> {
    await this.#ask({ op: 'idle' });
  }

  lastStatement(
    name: string,
  ): Promise<{ sql: string; bindings: unknown[] } | undefined> {
    return this.#ask({ op: 'lastStatement', name });
  }

  /** Closes the server and waits for its process to end. */
  async close(): Promise<void> {
    if (this.#child.exitCode !== null || this.#child.signalCode !== null) {
      return;
    }
    const exited = new Promise<void>(resolve =>
      this.#child.once('exit', () => resolve()),
    );
    await this.#ask({ op: 'close' }).catch(() => {});
    const timer = setTimeout(() => this.#child.kill(), 5_000);
    await exited;
    clearTimeout(timer);
  }
}

/** The child: serves, and answers the bench until told to close. */
async function serve(args: ServerArgs): Promise<void> {
  const knex = knexFactory({ client: 'pg', connection: args.connection });
  const catalog = indexedCatalog(
    syntheticCatalog(args.systems).filter(e => e.kind === 'System'),
  );
  const server: BenchServer = await startBenchServer({
    knex,
    catalog,
    historyNow: () => args.now,
  });
  let stop: (() => ServerSample) | undefined;
  const answer = (id: number, value: unknown, error?: unknown) =>
    process.send!({
      kind: KIND,
      id,
      value,
      error:
        error === undefined
          ? undefined
          : String((error as Error)?.stack ?? error),
    });
  answer(LISTENING, { url: server.url, readModel: server.readModel });
  process.on('message', async (received: unknown) => {
    const message = received as Request & { kind?: string; id: number };
    if (message?.kind !== KIND) {
      return;
    }
    try {
      switch (message.op) {
        case 'record':
          stop = server.record();
          answer(message.id, true);
          break;
        case 'stop': {
          const sample = stop!();
          stop = undefined;
          answer(message.id, {
            ...sample,
            statements: [...sample.statements],
          } satisfies WireSample);
          break;
        }
        case 'idle':
          await server.idle();
          answer(message.id, true);
          break;
        case 'lastStatement':
          answer(message.id, server.lastStatement(message.name));
          break;
        case 'close':
          await server.close();
          await knex.destroy();
          answer(message.id, true);
          process.exit(0);
          break;
        default:
          answer(
            (received as { id: number }).id,
            undefined,
            `unknown request ${JSON.stringify(received)}`,
          );
      }
    } catch (error) {
      answer(message.id, undefined, error);
    }
  });
  // The bench went away without closing: end with it.
  process.on('disconnect', () => process.exit(0));
}

if (process.argv.includes(CHILD_FLAG) && process.send) {
  const args = JSON.parse(
    process.argv[process.argv.indexOf(CHILD_FLAG) + 1],
  ) as ServerArgs;
  serve(args).catch(error => {
    process.stderr.write(`${error?.stack ?? error}\n`);
    process.exit(1);
  });
}
