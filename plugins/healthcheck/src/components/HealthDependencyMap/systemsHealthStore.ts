import { SignalApi } from '@backstage/plugin-signals-react';
import {
  SYSTEM_STATUS_SIGNAL_CHANNEL,
  SystemHealthSummary,
} from '@vigil/plugin-healthcheck-common';
import { HealthcheckApi } from '../../api/HealthcheckApi';
import { liveKeyOf, POLL_INTERVAL_MS } from '../../hooks';

/** Requests under way at once, at most; the rest wait their turn. */
export const MAX_CONCURRENT_REQUESTS = 6;
/** How long a system nobody shows stays known, for a graph that redraws. */
export const FORGET_AFTER_MS = 5_000;

/** What the store knows of one system's health. */
export interface SystemHealthSnapshot {
  /** Whether the backend answered; `rollup` is then the answer. */
  loaded: boolean;
  /** `undefined` once loaded: a system the backend does not know (no checks). */
  rollup?: SystemHealthSummary;
  error?: Error;
}

const NOT_LOADED: SystemHealthSnapshot = { loaded: false };

interface Entry {
  snapshot: SystemHealthSnapshot;
  listeners: Set<() => void>;
  /** A request for it is under way, or waiting its turn. */
  requested: boolean;
  /** Asked again while requested: the answer under way may be older. */
  requestAgain: boolean;
  forgetTimer?: ReturnType<typeof setTimeout>;
}

/**
 * The health of the systems that graph nodes show, shared by all the nodes
 * of an app however many graphs draw them, so a node can be a stock graph's
 * `renderNode` without a provider around the graph. Each system is asked
 * for once (at most six requests at once) whatever the catalog's size, and
 * only while shown: it is forgotten {@link FORGET_AFTER_MS} after its last
 * node went. Live while any node is shown: a system reloads when the backend
 * signals its status changed, and every {@link POLL_INTERVAL_MS} without
 * signals.
 */
export class SystemsHealthStore {
  private readonly entries = new Map<string, Entry>();
  private readonly queue: string[] = [];
  private running = 0;
  private readonly errorListeners = new Set<() => void>();
  private stopLive?: () => void;

  constructor(
    private readonly api: Pick<HealthcheckApi, 'getSystem'>,
    private readonly signalApi: SignalApi | undefined,
  ) {}

  /** Listens to one system's health (a canonical ref, lower case). */
  subscribe(systemRef: string, listener: () => void): () => void {
    let entry = this.entries.get(systemRef);
    if (!entry) {
      entry = {
        snapshot: NOT_LOADED,
        listeners: new Set(),
        requested: false,
        requestAgain: false,
      };
      this.entries.set(systemRef, entry);
      this.request(systemRef);
    }
    clearTimeout(entry.forgetTimer);
    entry.listeners.add(listener);
    this.startLive();
    const shown = entry;
    return () => {
      shown.listeners.delete(listener);
      if (shown.listeners.size === 0) {
        shown.forgetTimer = setTimeout(
          () => this.forget(systemRef),
          FORGET_AFTER_MS,
        );
      }
    };
  }

  getSnapshot(systemRef: string): SystemHealthSnapshot {
    return this.entries.get(systemRef)?.snapshot ?? NOT_LOADED;
  }

  /** The first error of a shown system, if any; to offer a retry. */
  readonly getError = (): Error | undefined => {
    for (const entry of this.entries.values()) {
      if (entry.snapshot.error) return entry.snapshot.error;
    }
    return undefined;
  };

  readonly subscribeToErrors = (listener: () => void): (() => void) => {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  };

  /** Asks again for every system whose request failed. */
  readonly retryFailed = (): void => {
    for (const [systemRef, entry] of this.entries) {
      if (entry.snapshot.error) this.request(systemRef);
    }
  };

  /** Asks for a system's health; asked during a request, once more after it. */
  private request(systemRef: string) {
    const entry = this.entries.get(systemRef);
    if (!entry) return;
    if (entry.requested) {
      entry.requestAgain = true;
      return;
    }
    entry.requested = true;
    this.queue.push(systemRef);
    this.next();
  }

  private next() {
    while (this.running < MAX_CONCURRENT_REQUESTS && this.queue.length > 0) {
      const systemRef = this.queue.shift()!;
      if (!this.entries.has(systemRef)) continue;
      this.running += 1;
      this.api.getSystem(systemRef).then(
        rollup => this.settle(systemRef, { loaded: true, rollup }),
        error =>
          this.settle(systemRef, { loaded: false, error: asError(error) }),
      );
    }
  }

  private settle(systemRef: string, snapshot: SystemHealthSnapshot) {
    this.running -= 1;
    const entry = this.entries.get(systemRef);
    if (entry) {
      const errorChanged =
        Boolean(entry.snapshot.error) !== Boolean(snapshot.error);
      entry.snapshot = snapshot;
      entry.requested = false;
      entry.listeners.forEach(listener => listener());
      if (errorChanged) this.errorListeners.forEach(listener => listener());
      if (entry.requestAgain) {
        entry.requestAgain = false;
        this.request(systemRef);
      }
    }
    this.next();
  }

  private forget(systemRef: string) {
    const entry = this.entries.get(systemRef);
    if (!entry || entry.listeners.size > 0) return;
    this.entries.delete(systemRef);
    if (entry.snapshot.error)
      this.errorListeners.forEach(listener => listener());
    if (this.entries.size === 0) {
      this.stopLive?.();
      this.stopLive = undefined;
    }
  }

  private startLive() {
    if (this.stopLive) return;
    if (!this.signalApi) {
      const timer = setInterval(() => {
        for (const systemRef of this.entries.keys()) this.request(systemRef);
      }, POLL_INTERVAL_MS);
      this.stopLive = () => clearInterval(timer);
      return;
    }
    // A key of no system shown is one of a system this user cannot see, or
    // one not drawn: nothing to reload. A first answer still to come may be
    // older than the change, so it is asked for once more.
    const { unsubscribe } = this.signalApi.subscribe(
      SYSTEM_STATUS_SIGNAL_CHANNEL,
      message => {
        const liveKey = liveKeyOf(message);
        if (!liveKey) return;
        for (const [systemRef, entry] of this.entries) {
          const firstAnswerToCome = entry.requested && !entry.snapshot.loaded;
          if (firstAnswerToCome || entry.snapshot.rollup?.liveKey === liveKey) {
            this.request(systemRef);
          }
        }
      },
    );
    this.stopLive = unsubscribe;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
