import type { LoggerService } from '@backstage/backend-plugin-api';
import type { SystemRollup } from '@vigil/plugin-healthcheck-common';
import type { DatabaseStateStore } from '../database/DatabaseStateStore';
import type { EnvironmentSlice, StoredSliceState } from '../model';
import type {
  SystemChangesHandlers,
  SystemChangesListener,
} from './systemChanges';

/**
 * What the read routes show of one system: its stored rollup (none before
 * its first recompute) and its slices with their states (the matrix).
 * @internal
 */
export interface SystemView {
  rollup?: SystemRollup;
  /** Of the rollup's stored text, once read by a refresh: it is not read again while unchanged. */
  rollupDigest?: string;
  slices: EnvironmentSlice[];
}

/** Systems read in one statement pair, when rebuilding and refreshing. */
const SYSTEMS_PER_READ = 500;

/**
 * Least time between two reads of changed systems. Every results write
 * names its systems, twenty times a second at 500 probes a second, and
 * every instance reads them again; reading what came in over a quarter of
 * a second at once makes a few reads a second of it, within the second a
 * change may take to reach every instance.
 */
const DEFAULT_READ_SPACING_MS = 250;

/** The first wait before listening again after the connection was lost. */
const RELISTEN_FIRST_MS = 500;
/** The longest wait between attempts to listen again. */
const RELISTEN_MAX_MS = 30_000;

const NOTHING: SystemView = { slices: [] };

/** The store reads the model is made of. */
type SystemReads = Pick<
  DatabaseStateStore,
  | 'listSystemsPage'
  | 'readSystemsBetween'
  | 'readRollupsUnlessKnown'
  | 'readEnvironmentSlices'
>;

/**
 * Every system's rollup and slices, in memory, kept current from the
 * database's change notifications: each committed write of a rollup or a
 * slice names its systems, and the model reads those systems again (many
 * at once, one batch at a time, so an older read never lands after a newer
 * one); each write of slice states carries the states, which the model
 * puts in the slices it holds without reading anything. A slice's state
 * only moves on to a later run, in the database and here, so a state told
 * while its system is being read is kept over the older one the read may
 * bring. It is read in full on start, and again after the listening
 * connection was lost, since what was written meanwhile was not told.
 * Until then it is not current and {@link SystemReadModel.read} answers
 * `undefined`: the caller reads the database, as without a model.
 *
 * Holds one entry per system with slices or a stored rollup, as the
 * database does: a system whose last slice goes and that has no rollup is
 * dropped when that change is read.
 * @internal
 */
