import { adaptiveTimeout } from './adaptiveTimeout';
import { admit, type DeferReason, type Lane } from './admit';
import {
  classifySlice,
  EMPTY_SLICE_HISTORY,
  type RecordedRun,
  recordRun,
  type RunSummary,
  type SliceClassification,
  type SliceHistory,
} from './classifySlice';
import {
  ADMISSION_METRICS,
  type AdmissionMetricsRecorder,
  noopAdmissionMetrics,
} from './metrics';
import {
  type AdmissionOptions,
  resolveAdmissionOptions,
  runsKept,
} from './options';

/**
 * One tick of one slice asking to run.
 *
 * @internal
 */
export interface BulkheadRequest {
  readonly sliceId: string;
  /** When the tick fell due (epoch ms); queue wait is measured from here. */
  readonly dueAt: number;
  /** The check's configured timeout in milliseconds. */
  readonly timeoutMs: number;
}

/**
 * The probe itself, given the timeout it must keep.
 *
 * @internal
 */
export type BulkheadWork = (timeoutMs: number) => Promise<RunSummary>;

/** @internal */
export type BulkheadResult =
  | { readonly deferred: DeferReason }
  | {
      readonly deferred?: undefined;
      readonly lane: Lane;
      readonly timeoutMs: number;
      /** Start minus due time, in milliseconds, never negative. */
      readonly queueWaitMs: number;
      readonly run: RecordedRun;
    };

/** @internal */
export interface BulkheadStats {
  /** Runs holding a slot now. */
  readonly inFlight: number;
  readonly inFlightByLane: Readonly<Record<Lane, number>>;
  /** Normal-lane runs admitted and waiting for a slot: the backlog. */
  readonly queueLength: number;
  /** Runs finished (with a summary), by lane. */
  readonly completions: Readonly<Record<Lane, number>>;
  readonly deferrals: Readonly<Record<DeferReason, number>>;
  /** Milliseconds of slot time held by finished runs, by lane. */
  readonly slotTimeMs: Readonly<Record<Lane, number>>;
}

/** @internal */
export interface BulkheadDependencies {
  readonly clock?: { now(): number };
  readonly metrics?: AdmissionMetricsRecorder;
}

interface SliceEntry {
  history: SliceHistory;
  /** Admitted, queued or running, not finished. */
  inFlight: number;
  /** Forgotten while a run was in flight: drop the entry once it ends. */
  forgotten: boolean;
}

interface Job {
  readonly request: BulkheadRequest;
  readonly entry: SliceEntry;
  readonly lane: Lane;
  readonly timeoutMs: number;
  readonly fullTimeout: boolean;
  readonly work: BulkheadWork;
  readonly resolve: (result: BulkheadResult) => void;
  readonly reject: (error: unknown) => void;
}

/** First in, first out, without the cost of `Array.shift` on long queues. */
class JobQueue {
  #items: Array<Job | undefined> = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(job: Job): void {
    this.#items.push(job);
  }

  shift(): Job | undefined {
    if (this.#head >= this.#items.length) {
      return undefined;
    }
    const job = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return job;
  }
}

const NOT_SUSPECT: SliceClassification = Object.freeze({
  suspect: false,
  slowFailureStreak: 0,
  shrunkRunsInARow: 0,
  baselineMs: undefined,
});

/**
 * The slow-check bulkhead of one backend instance: a concurrency limit with
 * a FIFO queue for normal work, and a small capped lane for suspect slices
 * (those whose last runs were slow transport failures).
 *
 * Suspect work never queues: it starts at once on a free slot or is
 * deferred, so healthy work never waits behind it, and of the slots at most
 * `laneCapacity` ever hold suspect runs. A deferred run records nothing and
 * holds nothing. Everything here is pod-local bookkeeping: losing it on a
 * restart only means slices prove themselves suspect again.
 *
 * Call {@link Bulkhead.forget} when a slice is cancelled, or its history
 * stays.
 *
 * @internal
 */
export class Bulkhead {
  readonly #options: AdmissionOptions;
  readonly #runsKept: number;
  readonly #now: () => number;
  readonly #deferredCounter: ReturnType<AdmissionMetricsRecorder['counter']>;
  readonly #startedCounter: ReturnType<AdmissionMetricsRecorder['counter']>;
  readonly #queueWait: ReturnType<AdmissionMetricsRecorder['histogram']>;

