import type { LoggerService } from '@backstage/backend-plugin-api';
import type { EventsService } from '@backstage/plugin-events-node';
import {
  CATALOG_CHANGES_TOPIC,
  readCatalogChangeEvent,
} from '@vigil/plugin-healthcheck-node';
import type { Reconciler } from './Reconciler';

/** Above this many systems waiting, one full pass is cheaper than scoped ones. */
const DEFAULT_FULL_PASS_ABOVE = 500;

/** Systems waiting for one of the listener's passes. */
class PendingSystems {
  readonly #limit: number;
  #systems = new Set<string>();
  #all = false;

  constructor(limit: number) {
    this.#limit = limit;
  }

  add(systems: readonly string[], all: boolean): void {
    if (this.#all) {
      return;
    }
    for (const system of systems) {
      this.#systems.add(system);
    }
    if (all || this.#systems.size > this.#limit) {
      this.#all = true;
      this.#systems.clear();
    }
  }

  /** What waits, emptied: `all` or the systems. */
  take(): 'all' | string[] {
    const taken = this.#all ? 'all' : [...this.#systems];
    this.#all = false;
    this.#systems = new Set();
    return taken;
  }
}

/**
 * Re-derives the slices of the systems that Vigil's catalog module says
 * changed ({@link CATALOG_CHANGES_TOPIC}), in seconds instead of at the next
 * catalog poll, which stays as the fallback (and finds deletions, which the
 * module cannot see). The module speaks while the catalog processes an
 * entity, before the catalog has stitched what it serves, so each system is
 * reconciled after `settleMs` and once more after `recheckMs`; hints that
 * arrive meanwhile join the waiting pass, and past `fullPassAbove` systems
 * (or for an Environment) the pass is a full one. A payload that is not a
 * change is logged and dropped: any plugin may publish on any topic.
 * @internal
 */
export class CatalogChangeListener {
  readonly #reconciler: Pick<Reconciler, 'reconcileSystems' | 'reconcileAll'>;
  readonly #logger: LoggerService;
  readonly #onSlicesChanged: () => void;
  readonly #passes: Array<{
    delayMs: number;
    pending: PendingSystems;
    timer?: ReturnType<typeof setTimeout>;
  }>;
  #stopped = false;

  constructor(options: {
    reconciler: Pick<Reconciler, 'reconcileSystems' | 'reconcileAll'>;
    logger: LoggerService;
    /** After a pass changed slices: the scheduler reads them at once. */
    onSlicesChanged?: () => void;
    settleMs?: number;
    recheckMs?: number;
    fullPassAbove?: number;
  }) {
    this.#reconciler = options.reconciler;
    this.#logger = options.logger;
    this.#onSlicesChanged = options.onSlicesChanged ?? (() => {});
    const limit = options.fullPassAbove ?? DEFAULT_FULL_PASS_ABOVE;
    this.#passes = [options.settleMs ?? 2_000, options.recheckMs ?? 15_000].map(
      delayMs => ({ delayMs, pending: new PendingSystems(limit) }),
    );
  }

  async subscribe(events: EventsService): Promise<void> {
    await events.subscribe({
      id: 'healthcheck-catalog-changes',
      topics: [CATALOG_CHANGES_TOPIC],
      onEvent: async ({ eventPayload }) => this.hear(eventPayload),
    });
  }

  /** Takes one event's payload; the passes it asks for run later. */
  hear(payload: unknown): void {
    if (this.#stopped) {
      return;
    }
    const read = readCatalogChangeEvent(payload);
    if ('problem' in read) {
      this.#logger.warn(
        `Ignored an event on ${CATALOG_CHANGES_TOPIC}: ${read.problem}`,
      );
      return;
    }
    const { systems, allSystems = false } = read.event;
    if (systems.length === 0 && !allSystems) {
      return;
    }
    for (const pass of this.#passes) {
      pass.pending.add(systems, allSystems);
      pass.timer ??= setTimeout(() => {
        pass.timer = undefined;
        void this.#run(pass.pending.take());
      }, pass.delayMs);
    }
  }

  async #run(scope: 'all' | string[]): Promise<void> {
    if (this.#stopped) {
      return;
    }
    try {
      const outcome =
        scope === 'all'
          ? await this.#reconciler.reconcileAll()
          : await this.#reconciler.reconcileSystems(scope);
      if (outcome.changedSystems.length > 0) {
        this.#onSlicesChanged();
      }
    } catch (error) {
      // The poll and the full pass come round and find it.
      this.#logger.warn(
        `Could not reconcile the systems the catalog said changed: ${error}`,
      );
    }
  }

  stop(): void {
    this.#stopped = true;
    for (const pass of this.#passes) {
      clearTimeout(pass.timer);
      pass.timer = undefined;
      pass.pending.take();
    }
  }
}
