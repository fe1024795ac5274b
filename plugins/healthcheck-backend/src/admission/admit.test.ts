import { AdmissionDecision, AdmissionInput, admit } from './admit';

const BASE: AdmissionInput = {
  sliceSuspect: false,
  inFlight: 0,
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
  ])('%s', (_name, input, expected) => {
    expect(admit({ ...BASE, ...input })).toEqual(expected);
  });
});
