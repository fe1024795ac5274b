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
 * - `in_flight`: a run of the same slice has not finished, or, when the
 *   slice's endpoint is suspect, a run of any slice of that endpoint;
 * - `lane_full`: the suspect lane is at its capacity;
 * - `no_slot`: the lane has room but the instance does not (every slot is
 *   taken, or healthy work is already waiting for one, and it comes first).
 *
 * @internal
 */
export type DeferReason = 'in_flight' | 'lane_full' | 'no_slot';

/** @internal */
export interface AdmissionInput {
  /** The slice's own last K runs were slow transport failures. */
  readonly sliceSuspect: boolean;
  /**
   * The last K counted runs on the slice's endpoint, from any of its slices,
   * were slow transport failures.
   */
  readonly endpointSuspect: boolean;
  /** Runs of this slice admitted and not yet finished. */
  readonly inFlight: number;
  /** Runs of any slice of the same endpoint admitted and not yet finished. */
  readonly endpointInFlight: number;
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
 * A slice is suspect on its own runs or through its endpoint's. A slice that
 * is neither is never gated: normal lane, full timeout, whatever the load (it
 * may still wait its turn for a slot). A suspect slice runs single-flight,
 * within the lane's capacity, and only on a slot that no healthy run is
 * waiting for; otherwise it is deferred, which costs nothing. Through a
 * suspect endpoint it is single-flight per endpoint too, so a dead host
 * behind 48 checks holds one lane slot, not three.
 *
 * @internal
 */
export function admit(input: AdmissionInput): AdmissionDecision {
  if (!input.sliceSuspect && !input.endpointSuspect) {
    return { admit: true, lane: 'normal', timeoutMs: input.fullTimeoutMs };
  }
  if (
    input.inFlight > 0 ||
    (input.endpointSuspect && input.endpointInFlight > 0)
  ) {
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

/** @internal */
export interface SlotShareInput {
  /** Slots taken on the instance now, both lanes. */
  readonly running: number;
  readonly concurrency: number;
  /** Slots the run's endpoint holds now; undefined when it names none. */
  readonly endpointRunning: number | undefined;
  readonly endpointShare: number;
}

/**
 * Whether an admitted normal-lane run may take a slot now, or waits. A slot
 * must be free; and an endpoint that already holds its share takes another
 * only if as many slots stay free for the other endpoints. So before anyone
 * knows a host is down, its runs can pin at most `concurrency - share` slots,
 * and healthy work keeps `share` slots; while one endpoint has the instance
 * to itself it may use nearly all of it.
 *
 * @internal
 */
export function mayTakeSlot(input: SlotShareInput): boolean {
  const free = input.concurrency - input.running;
  if (free <= 0) {
    return false;
  }
  if (
    input.endpointRunning === undefined ||
    input.endpointRunning < input.endpointShare
  ) {
    return true;
  }
  return free - 1 >= input.endpointShare;
}
