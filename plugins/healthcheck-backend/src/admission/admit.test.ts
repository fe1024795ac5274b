import {
  AdmissionDecision,
  AdmissionInput,
  admit,
  mayTakeSlot,
  SlotShareInput,
} from './admit';

const BASE: AdmissionInput = {
  sliceSuspect: false,
  endpointSuspect: false,
  inFlight: 0,
  endpointInFlight: 0,
  laneInUse: 0,
  laneCapacity: 3,
  slotAvailable: true,
  fullTimeoutMs: 5000,
  suspectTimeoutMs: 1000,
};

describe('admit', () => {
  it.each<[string, Partial<AdmissionInput>, AdmissionDecision]>([
    [
      'a healthy slice runs in the normal lane at its full timeout',
      {},
      { admit: true, lane: 'normal', timeoutMs: 5000 },
    ],
    [
      'a healthy slice is admitted with the lane full and no slot free',
      { laneInUse: 3, slotAvailable: false },
      { admit: true, lane: 'normal', timeoutMs: 5000 },
    ],
    [
      'a healthy slice is admitted while its previous run is in flight',
      { inFlight: 1 },
      { admit: true, lane: 'normal', timeoutMs: 5000 },
    ],
    [
      'a suspect slice runs in the suspect lane at the adaptive timeout',
      { sliceSuspect: true, laneInUse: 2 },
      { admit: true, lane: 'suspect', timeoutMs: 1000 },
    ],
    [
      'a suspect slice is deferred when the lane is full',
      { sliceSuspect: true, laneInUse: 3 },
      { admit: false, reason: 'lane_full' },
    ],
    [
      'a suspect slice is deferred while its previous run is in flight',
      { sliceSuspect: true, inFlight: 1 },
      { admit: false, reason: 'in_flight' },
    ],
    [
      'in flight is reported before lane full',
      { sliceSuspect: true, inFlight: 1, laneInUse: 3 },
      { admit: false, reason: 'in_flight' },
    ],
    [
      'a suspect slice is deferred when no slot is free for it',
      { sliceSuspect: true, laneInUse: 1, slotAvailable: false },
      { admit: false, reason: 'no_slot' },
    ],
    [
      'lane full is reported before no slot',
      { sliceSuspect: true, laneInUse: 3, slotAvailable: false },
      { admit: false, reason: 'lane_full' },
    ],
    [
      'a slice of a suspect endpoint is suspect, whatever its own runs say',
      { endpointSuspect: true },
      { admit: true, lane: 'suspect', timeoutMs: 1000 },
    ],
    [
      'a suspect endpoint runs single-flight: another of its slices is in flight',
      { endpointSuspect: true, endpointInFlight: 1 },
      { admit: false, reason: 'in_flight' },
    ],
    [
      'a suspect endpoint with a run in flight defers a slice suspect on its own too',
      { sliceSuspect: true, endpointSuspect: true, endpointInFlight: 1 },
      { admit: false, reason: 'in_flight' },
    ],
    [
      'a slice suspect on its own, on an endpoint that answers, is single-flight per slice only',
      { sliceSuspect: true, endpointInFlight: 4 },
      { admit: true, lane: 'suspect', timeoutMs: 1000 },
    ],
    [
      'a healthy slice is not gated by its endpoint runs in flight',
      { endpointInFlight: 4 },
      { admit: true, lane: 'normal', timeoutMs: 5000 },
    ],
    [
      'a slice of a suspect endpoint is deferred when the lane is full',
      { endpointSuspect: true, laneInUse: 3 },
      { admit: false, reason: 'lane_full' },
    ],
  ])('%s', (_name, input, expected) => {
    expect(admit({ ...BASE, ...input })).toEqual(expected);
  });
});

describe('mayTakeSlot', () => {
  const SHARE: SlotShareInput = {
    running: 0,
    concurrency: 10,
    endpointRunning: 0,
    endpointShare: 3,
  };

  it.each<[string, Partial<SlotShareInput>, boolean]>([
    ['a run takes a free slot', {}, true],
    ['no run takes a slot when none is free', { running: 10 }, false],
    [
      'an endpoint under its share takes the last free slot',
      { running: 9, endpointRunning: 2 },
      true,
    ],
    [
      'an endpoint at its share takes a slot that leaves three free',
      { running: 6, endpointRunning: 6 },
      true,
    ],
    [
      'an endpoint at its share waits rather than leave two free',
      { running: 7, endpointRunning: 7 },
      false,
    ],
    [
      'an endpoint at its share waits, whoever holds the other slots',
      { running: 7, endpointRunning: 3 },
      false,
    ],
    [
      'a run without an endpoint takes the last free slot',
      { running: 9, endpointRunning: undefined },
      true,
    ],
    [
      'with a share of 1 an endpoint alone may hold all but one slot',
      { running: 8, endpointRunning: 8, endpointShare: 1 },
      true,
    ],
  ])('%s', (_name, input, expected) => {
    expect(mayTakeSlot({ ...SHARE, ...input })).toBe(expected);
  });
});
