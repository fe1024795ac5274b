import { adaptiveTimeout } from './adaptiveTimeout';
import {
  classifyEndpoint,
  EMPTY_ENDPOINT_HISTORY,
  type EndpointClassification,
  type EndpointHistory,
  recordEndpointRun,
} from './classifyEndpoint';
import {
  classifySlice,
  EMPTY_SLICE_HISTORY,
  isSliceSuspect,
  type RecordedRun,
  recordRun,
  type SliceClassification,
  type SliceHistory,
} from './classifySlice';
import { type AdmissionOptions, runsKept } from './options';

/** What the bulkhead keeps about one slice. */
export interface SliceEntry {
  history: SliceHistory;
  /** Admitted, queued or running, not finished. */
  inFlight: number;
  /** Forgotten while a run was in flight: drop the entry once it ends. */
  forgotten: boolean;
  /** The endpoint its latest request named. */
  endpointKey: string | undefined;
}

/** What the bulkhead keeps about one endpoint, across its slices. */
export interface EndpointEntry {
  history: EndpointHistory;
  /** Runs of its slices admitted, queued or running, not finished. */
  inFlight: number;
  /** Of those, the ones holding a slot (counted by the bulkhead). */
  running: number;
  /** Slice entries whose latest request named it. */
  slices: number;
}

/** How suspect a request's slice and endpoint are, and the timeout that follows. */
export interface Suspicion {
  readonly sliceSuspect: boolean;
  readonly endpointSuspect: boolean;
  /** The shrunk timeout a suspect run gets; the configured one otherwise. */
  readonly suspectTimeoutMs: number;
}

const NOT_SUSPECT: SliceClassification = Object.freeze({
  suspect: false,
  slowFailureStreak: 0,
  shrunkRunsInARow: 0,
  baselineMs: undefined,
});

/**
 * The bulkhead's suspicion bookkeeping: each slice's and each endpoint's
 * recent runs, what they make suspect, and how many of their runs are in
 * flight. Entries live while a slice is known (until forgotten and its last
 * run ended) and while an endpoint has slices or runs, so the maps are
 * bounded by the slices scheduled here.
 */
export class SuspicionBook {
  readonly #options: AdmissionOptions;
  readonly #runsKept: number;
  readonly #slices = new Map<string, SliceEntry>();
  readonly #endpoints = new Map<string, EndpointEntry>();

  constructor(options: AdmissionOptions) {
    this.#options = options;
    this.#runsKept = runsKept(options);
  }

  get trackedSlices(): number {
    return this.#slices.size;
  }

  get trackedEndpoints(): number {
    return this.#endpoints.size;
  }

