import { AuthService, LoggerService } from '@backstage/backend-plugin-api';
import { stringifyEntityRef, parseEntityRef } from '@backstage/catalog-model';
import { CatalogService } from '@backstage/plugin-catalog-node';
import { isPausedHeader, pausedHeader } from '../database/DatabaseSliceStore';
import { DerivationMemo } from './derivationMemo';
import type { DesiredSlice, PausedSlice } from '../model';
import {
  CheckSpecValidator,
  LoadedDesiredSlices,
  loadDesiredSlices,
} from './loadDesiredSlices';
import { planReconcile } from './planReconcile';
import type { ReconcileLock } from './ReconcileLock';
import {
  describeSubject,
  problemsBySubject,
  ReportedProblems,
} from './reconcileProblems';
import type { DesiredSliceSettings } from './reconcileSettings';
import type { SliceStore, SliceWrite, StoredSliceHeader } from '../model';

/**
 * Subjects (systems, checks) whose problems one pass logs one by one; the
 * rest are counted, so one broken fleet-wide check does not flood the log.
 */
const MAX_SUBJECTS_LOGGED = 20;

/**
 * Systems that scoped passes waiting for the lock may name together. More
 * would make the pass that converges them as long as a full pass, so they
 * wait for one instead.
 */
const MAX_QUEUED_SYSTEMS = 1_000;

/** The first and the longest wait before trying a lock another instance holds again. */
const LOCK_RETRY_FIRST_MS = 100;
const LOCK_RETRY_MAX_MS = 2_000;

/**
 * The wait before the `attempt`th (from 0) try of a lock another instance
 * holds: doubling from 100 ms up to 2 s. A pass of this instance's own
 * wakes the waiter as soon as it ends.
 * @internal
 */
export function lockRetryDelayMs(attempt: number): number {
  return Math.min(LOCK_RETRY_FIRST_MS * 2 ** attempt, LOCK_RETRY_MAX_MS);
}

/**
 * What the waiting pass converges once a system more is asked for: the
 * systems, or every system (a full pass) past `maxSystems` of them.
 * @internal
 */
export function joinWaitingPass(
  waiting: ReadonlySet<string> | 'full',
  systemRefs: readonly string[],
  maxSystems: number,
): ReadonlySet<string> | 'full' {
  if (waiting === 'full') {
    return 'full';
  }
  const joined = new Set([...waiting, ...systemRefs]);
  return joined.size > maxSystems ? 'full' : joined;
}

/** A pass waiting for the lock, and the callers that wait for its outcome. */
interface WaitingPass {
  scope: ReadonlySet<string> | 'full';
  outcome: Promise<ReconcileOutcome>;
  resolve(outcome: ReconcileOutcome): void;
  reject(error: unknown): void;
}

/**
 * What one pass did.
 * @internal
 */
export interface ReconcileOutcome {
  /** `full`, or the systems a scoped pass covered. */
  scope: 'full' | string[];
  /** False when another pass held the lock and this full pass stood down. */
  ran: boolean;
  scheduled: number;
  rescheduled: number;
  cancelled: number;
  /** The systems whose slices the pass wrote or removed, sorted. */
  changedSystems: string[];
  /** The slice revision after the pass. */
  revision: number;
}

/**
 * The convergence reconciler: reads what should exist (catalog and stored
 * checks), compares it with the stored desired slices, and writes the
 * difference, one pass at a time across all instances. A full pass covers
 * every system and sweeps orphans; a scoped pass touches only the slices of
 * the systems it names.
 *
 * Scoped passes (edits, catalog changes) never fail for waiting: asked for
 * while a pass holds the lock, they wait together as one pass for the
 * systems they name, which runs as soon as the lock is free: at once after
 * a pass of this instance, within 2 s after another instance's.
 *
 * @internal
 */
