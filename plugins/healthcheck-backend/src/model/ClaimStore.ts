import type { DueTick, ScheduledSlice } from '../scheduler';
import type { RunnableSlice, RunRecord } from './runs';

/**
 * One tick to claim: a slice at one grid time.
 *
 * @internal
 */
export interface TickKey {
  readonly sliceId: string;
  /** The grid time of the tick (epoch ms). */
  readonly scheduledAt: number;
}

/**
 * What is written into a claimed run once its probe has finished. A
 * `RunRecord` from the slice runner fits as it is.
 *
 * @internal
 */
export type CompletedRun = Pick<
  RunRecord,
  | 'sliceId'
  | 'scheduledAt'
  | 'startedAt'
  | 'durationMs'
  | 'outcome'
  | 'status'
  | 'conditions'
  | 'error'
  | 'lane'
  | 'timeoutMs'
>;

/**
 * A run row of one slice as a claim: who took it, when, and whether its
 * result is in.
 *
 * @internal
 */
export interface SliceClaim {
  readonly scheduledAt: number;
  readonly claimedBy: string;
  readonly claimedAt: number;
  readonly completed: boolean;
}

/**
 * The run rows that serve as claims, and the instances that share the
 * database.
 *
 * @internal
 */
export interface ClaimStore {
  /**
   * Whether several backend instances may share this database (PostgreSQL).
   * On SQLite one instance runs every slice.
   */
  readonly isShared: boolean;

  /**
   * Claims the ticks for one instance by inserting their run rows, one
   * statement per batch. Returns those of the given ticks (the same objects)
   * whose rows this call inserted; a tick whose row already exists was
   * claimed before, by another instance or an earlier life of this one, and
   * is left out.
   */
  claimTicks<TTick extends TickKey>(
    instanceId: string,
    ticks: ReadonlyArray<TTick>,
    claimedAt: number,
  ): Promise<TTick[]>;

  /**
   * Gives back ticks this instance claimed but did not probe (the bulkhead
   * deferred them), so they leave no run behind. Completed runs stay.
   *
   * @returns how many claims were given back
   */
  releaseClaims(
    instanceId: string,
    ticks: ReadonlyArray<TickKey>,
  ): Promise<number>;

  /**
   * The claims of one slice with grid times from `from` to `to` (both
   * included), oldest first: a few rows of its primary-key range.
   */
  readSliceClaims(
    sliceId: string,
    from: number,
    to: number,
  ): Promise<SliceClaim[]>;

  /**
   * Writes finished runs, in one round trip a chunk: a claimed row still
   * without a result is filled in, and a run probed without a claim (the
   * database was away; see the outage journal) has its row inserted with
   * its result. A row that has a result keeps it, so a tick that another
   * instance also ran keeps one result.
   *
   * @returns how many rows were inserted or filled in
   */
  writeRuns(
    instanceId: string,
    runs: ReadonlyArray<CompletedRun>,
    writtenAt: number,
  ): Promise<number>;

  /** Records that the instance is alive at `now`, creating its row if need be. */
  heartbeat(instanceId: string, now: number): Promise<void>;

  /** Ids of the instances whose last heartbeat is younger than `ttlMs`, sorted. */
  liveInstances(now: number, ttlMs: number): Promise<string[]>;

  /** Forgets an instance that stops. */
  removeInstance(instanceId: string): Promise<void>;

  /**
   * Forgets instances silent for `ttlMs` or longer: ones that died without
   * stopping.
   *
   * @returns how many were removed
   */
  removeExpiredInstances(now: number, ttlMs: number): Promise<number>;
}

/**
 * Where ticks are claimed when several instances share the work: only a tick
 * this instance claimed runs, a deferred one is given back, and a finished
 * one has its result written into its claimed run.
 */
export interface TickClaims {
  /** Of these ticks (keyed by `claimKeyAt`), the ones this instance won. */
  claim<T extends DueTick<ScheduledSlice>>(
    ticks: ReadonlyArray<T>,
  ): Promise<T[]>;
  release(
    ticks: ReadonlyArray<{ sliceId: string; scheduledAt: number }>,
  ): Promise<void>;
  complete(record: RunRecord): Promise<void>;
  /**
   * A run of the slice now, on this instance whichever owns the slice: its
   * claim under `at`, or the run of the slice under way on any instance (to
   * join, not to run beside). A claimed run holds the slice's ticks that
   * could fall due while it runs, until `releaseHolds`.
   */
  claimNow(slice: RunnableSlice, at: number): Promise<ClaimedRunNow>;
}

/** See {@link TickClaims.claimNow}. */
export interface ClaimedRunNow {
  /** The run's grid time: `at` when claimed, the joined run's otherwise. */
  readonly scheduledAt: number;
  readonly claimed: boolean;
  /** Gives back the ticks held while the run ran; never rejects. */
  releaseHolds(): Promise<void>;
}
