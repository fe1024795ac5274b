import {
  admit,
  type AdmissionDecision,
  type DeferReason,
  type Lane,
  mayTakeSlot,
} from './admit';
import type { EndpointClassification } from './classifyEndpoint';
import type {
  RecordedRun,
  RunSummary,
  SliceClassification,
} from './classifySlice';
import { JobQueue } from './JobQueue';
import {
  ADMISSION_METRICS,
  type AdmissionMetricsRecorder,
  noopAdmissionMetrics,
} from './metrics';
import { type AdmissionOptions, resolveAdmissionOptions } from './options';
import {
  type EndpointEntry,
  type SliceEntry,
  SuspicionBook,
} from './SuspicionBook';

/**
 * One tick of one slice asking to run.
 *
 * @internal
 */
export interface BulkheadRequest {
  readonly sliceId: string;
  /**
   * Where the probe goes, as `endpointKeyOf(target)` gives it. Slices that
   * share an endpoint are judged together as well as one by one: a downed
   * host behind 48 checks is recognised after K slow failures of any of
   * them, and then holds one lane slot. Without it, the slice is judged on
   * its own runs only.
   */
  readonly endpointKey?: string;
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
  /** Slices and endpoints with bookkeeping held (forgotten ones drop out). */
  readonly trackedSlices: number;
  readonly trackedEndpoints: number;
}

/** @internal */
export interface BulkheadDependencies {
  readonly clock?: { now(): number };
  readonly metrics?: AdmissionMetricsRecorder;
}

interface Job {
  readonly request: BulkheadRequest;
  readonly entry: SliceEntry;
  readonly endpoint: EndpointEntry | undefined;
  readonly work: BulkheadWork;
  readonly resolve: (result: BulkheadResult) => void;
  readonly reject: (error: unknown) => void;
}

type Admitted = Extract<AdmissionDecision, { admit: true }>;

/**
 * The slow-check bulkhead of one backend instance: a concurrency limit with
 * a FIFO queue for normal work, and a small capped lane for suspect slices
 * (those whose last runs were slow transport failures).
 *
 * A slice that is not suspect is never deferred or shrunk and never waits on
 * the lane. It waits its turn for a slot, and one rule orders the turns: an
 * endpoint that
 * already holds `endpointShare` slots takes another only while as many stay
 * free for other endpoints (the queue passes over its runs meanwhile). That
 * bounds what a host nobody knows to be down yet can pin before its first
 * failures come back.
 *
 * A slice is suspect on its own runs, or through its endpoint: K slow
 * transport failures in a row on the endpoint, whichever of its slices they
 * came from. A suspect endpoint runs single-flight across its slices.
 *
 * Suspect work never queues: it starts at once on a free slot or is
 * deferred, so healthy work never waits behind it, and of the slots at most
 * `laneCapacity` ever hold suspect runs. Admission is decided again when a
 * queued run reaches a slot: a run queued before its slice or endpoint turned
 * suspect is then deferred (or moved to the lane), instead of pinning a slot
 * for the full timeout on what is by then known. A deferred run records
 * nothing and holds nothing. Everything here is pod-local bookkeeping: losing
 * it on a restart only means slices prove themselves suspect again.
 *
 * This class owns the slots and the queue; what is known about each slice
 * and endpoint is kept by its {@link SuspicionBook}. Call
 * {@link Bulkhead.forget} when a slice is cancelled, or its history stays.
 *
 * @internal
 */
export class Bulkhead {
  readonly #options: AdmissionOptions;
  readonly #now: () => number;
  readonly #deferredCounter: ReturnType<AdmissionMetricsRecorder['counter']>;
  readonly #startedCounter: ReturnType<AdmissionMetricsRecorder['counter']>;
  readonly #queueWait: ReturnType<AdmissionMetricsRecorder['histogram']>;

  readonly #book: SuspicionBook;
  readonly #queue = new JobQueue<Job>();
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
    this.#book = new SuspicionBook(this.#options);
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
   * throws (a bug in the caller, or a run that could not be judged: not a
   * probe result, so nothing is recorded) or the request is malformed.
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