  /** How a slice's own runs read now. */
  classification(sliceId: string): SliceClassification {
    const entry = this.#slices.get(sliceId);
    return entry
      ? classifySlice(entry.history, this.#options)
      : classifySlice(EMPTY_SLICE_HISTORY, this.#options);
  }

  /** How an endpoint reads now, across its slices. */
  endpointClassification(endpointKey: string): EndpointClassification {
    return classifyEndpoint(
      this.#endpoints.get(endpointKey)?.history ?? EMPTY_ENDPOINT_HISTORY,
      this.#options,
    );
  }

  /** Replaces a slice's history with runs read back, newest first. */
  prime(sliceId: string, runsNewestFirst: readonly RecordedRun[]): void {
    const entry = this.#entry(sliceId);
    entry.history = [...runsNewestFirst]
      .reverse()
      .reduce(
        (history, run) => this.#record(history, run),
        EMPTY_SLICE_HISTORY,
      );
  }

  /** Drops a slice's history (its entry once its running probe ends). */
  forget(sliceId: string): void {
    const entry = this.#slices.get(sliceId);
    if (!entry) {
      return;
    }
    entry.history = EMPTY_SLICE_HISTORY;
    entry.forgotten = true;
    this.#dropIfForgotten(sliceId, entry);
  }

  /**
   * The entries a request is judged and counted by: its slice's, and the
   * endpoint's its request names (targets change, so it is bound anew).
   */
  track(
    sliceId: string,
    endpointKey: string | undefined,
  ): { entry: SliceEntry; endpoint: EndpointEntry | undefined } {
    const entry = this.#entry(sliceId);
    return { entry, endpoint: this.#bindEndpoint(entry, endpointKey) };
  }

  /** How suspect a run of the slice is, on what is known now. */
  suspicion(
    entry: SliceEntry,
    endpoint: EndpointEntry | undefined,
    configuredTimeoutMs: number,
  ): Suspicion {
    const endpointSuspect = this.endpointSuspect(endpoint);
    if (
      !endpointSuspect &&
      !(
        this.#options.gateSuspectSlices &&
        isSliceSuspect(entry.history, this.#options)
      )
    ) {
      return {
        sliceSuspect: false,
        endpointSuspect: false,
        suspectTimeoutMs: configuredTimeoutMs,
      };
    }
    // Suspect: the shrunk timeout, from the slice's healthy baseline.
    const slice = this.#classify(entry);
    return {
      sliceSuspect: slice.suspect,
      endpointSuspect,
      suspectTimeoutMs: adaptiveTimeout(
        {
          configuredTimeoutMs,
          baselineMs: slice.baselineMs,
          shrunkRunsInARow: slice.shrunkRunsInARow,
        },
        this.#options,
      ).timeoutMs,
    };
  }

  endpointSuspect(endpoint: EndpointEntry | undefined): boolean {
    return (
      this.#options.gateSuspectSlices &&
      endpoint !== undefined &&
      classifyEndpoint(endpoint.history, this.#options).suspect
    );
  }

  /** Counts an admitted run as in flight on its slice and endpoint. */
  admitted(entry: SliceEntry, endpoint: EndpointEntry | undefined): void {
    entry.inFlight++;
    if (endpoint) {
      endpoint.inFlight++;
    }
  }

  /** Records a finished run in its slice's and its endpoint's history. */
  learn(
    entry: SliceEntry,
    endpoint: EndpointEntry | undefined,
    run: RecordedRun,
  ): void {
    const sliceAlreadySuspect = isSliceSuspect(entry.history, this.#options);
    if (!entry.forgotten) {
      entry.history = this.#record(entry.history, run);
    }
    if (endpoint) {
      // Evidence about the endpoint even if the slice was forgotten.
      endpoint.history = recordEndpointRun(endpoint.history, run, {
        sliceAlreadySuspect,
        slowFraction: this.#options.slowFraction,
      });
    }
  }

  /** Undoes the in-flight count of an admitted run that has ended or left. */
  finished(
    request: { readonly sliceId: string; readonly endpointKey?: string },
    entry: SliceEntry,
    endpoint: EndpointEntry | undefined,
  ): void {
    entry.inFlight--;
    this.#dropIfForgotten(request.sliceId, entry);
    if (endpoint) {
      endpoint.inFlight--;
      this.#dropEndpointIfUnused(request.endpointKey!, endpoint);
    }
  }

  #entry(sliceId: string): SliceEntry {
    let entry = this.#slices.get(sliceId);
    if (!entry) {
      entry = {
        history: EMPTY_SLICE_HISTORY,
        inFlight: 0,
        forgotten: false,
        endpointKey: undefined,
      };
      this.#slices.set(sliceId, entry);
    }
    entry.forgotten = false;
    return entry;
  }

  /** Points the slice at the endpoint its request names (targets change). */
  #bindEndpoint(
    entry: SliceEntry,
    endpointKey: string | undefined,
  ): EndpointEntry | undefined {
    if (entry.endpointKey !== endpointKey) {
      this.#unbindEndpoint(entry);
      entry.endpointKey = endpointKey;
      if (endpointKey !== undefined) {
        let endpoint = this.#endpoints.get(endpointKey);
        if (!endpoint) {
          endpoint = {
            history: EMPTY_ENDPOINT_HISTORY,
            inFlight: 0,
            running: 0,
            slices: 0,
          };
          this.#endpoints.set(endpointKey, endpoint);
        }
        endpoint.slices++;
      }
    }
    return endpointKey === undefined
      ? undefined
      : this.#endpoints.get(endpointKey);
  }

  #unbindEndpoint(entry: SliceEntry): void {
    const key = entry.endpointKey;
    const endpoint = key === undefined ? undefined : this.#endpoints.get(key);
    entry.endpointKey = undefined;
    if (endpoint) {
      endpoint.slices--;
      this.#dropEndpointIfUnused(key!, endpoint);
    }
  }

  #dropEndpointIfUnused(endpointKey: string, endpoint: EndpointEntry): void {
    if (
      endpoint.slices === 0 &&
      endpoint.inFlight === 0 &&
      this.#endpoints.get(endpointKey) === endpoint
    ) {
      this.#endpoints.delete(endpointKey);
    }
  }

  #dropIfForgotten(sliceId: string, entry: SliceEntry): void {
    if (
      entry.forgotten &&
      entry.inFlight === 0 &&
      this.#slices.get(sliceId) === entry
    ) {
      this.#slices.delete(sliceId);
      this.#unbindEndpoint(entry);
    }
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
}
