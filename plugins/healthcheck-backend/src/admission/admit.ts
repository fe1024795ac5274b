/**
 * The two ways in: the normal lane (shared, queued, full timeout) and the
 * suspect lane (capped, never queued, adaptive timeout).
 *
 * @internal
 */
export type Lane = 'normal' | 'suspect';

/**
 * Why a suspect run was not started:
 *
 * - `in_flight`: a run of the same slice has not finished;
 * - `lane_full`: the suspect lane is at its capacity;
 * - `no_slot`: the lane has room but the instance does not (every slot is
 *   taken, or healthy work is already waiting for one, and it comes first).
 *
 * @internal
 */
export type DeferReason = 'in_flight' | 'lane_full' | 'no_slot';

/** @internal */
export interface AdmissionInput {
  readonly sliceSuspect: boolean;
  /** Runs of this slice admitted and not yet finished. */
  readonly inFlight: number;
  readonly laneInUse: number;
  readonly laneCapacity: number;
  /** A slot is free now and no normal-lane work waits for one. */
  readonly slotAvailable: boolean;
  readonly fullTimeoutMs: number;
  /** The adaptive timeout, used only when the slice is suspect. */
  readonly suspectTimeoutMs: number;
}

/** @internal */
export type AdmissionDecision =
  | { readonly admit: true; readonly lane: Lane; readonly timeoutMs: number }
  | { readonly admit: false; readonly reason: DeferReason };

/**
 * Whether a run starts, in which lane and with which timeout.
 *
 * A slice that is not suspect is never gated: normal lane, full timeout,
 * whatever the load (it may still wait its turn for a slot). A suspect slice
 * runs single-flight, within the lane's capacity, and only on a slot that no
 * healthy run is waiting for; otherwise it is deferred, which costs nothing.
 *
 * @internal
 */
export function admit(input: AdmissionInput): AdmissionDecision {
  if (!input.sliceSuspect) {
    return { admit: true, lane: 'normal', timeoutMs: input.fullTimeoutMs };
  }
  if (input.inFlight > 0) {
    return { admit: false, reason: 'in_flight' };
  }
  if (input.laneInUse >= input.laneCapacity) {
    return { admit: false, reason: 'lane_full' };
  }
  if (!input.slotAvailable) {
    return { admit: false, reason: 'no_slot' };
  }
  return { admit: true, lane: 'suspect', timeoutMs: input.suspectTimeoutMs };
}