export class Reconciler {
  readonly #catalog: CatalogService;
  readonly #auth: AuthService;
  readonly #logger: LoggerService;
  readonly #listStoredChecks: () => Promise<
    Array<{ id: string; spec: object }>
  >;
  readonly #slices: SliceStore;
  readonly #lock: ReconcileLock;
  readonly #onSystemsChanged?: (systemRefs: string[]) => Promise<void>;
  readonly #validateSpec?: CheckSpecValidator;
  readonly #validateSlice?: (
    slice: DesiredSlice,
  ) => Array<{ path: string; reason: string }>;
  readonly #settings?: DesiredSliceSettings;
  readonly #problems = new ReportedProblems();
  /** What the last full pass derived: unchanged checks are not derived again. */
  readonly #memo = new DerivationMemo();
  /**
   * The revision the last full pass left the stored slices at, once its
   * write succeeded: they were then exactly what it derived.
   */
  #convergedAt: number | undefined;
  /** The scoped pass waiting for the lock, which later asks join. */
  #waiting: WaitingPass | undefined;
  #draining = false;
  /** Wakes the drain when a pass of this instance lets the lock go. */
  #wakeDrain: (() => void) | undefined;

  constructor(options: {
    catalog: CatalogService;
    auth: AuthService;
    logger: LoggerService;
    listStoredChecks: () => Promise<Array<{ id: string; spec: object }>>;
    slices: SliceStore;
    lock: ReconcileLock;
    /**
     * After a pass (full or scoped) changed slices, once it has let the
     * lock go: the systems it changed, whose health may have moved (an
     * environment or a failing slice removed).
     */
    onSystemsChanged?: (systemRefs: string[]) => Promise<void>;
    /** Judges every check before its slices are derived; see `loadDesiredSlices`. */
    validateSpec?: CheckSpecValidator;
    /** Judges every slice as rendered; see `loadDesiredSlices`. */
    validateSlice?: (
      slice: DesiredSlice,
    ) => Array<{ path: string; reason: string }>;
    /** Who may add environments, and how targets render; the safe defaults without. */
    settings?: DesiredSliceSettings;
  }) {
    this.#settings = options.settings;
    this.#validateSpec = options.validateSpec;
    this.#validateSlice = options.validateSlice;
    this.#onSystemsChanged = options.onSystemsChanged;
    this.#catalog = options.catalog;
    this.#auth = options.auth;
    this.#logger = options.logger;
    this.#listStoredChecks = options.listStoredChecks;
    this.#slices = options.slices;
    this.#lock = options.lock;
  }

  /**
   * Converges every slice. Stands down when another pass holds the lock:
   * the periodic full pass will come round again.
   */
  async reconcileAll(): Promise<ReconcileOutcome> {
    const attempt = await this.#lock
      .tryWith(() => this.#fullPass())
      .finally(() => this.#wakeDrain?.());
    if (!attempt.ran) {
      this.#logger.debug('Full reconcile skipped: another pass holds the lock');
      return {
        scope: 'full',
        ran: false,
        scheduled: 0,
        rescheduled: 0,
        cancelled: 0,
        changedSystems: [],
        revision: -1,
      };
    }
    await this.#afterPass(attempt.value);
    return attempt.value;
  }

  /**
   * Converges the slices of the given systems (entity refs, any case) and
   * leaves every other slice alone. Waits, however long, for a pass in
   * progress; scoped passes asked for meanwhile run as one, so the outcome
   * may cover more systems than these (or all, past 1,000 of them).
   * @throws what the pass itself threw (the catalog or the database
   *   failed), never for waiting.
   */
  async reconcileSystems(
    systemRefs: readonly string[],
  ): Promise<ReconcileOutcome> {
    const refs = systemRefs.flatMap(ref => {
      try {
        return [stringifyEntityRef(parseEntityRef(ref)).toLowerCase()];
      } catch {
        return []; // names no system, so it has no slices either
      }
    });
    if (this.#waiting) {
      this.#waiting.scope = joinWaitingPass(
        this.#waiting.scope,
        refs,
        MAX_QUEUED_SYSTEMS,
      );
    } else {
      let resolve!: WaitingPass['resolve'];
      let reject!: WaitingPass['reject'];
      const outcome = new Promise<ReconcileOutcome>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      this.#waiting = {
        scope: joinWaitingPass(new Set(), refs, MAX_QUEUED_SYSTEMS),
        outcome,
        resolve,
        reject,
      };
    }
    const { outcome } = this.#waiting;
    void this.#drain();
    return await outcome;
  }

  /**
   * Runs the waiting pass whenever the lock is free, until none waits.
   * One drain at a time per instance.
   */
  async #drain(): Promise<void> {
    if (this.#draining) {
      return;
    }
    this.#draining = true;
    try {
      let tries = 0;
      while (this.#waiting) {
        let pass: WaitingPass | undefined;
        let attempt;
        try {
          attempt = await this.#lock.tryWith(async () => {
            // Whoever asked until now joins this pass; later asks wait.
            pass = this.#waiting!;
            this.#waiting = undefined;
            return pass.scope === 'full'
              ? await this.#fullPass()
              : await this.#scopedPass([...pass.scope].sort());
          });
        } catch (error) {
          // The pass failed, or the lock could not be asked for.
          (pass ?? this.#takeWaiting())?.reject(error);
          continue;
        }
        if (attempt.ran) {
          tries = 0;
          await this.#afterPass(attempt.value);
          pass!.resolve(attempt.value);
          continue;
        }
        await this.#lockMayBeFree(lockRetryDelayMs(tries++));
      }
    } finally {
      this.#draining = false;
    }
  }

  #takeWaiting(): WaitingPass | undefined {
    const pass = this.#waiting;
    this.#waiting = undefined;
    return pass;
  }

  /** Resolves when a pass of this instance ends, or after `ms`. */
  async #lockMayBeFree(ms: number): Promise<void> {
    await new Promise<void>(resolve => {
      const timer = setTimeout(wake, ms);
      // A wait for another instance's pass keeps no process alive.
      timer.unref?.();
      function wake() {
        clearTimeout(timer);
        resolve();
      }
      this.#wakeDrain = wake;
    });
    this.#wakeDrain = undefined;
  }

  async #fullPass(): Promise<ReconcileOutcome> {
    // Until this pass has written, the stored slices are not known to be
    // what the memo last derived.
    const convergedAt = this.#convergedAt;
    this.#convergedAt = undefined;
    const loaded = await this.#load(undefined);
    if (
      loaded.reuse?.unchanged &&
      convergedAt !== undefined &&
      (await this.#slices.readRevision()) === convergedAt
    ) {
      // The slices derived are the last full pass's, and nothing was
      // written since it wrote them: there is nothing to compare.
      this.#convergedAt = convergedAt;
      this.#logger.debug(
        `Reconciled all systems: nothing changed since revision ${convergedAt}`,
      );
      return {
        scope: 'full',
        ran: true,
        scheduled: 0,
        rescheduled: 0,
        cancelled: 0,
        changedSystems: [],
        revision: convergedAt,
      };
    }
    const current = await this.#slices.listSliceHeaders();
    const outcome = await this.#apply('full', loaded, current);
    this.#convergedAt = outcome.revision;
    return outcome;
  }

  async #scopedPass(systemRefs: string[]): Promise<ReconcileOutcome> {
    const loaded = await this.#load(systemRefs);
    const current = await this.#slices.listSliceHeaders({ systemRefs });
    return await this.#apply(systemRefs, loaded, current);
  }

  /** Tells `onSystemsChanged` what a pass changed; its failure is the sweep's to mend. */
  async #afterPass(outcome: ReconcileOutcome): Promise<void> {
    const systemRefs = outcome.changedSystems;
    if (!this.#onSystemsChanged || systemRefs.length === 0) {
      return;
    }
    await this.#onSystemsChanged(systemRefs).catch(error =>
      this.#logger.warn(
        `Could not update the health of ${describeSystems(
          systemRefs,
        )} after reconciling them; the sweep will`,
        error,
      ),
    );
  }

  async #load(systemRefs: string[] | undefined) {
    const loaded = await loadDesiredSlices({
      catalog: this.#catalog,
      credentials: await this.#auth.getOwnServiceCredentials(),
      listStoredChecks: this.#listStoredChecks,
      systemRefs,
      validateSpec: this.#validateSpec,
      validateSlice: this.#validateSlice,
      settings: this.#settings,
      memo: this.#memo,
    });
    this.#reportProblems(systemRefs ?? 'full', loaded);
    return loaded;
  }

  async #apply(
    scope: 'full' | string[],
    loaded: LoadedDesiredSlices,
    current: StoredSliceHeader[],
  ): Promise<ReconcileOutcome> {
    const desired: Array<StoredSliceHeader & { write: SliceWrite }> = [
      ...loaded.slices.map((slice: DesiredSlice) => ({
        ...slice,
        write: { paused: false as const, slice },
      })),
      ...loaded.paused.map((slice: PausedSlice) => ({
        ...pausedHeader(slice),
        write: { paused: true as const, slice },
      })),
    ];
    // Scoped passes read only their systems' slices, so the planner's own
    // scope filter would find nothing more to leave out.
    const plan = planReconcile({ desired, current });
    const { revision } = await this.#slices.applyChanges({
      write: [
        ...plan.toSchedule.map(s => s.write),
        ...plan.toReschedule.map(r => r.slice.write),
      ],
      remove: plan.toCancel.map(s => s.id),
      pausedNow: plan.toReschedule
        .filter(r => r.slice.write.paused && !isPausedHeader(r.previous))
        .map(r => r.slice.id),
    });
    const outcome: ReconcileOutcome = {
      scope,
      ran: true,
      scheduled: plan.toSchedule.length,
      rescheduled: plan.toReschedule.length,
      cancelled: plan.toCancel.length,
      changedSystems: [
        ...new Set(
          [
            ...plan.toSchedule.map(slice => slice.systemRef),
            ...plan.toReschedule.map(r => r.slice.systemRef),
            ...plan.toCancel.map(slice => slice.systemRef),
          ].map(ref => ref.toLowerCase()),
        ),
      ].sort(),
      revision,
    };
    const changed = outcome.scheduled + outcome.rescheduled + outcome.cancelled;
    this.#logger[changed > 0 ? 'info' : 'debug'](
      `Reconciled ${scope === 'full' ? 'all systems' : scope.join(', ')}: ${
        outcome.scheduled
      } new, ${outcome.rescheduled} changed, ${
        outcome.cancelled
      } removed slices; ${desired.length} in scope${
        loaded.reuse
          ? `; ${loaded.reuse.derived} check-system pairs derived, ${loaded.reuse.reused} as before`
          : ''
      }`,
    );
    return outcome;
  }

  /**
   * What a pass found wrong, per system or check, logged when it changes:
   * a warning with every problem of the subject, or a note that they are
   * gone.
   */
  #reportProblems(scope: 'full' | string[], loaded: LoadedDesiredSlices) {
    const changes = this.#problems.update(scope, problemsBySubject(loaded));
    const found = changes.filter(change => change.problems.length > 0);
    for (const { subject, problems } of found.slice(0, MAX_SUBJECTS_LOGGED)) {
      this.#logger.warn(
        `Reconcile found problems with ${describeSubject(subject)}:\n${problems
          .map(problem => `- ${problem}`)
          .join('\n')}`,
      );
    }
    if (found.length > MAX_SUBJECTS_LOGGED) {
      this.#logger.warn(
        `Reconcile found problems with ${
          found.length - MAX_SUBJECTS_LOGGED
        } more systems and checks, not listed`,
      );
    }
    const gone = changes.filter(change => change.problems.length === 0);
    if (gone.length > 0) {
      this.#logger.info(
        `Reconcile finds no more problems with ${gone
          .slice(0, MAX_SUBJECTS_LOGGED)
          .map(change => describeSubject(change.subject))
          .join(', ')}${
          gone.length > MAX_SUBJECTS_LOGGED
            ? ` and ${gone.length - MAX_SUBJECTS_LOGGED} more`
            : ''
        }`,
      );
    }
  }
}

/** Systems for a log line: the first few by name, the rest counted. */
function describeSystems(systemRefs: readonly string[]): string {
  const named = systemRefs.slice(0, MAX_SUBJECTS_LOGGED).join(', ');
  return systemRefs.length > MAX_SUBJECTS_LOGGED
    ? `${named} and ${systemRefs.length - MAX_SUBJECTS_LOGGED} more systems`
    : named;
}