  readonly #slices = new Map<string, SliceEntry>();
  readonly #queue = new JobQueue();
  #running = 0;
  readonly #runningByLane: Record<Lane, number> = { normal: 0, suspect: 0 };
  readonly #completions: Record<Lane, number> = { normal: 0, suspect: 0 };
  readonly #deferrals: Record<DeferReason, number> = {
    in_flight: 0,
    lane_full: 0,
    no_slot: 0,
  };
  readonly #slotTimeMs: Record<Lane, number> = { normal: 0, suspect: 0 };

  constructor(
    options: Partial<AdmissionOptions> = {},
    dependencies: BulkheadDependencies = {},
  ) {
    this.#options = resolveAdmissionOptions(options);
    this.#runsKept = runsKept(this.#options);
    const clock = dependencies.clock ?? Date;
    this.#now = () => clock.now();
    const metrics = dependencies.metrics ?? noopAdmissionMetrics;
    this.#deferredCounter = metrics.counter(ADMISSION_METRICS.deferred.name);
    this.#startedCounter = metrics.counter(ADMISSION_METRICS.started.name);
    this.#queueWait = metrics.histogram(ADMISSION_METRICS.queueWait.name);
  }

  get options(): AdmissionOptions {
    return this.#options;
  }

  /**
   * Runs one tick's probe, or defers it. Resolves when the probe finished
   * (with what was recorded) or at once when deferred. Rejects if `work`
   * throws (a bug in the caller, not a probe result: nothing is recorded)
   * or the request is malformed.
   */
  run(request: BulkheadRequest, work: BulkheadWork): Promise<BulkheadResult> {
    if (!Number.isFinite(request.dueAt)) {
      return Promise.reject(
        new TypeError(`dueAt must be epoch ms, got ${request.dueAt}`),
      );
    }
    if (!(Number.isFinite(request.timeoutMs) && request.timeoutMs > 0)) {
      return Promise.reject(
        new TypeError(
          `timeoutMs must be a positive number, got ${request.timeoutMs}`,
        ),
      );
    }

    const entry = this.#entry(request.sliceId);
    const classification = this.#classify(entry);
    const suspectTimeout = classification.suspect
      ? adaptiveTimeout(
          {
            configuredTimeoutMs: request.timeoutMs,
            baselineMs: classification.baselineMs,
            shrunkRunsInARow: classification.shrunkRunsInARow,
          },
          this.#options,
        )
      : undefined;

    const decision = admit({
      sliceSuspect: classification.suspect,
      inFlight: entry.inFlight,
      laneInUse: this.#runningByLane.suspect,
      laneCapacity: this.#options.laneCapacity,
      slotAvailable:
        this.#running < this.#options.concurrency && this.#queue.length === 0,
      fullTimeoutMs: request.timeoutMs,
      suspectTimeoutMs: suspectTimeout?.timeoutMs ?? request.timeoutMs,
    });

    if (!decision.admit) {
      this.#deferrals[decision.reason]++;
      this.#deferredCounter.add(1, { reason: decision.reason });
      return Promise.resolve({ deferred: decision.reason });
    }

    entry.inFlight++;
    return new Promise<BulkheadResult>((resolve, reject) => {
      const job: Job = {
        request,
        entry,
        lane: decision.lane,
        timeoutMs: decision.timeoutMs,
        fullTimeout: decision.timeoutMs >= request.timeoutMs,
        work,
        resolve,
        reject,
      };
      if (this.#running < this.#options.concurrency && !this.#queue.length) {
        this.#start(job);
      } else {
        // Only normal work gets here: admit() deferred suspect work
        // that would have had to wait.
        this.#queue.push(job);
      }
    });
  }

  /** How the bulkhead reads a slice now (for diagnostics and the harness). */
  classification(sliceId: string): SliceClassification {
    const entry = this.#slices.get(sliceId);
    return entry
      ? classifySlice(entry.history, this.#options)
      : classifySlice(EMPTY_SLICE_HISTORY, this.#options);
  }

  /**
   * Replaces a slice's history with runs read from durable records, newest
   * first, so that after a restart a slice known to be down does not have
   * to pin K slots for its full timeout again to be recognised.
   */
  prime(sliceId: string, runsNewestFirst: readonly RecordedRun[]): void {
    const entry = this.#entry(sliceId);
    entry.history = [...runsNewestFirst]
      .reverse()
      .reduce(
        (history, run) => this.#record(history, run),
        EMPTY_SLICE_HISTORY,
      );
  }

  /** Drops a cancelled slice's history (after its running probe, if any). */
  forget(sliceId: string): void {
    const entry = this.#slices.get(sliceId);
    if (!entry) {
      return;
    }
    entry.history = EMPTY_SLICE_HISTORY;
    entry.forgotten = true;
    this.#dropIfForgotten(sliceId, entry);
  }

  stats(): BulkheadStats {
    return {
      inFlight: this.#running,
      inFlightByLane: { ...this.#runningByLane },
      queueLength: this.#queue.length,
      completions: { ...this.#completions },
      deferrals: { ...this.#deferrals },
      slotTimeMs: { ...this.#slotTimeMs },
    };
  }

  #entry(sliceId: string): SliceEntry {
    let entry = this.#slices.get(sliceId);
    if (!entry) {
      entry = { history: EMPTY_SLICE_HISTORY, inFlight: 0, forgotten: false };
      this.#slices.set(sliceId, entry);
    }
    entry.forgotten = false;
    return entry;
  }

  #record(history: SliceHistory, run: RecordedRun): SliceHistory {
    return recordRun(history, run, {
      runsKept: this.#runsKept,
      baselineSamples: this.#options.baselineSamples,
    });
  }

  #classify(entry: SliceEntry): SliceClassification {
    if (!this.#options.gateSuspectSlices) {
      return NOT_SUSPECT;
    }
    return classifySlice(entry.history, this.#options);
  }

  #dropIfForgotten(sliceId: string, entry: SliceEntry): void {
    if (
      entry.forgotten &&
      entry.inFlight === 0 &&
      this.#slices.get(sliceId) === entry
    ) {
      this.#slices.delete(sliceId);
    }
  }

  #start(job: Job): void {
    this.#running++;
    this.#runningByLane[job.lane]++;
    const startedAt = this.#now();
    const queueWaitMs = Math.max(0, startedAt - job.request.dueAt);
    this.#startedCounter.add(1, { lane: job.lane });
    this.#queueWait.record(queueWaitMs / 1000, { lane: job.lane });

    let pending: Promise<RunSummary>;
    try {
      pending = job.work(job.timeoutMs);
    } catch (error) {
      pending = Promise.reject(error);
    }
    pending.then(
      summary => {
        const heldMs = Math.max(0, this.#now() - startedAt);
        const run: RecordedRun = {
          outcome: summary.outcome,
          durationMs: summary.durationMs,
          ...(summary.errorKind !== undefined && {
            errorKind: summary.errorKind,
          }),
          timeoutMsUsed: job.timeoutMs,
          fullTimeoutProbe: job.fullTimeout,
        };
        this.#slotTimeMs[job.lane] += heldMs;
        this.#completions[job.lane]++;
        if (!job.entry.forgotten) {
          job.entry.history = this.#record(job.entry.history, run);
        }
        this.#release(job);
        job.resolve({
          lane: job.lane,
          timeoutMs: job.timeoutMs,
          queueWaitMs,
          run,
        });
      },
      error => {
        this.#slotTimeMs[job.lane] += Math.max(0, this.#now() - startedAt);
        this.#release(job);
        job.reject(error);
      },
    );
  }

  #release(job: Job): void {
    this.#running--;
    this.#runningByLane[job.lane]--;
    job.entry.inFlight--;
    this.#dropIfForgotten(job.request.sliceId, job.entry);
    // Hand the slot straight to the next waiter, so no suspect run can take
    // it in between: the queue is only ever non-empty while every slot is
    // taken.
    while (
      this.#running < this.#options.concurrency &&
      this.#queue.length > 0
    ) {
      this.#start(this.#queue.shift()!);
    }
  }
}
