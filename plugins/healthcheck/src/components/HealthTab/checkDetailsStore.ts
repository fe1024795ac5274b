import { CheckDetails } from '@vigil/plugin-healthcheck-common';
import { createContext, useContext, useEffect, useState } from 'react';

/** What the store knows of one check. */
export type CheckDetailsState =
  | { status: 'idle' }
  | { status: 'loading' }
  | { status: 'loaded'; value: CheckDetails }
  | { status: 'error'; error: Error };

const IDLE: CheckDetailsState = { status: 'idle' };

/**
 * The details of each check once, for the whole Health tab: results are
 * cached (live refreshes of the matrix do not ask again). With `loadAll`,
 * the first request asks for every check of the system in one call, and
 * only the checks it did not answer are then loaded one by one; of those,
 * at most `concurrency` requests are in flight, so 20 rows do not fire 20
 * requests at once. A request asked with `priority` (an opened cell) jumps
 * the queue.
 */
export class CheckDetailsStore {
  readonly #load: (checkId: string) => Promise<CheckDetails>;
  readonly #loadAll?: () => Promise<CheckDetails[]>;
  /** Whether `loadAll` is yet to run, running, or done (or absent). */
  #all: 'ahead' | 'running' | 'done';
  readonly #concurrency: number;
  readonly #states = new Map<string, CheckDetailsState>();
  readonly #listeners = new Set<() => void>();
  readonly #queue: string[] = [];
  #inFlight = 0;

  constructor(
    load: (checkId: string) => Promise<CheckDetails>,
    options: {
      concurrency?: number;
      loadAll?: () => Promise<CheckDetails[]>;
    } = {},
  ) {
    this.#load = load;
    this.#loadAll = options.loadAll;
    this.#all = options.loadAll ? 'ahead' : 'done';
    this.#concurrency = options.concurrency ?? 3;
  }

  get(checkId: string): CheckDetailsState {
    return this.#states.get(checkId) ?? IDLE;
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  /** Queues a load unless the check is loaded or loading; a failed one is retried. */
  request(checkId: string, options: { priority?: boolean } = {}): void {
    const state = this.get(checkId);
    if (state.status === 'loaded' || state.status === 'loading') {
      return;
    }
    const queued = this.#queue.indexOf(checkId);
    if (queued >= 0) {
      if (options.priority && queued > 0) {
        this.#queue.splice(queued, 1);
        this.#queue.unshift(checkId);
      }
      return;
    }
    if (options.priority) {
      this.#queue.unshift(checkId);
    } else {
      this.#queue.push(checkId);
    }
    this.#pump();
  }

  #set(checkId: string, state: CheckDetailsState) {
    this.#states.set(checkId, state);
    for (const listener of [...this.#listeners]) {
      listener();
    }
  }

  #loadAllFirst() {
    this.#all = 'running';
    let all: Promise<CheckDetails[]>;
    try {
      all = this.#loadAll!();
    } catch (error) {
      all = Promise.reject(error);
    }
    all
      .then(
        items => {
          for (const value of items) {
            // The matrix names checks by canonical (lower-case) id.
            for (const id of new Set([value.id, value.id.toLowerCase()])) {
              if (this.get(id).status !== 'loaded') {
                const queued = this.#queue.indexOf(id);
                if (queued >= 0) {
                  this.#queue.splice(queued, 1);
                }
                this.#set(id, { status: 'loaded', value });
              }
            }
          }
        },
        // Each check is then asked for on its own.
        () => undefined,
      )
      .finally(() => {
        this.#all = 'done';
        this.#pump();
      });
  }

  #pump() {
    if (this.#all === 'ahead') {
      this.#loadAllFirst();
    }
    if (this.#all === 'running') {
      return;
    }
    while (this.#inFlight < this.#concurrency && this.#queue.length > 0) {
      const checkId = this.#queue.shift()!;
      this.#inFlight += 1;
      this.#set(checkId, { status: 'loading' });
      this.#load(checkId)
        .then(
          value => this.#set(checkId, { status: 'loaded', value }),
          error =>
            this.#set(checkId, {
              status: 'error',
              error: error instanceof Error ? error : new Error(String(error)),
            }),
        )
        .finally(() => {
          this.#inFlight -= 1;
          this.#pump();
        });
    }
  }
}

export const CheckDetailsContext = createContext<CheckDetailsStore | undefined>(
  undefined,
);

/**
 * The details of a check from the tab's store. With `load`, asks for them
 * (after the first paint, since effects run after it); without, only reads
 * what another part of the tab loaded.
 */
export function useCheckDetails(
  checkId: string,
  options: { load?: boolean; priority?: boolean } = {},
): { state: CheckDetailsState; retry: () => void } {
  const store = useContext(CheckDetailsContext);
  const [state, setState] = useState<CheckDetailsState>(
    () => store?.get(checkId) ?? IDLE,
  );
  const { load = false, priority = false } = options;

  useEffect(() => {
    if (!store) {
      return undefined;
    }
    setState(store.get(checkId));
    const unsubscribe = store.subscribe(() => setState(store.get(checkId)));
    if (load) {
      store.request(checkId, { priority });
    }
    return unsubscribe;
  }, [store, checkId, load, priority]);

  return {
    state,
    retry: () => store?.request(checkId, { priority: true }),
  };
}

/** The check's title when known, else its short name. */
export function checkTitleOf(
  state: CheckDetailsState,
  fallback: string,
): string {
  return state.status === 'loaded' && state.value.title
    ? state.value.title
    : fallback;
}