export class SystemReadModel {
  readonly #store: SystemReads;
  readonly #listen: (
    handlers: SystemChangesHandlers,
  ) => Promise<SystemChangesListener>;
  readonly #logger: LoggerService;
  #systems = new Map<string, SystemView>();
  /** Systems told changed and not read since. */
  #changed = new Set<string>();
  /**
   * Slice states told while every system is read again, by slice: put in
   * the systems once read (at most one a slice).
   */
  #statesDuringRebuild = new Map<string, StoredSliceState>();
  #listener?: SystemChangesListener;
  /** Listening, read in full since, and every change read. */
  #current = false;
  #rebuilding = false;
  #refreshing?: Promise<void>;
  #retryTimer?: NodeJS.Timeout;
  #retryMs = RELISTEN_FIRST_MS;
  #stopped = false;
  readonly #readSpacingMs: number;
  /** When changed systems were last read. */
  #lastReadAt = -Infinity;

  constructor(options: {
    store: SystemReads;
    /** Starts listening for system changes (see listenForSystemChanges). */
    listen: (handlers: SystemChangesHandlers) => Promise<SystemChangesListener>;
    logger: LoggerService;
    /** Least time between two reads of changed systems; default 250 ms. */
    readSpacingMs?: number;
  }) {
    this.#store = options.store;
    this.#listen = options.listen;
    this.#logger = options.logger;
    this.#readSpacingMs = options.readSpacingMs ?? DEFAULT_READ_SPACING_MS;
  }

  /**
   * A system's view (empty for a system the database has nothing of), or
   * `undefined` while the model is not current.
   */
  read(systemRef: string): SystemView | undefined {
    if (!this.#current) {
      return undefined;
    }
    return this.#systems.get(systemRef.toLowerCase()) ?? NOTHING;
  }

  /**
   * What the model last held of a system, current or not: for an answer
   * marked stale while the database cannot be read.
   */
  lastHeld(systemRef: string): SystemView | undefined {
    return this.#systems.get(systemRef.toLowerCase());
  }

  /** Whether reads are answered from memory. */
  get current(): boolean {
    return this.#current;
  }

  /** Systems held, and their slices, for logs and benches. */
  get size(): { systems: number; slices: number } {
    let slices = 0;
    for (const view of this.#systems.values()) {
      slices += view.slices.length;
    }
    return { systems: this.#systems.size, slices };
  }

  /**
   * Listens and reads every system; resolves once current, or once the
   * first attempt failed (then it tries again in the background).
   */
  async start(): Promise<void> {
    await this.#connect();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#current = false;
    clearTimeout(this.#retryTimer);
    await this.#listener?.close().catch(() => {});
    this.#listener = undefined;
    await this.#refreshing;
  }

  async #connect(): Promise<void> {
    if (this.#stopped) {
      return;
    }
    try {
      this.#listener = await this.#listen({
        onChanged: refs => this.#onChanged(refs),
        onSliceStates: states => this.#onSliceStates(states),
        onLost: error => this.#onLost(error),
      });
      await this.#rebuild();
      this.#retryMs = RELISTEN_FIRST_MS;
    } catch (error) {
      await this.#listener?.close().catch(() => {});
      this.#listener = undefined;
      this.#logger.warn(
        `Could not read system health into memory; reads go to the database, trying again in ${
          this.#retryMs / 1000
        } s`,
        error as Error,
      );
      this.#retryLater();
    }
  }

  #retryLater(): void {
    if (this.#stopped) {
      return;
    }
    clearTimeout(this.#retryTimer);
    this.#retryTimer = setTimeout(() => this.#connect(), this.#retryMs);
    this.#retryTimer.unref?.();
    this.#retryMs = Math.min(this.#retryMs * 2, RELISTEN_MAX_MS);
  }

  #onLost(error: Error): void {
    this.#current = false;
    this.#listener = undefined;
    if (this.#stopped) {
      return;
    }
    this.#logger.warn(
      'Lost the connection listening for system changes; reads go to the database until it is back',
      error,
    );
    this.#retryLater();
  }

  #onChanged(systemRefs: readonly string[]): void {
    for (const ref of systemRefs) {
      this.#changed.add(ref.toLowerCase());
    }
    this.#refreshSoon();
  }

  #onSliceStates(states: readonly StoredSliceState[]): void {
    if (this.#rebuilding) {
      for (const state of states) {
        const held = this.#statesDuringRebuild.get(state.sliceId);
        if (!held || !isLaterState(held, state)) {
          this.#statesDuringRebuild.set(state.sliceId, state);
        }
      }
      return;
    }
    this.#putStates(states);
  }

  /**
   * Puts told states in the slices held, a new slices array for each
   * system changed (answers built from the old one are rebuilt). A state
   * of a slice not held (a new slice, or a system not read yet) has its
   * system read instead.
   */
  #putStates(states: readonly StoredSliceState[]): void {
    const bySystem = new Map<string, Map<string, StoredSliceState>>();
    for (const state of states) {
      const ref = state.systemRef.toLowerCase();
      const told = bySystem.get(ref) ?? new Map<string, StoredSliceState>();
      const known = told.get(state.sliceId);
      if (!known || !isLaterState(known, state)) {
        told.set(state.sliceId, state);
      }
      bySystem.set(ref, told);
    }
    for (const [ref, told] of bySystem) {
      const view = this.#systems.get(ref);
      const held = view?.slices ?? [];
      let slices: EnvironmentSlice[] | undefined;
      let found = 0;
      for (let index = 0; index < held.length; index++) {
        const slice = held[index];
        const state = told.get(slice.sliceId);
        if (!state) {
          continue;
        }
        found++;
        if (!slice.state || !isLaterState(slice.state, state)) {
          slices ??= [...held];
          slices[index] = { ...slice, state };
        }
      }
      if (view && slices) {
        this.#systems.set(ref, { ...view, slices });
      }
      if (found < told.size) {
        this.#changed.add(ref);
      }
    }
    this.#refreshSoon();
  }

  /** Reads every system again and swaps the map, then the changes since. */
  async #rebuild(): Promise<void> {
    this.#rebuilding = true;
    try {
      // A refresh under way would write into the map about to be replaced.
      await this.#refreshing;
      // Changes told from here on are read after the swap; older ones are
      // in what the rebuild reads.
      this.#changed.clear();
      const systems = new Map<string, SystemView>();
      let after: string | undefined;
      for (;;) {
        const page = await this.#store.listSystemsPage(after, SYSTEMS_PER_READ);
        if (page.length === 0) {
          break;
        }
        const { slices, rollups } = await this.#store.readSystemsBetween(
          page[0],
          page[page.length - 1],
        );
        for (const ref of page) {
          systems.set(ref, {
            rollup: rollups.get(ref)?.rollup,
            slices: [],
          });
        }
        for (const slice of slices) {
          systems.get(slice.systemRef)?.slices.push(slice);
        }
        after = page[page.length - 1];
      }
      this.#systems = systems;
    } finally {
      this.#rebuilding = false;
      const told = [...this.#statesDuringRebuild.values()];
      this.#statesDuringRebuild.clear();
      this.#putStates(told);
    }
    this.#current = this.#listener !== undefined;
    this.#refreshSoon();
    this.#logger.info(
      `System health in memory: ${this.size.systems} systems, ${this.size.slices} slices`,
    );
  }

  #refreshSoon(): void {
    // Stopped, a drain ends at once with changes left: starting another
    // would loop through microtasks for good.
    if (
      this.#stopped ||
      this.#refreshing ||
      this.#rebuilding ||
      this.#changed.size === 0
    ) {
      return;
    }
    this.#refreshing = this.#drain().finally(() => {
      this.#refreshing = undefined;
      this.#refreshSoon();
    });
  }

  /** Reads the changed systems, a batch at a time, until none is left. */
  async #drain(): Promise<void> {
    while (this.#changed.size > 0 && !this.#rebuilding && !this.#stopped) {
      // What comes in meanwhile is read with them.
      const wait = this.#lastReadAt + this.#readSpacingMs - performance.now();
      if (wait > 0) {
        await new Promise(resolve => setTimeout(resolve, wait));
        continue;
      }
      this.#lastReadAt = performance.now();
      const refs = [...this.#changed].slice(0, SYSTEMS_PER_READ);
      refs.forEach(ref => this.#changed.delete(ref));
      // Taken before the read: a rollup read as unchanged is this one.
      const before = new Map(refs.map(ref => [ref, this.#systems.get(ref)]));
      try {
        const [rollups, slices] = await Promise.all([
          this.#store.readRollupsUnlessKnown(
            new Map(refs.map(ref => [ref, before.get(ref)?.rollupDigest])),
          ),
          this.#store.readEnvironmentSlices(
            refs.map(systemRef => ({ systemRef })),
          ),
        ]);
        const slicesOf = new Map<string, EnvironmentSlice[]>();
        for (const slice of slices) {
          const list = slicesOf.get(slice.systemRef) ?? [];
          list.push(slice);
          slicesOf.set(slice.systemRef, list);
        }
        for (const ref of refs) {
          const read = rollups.get(ref);
          const { rollup, rollupDigest } =
            read === 'unchanged'
              ? before.get(ref)!
              : { rollup: read?.rollup, rollupDigest: read?.digest };
          const systemSlices = keepLaterStates(
            slicesOf.get(ref),
            this.#systems.get(ref),
          );
          if (!rollup && !systemSlices) {
            this.#systems.delete(ref);
          } else {
            this.#systems.set(ref, {
              rollup,
              rollupDigest,
              slices: systemSlices ?? [],
            });
          }
        }
      } catch (error) {
        // These systems' changes are unread: not current until they are.
        refs.forEach(ref => this.#changed.add(ref));
        this.#current = false;
        this.#logger.warn(
          'Could not read changed systems into memory; reads go to the database until they are',
          error as Error,
        );
        await new Promise(resolve => {
          const timer = setTimeout(resolve, RELISTEN_FIRST_MS);
          timer.unref?.();
        });
        continue;
      }
      // After a failed read, current again once every change is read.
      if (this.#changed.size === 0 && this.#listener && !this.#rebuilding) {
        this.#current = true;
      }
    }
  }
}

/** Whether `held` follows a later run than `told`: the held one stays. */
function isLaterState(held: StoredSliceState, told: StoredSliceState): boolean {
  return held.lastScheduledAt > told.lastScheduledAt;
}

/**
 * A system's slices as just read, with the states told meanwhile (held
 * now) where they follow a later run than the read ones.
 */
function keepLaterStates(
  read: EnvironmentSlice[] | undefined,
  held: SystemView | undefined,
): EnvironmentSlice[] | undefined {
  if (!read || !held || held.slices.length === 0) {
    return read;
  }
  const heldStates = new Map(
    held.slices.map(slice => [slice.sliceId, slice.state]),
  );
  return read.map(slice => {
    const state = heldStates.get(slice.sliceId);
    return state && (!slice.state || isLaterState(state, slice.state))
      ? { ...slice, state }
      : slice;
  });
}