    const { entry, endpoint } = this.#book.track(
      request.sliceId,
      request.endpointKey,
    );
    const decision = this.#decide(request, entry, endpoint, {
      countedInFlight: false,
    });
    if (!decision.admit) {
      this.#countDeferral(decision.reason);
      return Promise.resolve({ deferred: decision.reason });
    }

    this.#book.admitted(entry, endpoint);
    return new Promise<BulkheadResult>((resolve, reject) => {
      const job: Job = { request, entry, endpoint, work, resolve, reject };
      if (decision.lane === 'suspect' || this.#mayTakeSlot(job)) {
        this.#start(job, decision);
      } else {
        // Only normal work waits: admit() deferred suspect work that would
        // have had to.
        this.#queue.push(job);
      }
    });
  }

  /**
   * How the bulkhead reads a slice's own runs now (for diagnostics and the
   * harness); its endpoint is read by {@link Bulkhead.endpointClassification}.
   */
  classification(sliceId: string): SliceClassification {
    return this.#book.classification(sliceId);
  }

  /** How the bulkhead reads an endpoint now, across its slices. */
  endpointClassification(endpointKey: string): EndpointClassification {
    return this.#book.endpointClassification(endpointKey);
  }

  /**
   * Replaces a slice's history with runs read from durable records, newest
   * first, so that after a restart a slice known to be down does not have
   * to pin K slots for its full timeout again to be recognised. Endpoints
   * are not primed: they learn again from the first K slow failures.
   */
  prime(sliceId: string, runsNewestFirst: readonly RecordedRun[]): void {
    this.#book.prime(sliceId, runsNewestFirst);
  }

  /** Drops a cancelled slice's history (after its running probe, if any). */
  forget(sliceId: string): void {
    this.#book.forget(sliceId);
  }

  stats(): BulkheadStats {
    return {
      inFlight: this.#running,
      inFlightByLane: { ...this.#runningByLane },
      queueLength: this.#queue.length,
      completions: { ...this.#completions },
      deferrals: { ...this.#deferrals },
      slotTimeMs: { ...this.#slotTimeMs },
      trackedSlices: this.#book.trackedSlices,
      trackedEndpoints: this.#book.trackedEndpoints,
    };
  }

  #mayTakeSlot(job: Job): boolean {
    return mayTakeSlot({
      running: this.#running,
      concurrency: this.#options.concurrency,
      endpointRunning: this.#options.gateSuspectSlices
        ? job.endpoint?.running
        : undefined,
      endpointShare: this.#options.endpointShare,
    });
  }

  /**
   * Admission for one run, on arrival or again when it leaves the queue (then
   * it is itself among the runs in flight, and a slot is free).
   *
   * A slot is available to suspect work when one is free and no normal work
   * that may take it waits. On arrival, every waiter is then held back by its
   * endpoint's share (the queue hands out free slots as soon as a waiter may
   * take one); on leaving the queue, the waiters behind come first.
   */
  #decide(
    request: BulkheadRequest,
    entry: SliceEntry,
    endpoint: EndpointEntry | undefined,
    { countedInFlight }: { countedInFlight: boolean },
  ): AdmissionDecision {
    const self = countedInFlight ? 1 : 0;
    const suspicion = this.#book.suspicion(entry, endpoint, request.timeoutMs);
    return admit({
      sliceSuspect: suspicion.sliceSuspect,
      endpointSuspect: suspicion.endpointSuspect,
      inFlight: entry.inFlight - self,
      endpointInFlight: (endpoint?.inFlight ?? 0) - self,
      laneInUse: this.#runningByLane.suspect,
      laneCapacity: this.#options.laneCapacity,
      slotAvailable:
        this.#running < this.#options.concurrency &&
        (!countedInFlight || this.#queue.length === 0),
      fullTimeoutMs: request.timeoutMs,
      suspectTimeoutMs: suspicion.suspectTimeoutMs,
    });
  }

  #countDeferral(reason: DeferReason): void {
    this.#deferrals[reason]++;
    this.#deferredCounter.add(1, { reason });
  }

  #start(job: Job, decision: Admitted): void {
    const { lane, timeoutMs } = decision;
    const fullTimeout = timeoutMs >= job.request.timeoutMs;
    this.#running++;
    this.#runningByLane[lane]++;
    if (job.endpoint) {
      job.endpoint.running++;
    }
    const startedAt = this.#now();
    const queueWaitMs = Math.max(0, startedAt - job.request.dueAt);
    this.#startedCounter.add(1, { lane });
    this.#queueWait.record(queueWaitMs / 1000, { lane });

    let pending: Promise<RunSummary>;
    try {
      pending = job.work(timeoutMs);
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
          timeoutMsUsed: timeoutMs,
          fullTimeoutProbe: fullTimeout,
        };
        this.#slotTimeMs[lane] += heldMs;
        this.#completions[lane]++;
        this.#book.learn(job.entry, job.endpoint, run);
        this.#release(job, lane);
        job.resolve({ lane, timeoutMs, queueWaitMs, run });
      },
      error => {
        this.#slotTimeMs[lane] += Math.max(0, this.#now() - startedAt);
        this.#release(job, lane);
        job.reject(error);
      },
    );
  }

  /** Undoes the bookkeeping of an admitted run that has ended or left. */
  #finish(job: Job): void {
    this.#book.finished(job.request, job.entry, job.endpoint);
  }

  #release(job: Job, lane: Lane): void {
    this.#running--;
    this.#runningByLane[lane]--;
    if (job.endpoint) {
      job.endpoint.running--;
    }
    this.#finish(job);
    this.#dispatch();
  }

  /**
   * Hands free slots straight to waiters, so no suspect run can take one in
   * between: a slot stays free only while every waiter is held back by its
   * endpoint's share. Each waiter is admitted again on what is known now, and
   * one whose endpoint turned suspect while it waited leaves at once, held
   * back or not, instead of pinning a slot for the full timeout.
   */
  #dispatch(): void {
    while (
      this.#running < this.#options.concurrency &&
      this.#queue.length > 0
    ) {
      const next = this.#queue.takeFirst(
        waiting =>
          this.#mayTakeSlot(waiting) ||
          this.#book.endpointSuspect(waiting.endpoint),
      );
      if (!next) {
        return;
      }
      const decision = this.#decide(next.request, next.entry, next.endpoint, {
        countedInFlight: true,
      });
      if (decision.admit) {
        this.#start(next, decision);
      } else {
        this.#finish(next);
        this.#countDeferral(decision.reason);
        next.resolve({ deferred: decision.reason });
      }
    }
  }
}
