import { SignalApi } from '@backstage/plugin-signals-react';
import {
  SYSTEM_STATUS_SIGNAL_CHANNEL,
  SystemHealthSummary,
  SystemListResponse,
} from '@vigil/plugin-healthcheck-common';
import { HealthcheckApi } from '../../api/HealthcheckApi';
import { listConcerns, liveKeyOf, POLL_INTERVAL_MS } from '../../hooks';

/** The most systems one request may list; the backend's page limit. */
export const SYSTEMS_LIMIT = 500;

/** What the store knows of the systems' health at one moment. */
export interface SystemsHealthSnapshot {
  /** Whether a list was loaded; false before the first answer and after an error. */
  loaded: boolean;
  /** Whether the list holds every system, so a missing one has no checks. */
  complete: boolean;
  /** The rollup of a system (canonical ref, lower case), if the list has it. */
  rollupOf(systemRef: string): SystemHealthSummary | undefined;
  error?: Error;
}

const NOT_LOADED: SystemsHealthSnapshot = {
  loaded: false,
  complete: false,
  rollupOf: () => undefined,
};

function snapshotOf(list: SystemListResponse): SystemsHealthSnapshot {
  const bySystemRef = new Map(
    list.items.map(item => [item.systemRef.toLowerCase(), item]),
  );
  return {
    loaded: true,
    complete: !list.nextCursor,
    rollupOf: systemRef => bySystemRef.get(systemRef),
  };
}

/**
 * The health of every system (one request of up to 500), shared by all the
 * graph nodes of an app however many graphs draw them, so a node can be a
 * stock graph's `renderNode` without a provider around the graph. Live while
 * anyone listens: it reloads when the backend signals a status change of a
 * system the list may show, or every {@link POLL_INTERVAL_MS} without
 * signals; it stops listening when the last listener leaves and keeps the
 * last answer to show at once when one comes back (reloading it then).
 */
export class SystemsHealthStore {
  private snapshot = NOT_LOADED;
  private list?: SystemListResponse;
  private readonly listeners = new Set<() => void>();
  private stopLive?: () => void;
  private loading = false;
  /** A reload asked for while one was under way: its answer may be older. */
  private reloadAgain = false;

  constructor(
    private readonly api: Pick<HealthcheckApi, 'listSystems'>,
    private readonly signalApi: SignalApi | undefined,
  ) {}

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    if (this.listeners.size === 1) {
      this.startLive();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) {
        this.stopLive?.();
        this.stopLive = undefined;
      }
    };
  };

  readonly getSnapshot = (): SystemsHealthSnapshot => this.snapshot;

  /** Loads the list again; asked during a load, once more after it. */
  readonly reload = (): void => {
    if (this.loading) {
      this.reloadAgain = true;
      return;
    }
    this.loading = true;
    this.api.listSystems({ limit: SYSTEMS_LIMIT }).then(
      list => {
        this.list = list;
        this.settle(snapshotOf(list));
      },
      error => {
        this.list = undefined;
        this.settle({ ...NOT_LOADED, error: asError(error) });
      },
    );
  };

  private settle(snapshot: SystemsHealthSnapshot) {
    this.loading = false;
    this.snapshot = snapshot;
    this.listeners.forEach(listener => listener());
    if (this.reloadAgain) {
      this.reloadAgain = false;
      this.reload();
    }
  }

  private startLive() {
    this.reload();
    if (!this.signalApi) {
      const timer = setInterval(this.reload, POLL_INTERVAL_MS);
      this.stopLive = () => clearInterval(timer);
      return;
    }
    const { unsubscribe } = this.signalApi.subscribe(
      SYSTEM_STATUS_SIGNAL_CHANNEL,
      message => {
        const liveKey = liveKeyOf(message);
        // Without a list (loading, failed) any change may concern it.
        if (
          liveKey !== undefined &&
          (!this.list || listConcerns(this.list, liveKey))
        ) {
          this.reload();
        }
      },
    );
    this.stopLive = unsubscribe;
  }
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
