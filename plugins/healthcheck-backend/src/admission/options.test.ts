import { InputError } from '@backstage/errors';
import {
  AdmissionOptions,
  DEFAULT_ADMISSION_OPTIONS,
  resolveAdmissionOptions,
  runsKept,
} from './options';

describe('resolveAdmissionOptions', () => {
  it('fills in the defaults of the seed', () => {
    expect(resolveAdmissionOptions()).toEqual({
      concurrency: 20,
      laneCapacity: 3,
      endpointShare: 3,
      suspectAfterRuns: 3,
      slowFraction: 0.9,
      recoveryProbeEvery: 5,
      timeoutFloorMs: 1000,
      baselineMultiplier: 3,
      baselinePercentile: 90,
      baselineSamples: 20,
      gateSuspectSlices: true,
    });
  });

  it('keeps what is given and ignores undefined', () => {
    expect(
      resolveAdmissionOptions({ concurrency: 10, laneCapacity: undefined }),
    ).toEqual({ ...DEFAULT_ADMISSION_OPTIONS, concurrency: 10 });
  });

  it.each<[Partial<AdmissionOptions>, string]>([
    [
      { concurrency: 0 },
      'concurrency must be a whole number of at least 1, got 0',
    ],
    [
      { laneCapacity: 2.5 },
      'laneCapacity must be a whole number of at least 1, got 2.5',
    ],
    [
      { concurrency: 3, laneCapacity: 3 },
      'laneCapacity (3) must be below concurrency (3)',
    ],
    [
      { endpointShare: 0 },
      'endpointShare must be a whole number of at least 1, got 0',
    ],
    [
      { suspectAfterRuns: 0 },
      'suspectAfterRuns must be a whole number of at least 1, got 0',
    ],
    [
      { slowFraction: 0 },
      'slowFraction must be a number above 0 up to 1, got 0',
    ],
    [
      { slowFraction: 1.1 },
      'slowFraction must be a number above 0 up to 1, got 1.1',
    ],
    [
      { recoveryProbeEvery: 0 },
      'recoveryProbeEvery must be a whole number of at least 1, got 0',
    ],
    [
      { timeoutFloorMs: -1 },
      'timeoutFloorMs must be a number from 0 to 9007199254740991, got -1',
    ],
    [
      { baselineMultiplier: 0.5 },
      'baselineMultiplier must be a number from 1 to 9007199254740991, got 0.5',
    ],
    [
      { baselinePercentile: 0 },
      'baselinePercentile must be a number above 0 up to 100, got 0',
    ],
    [
      { baselineSamples: NaN },
      'baselineSamples must be a whole number of at least 1, got NaN',
    ],
    [
      { gateSuspectSlices: 'yes' as unknown as boolean },
      'gateSuspectSlices must be true or false, got "yes"',
    ],
  ])('refuses %p', (options, message) => {
    expect(() => resolveAdmissionOptions(options)).toThrow(
      new InputError(message),
    );
  });

  it('throws InputError, which the backend reports as bad configuration', () => {
    expect(() => resolveAdmissionOptions({ concurrency: -1 })).toThrow(
      InputError,
    );
  });
});

describe('runsKept', () => {
  it('keeps 20 runs, or more when K or N need them', () => {
    expect(runsKept(DEFAULT_ADMISSION_OPTIONS)).toBe(20);
    expect(
      runsKept({ ...DEFAULT_ADMISSION_OPTIONS, suspectAfterRuns: 30 }),
    ).toBe(30);
    expect(
      runsKept({ ...DEFAULT_ADMISSION_OPTIONS, recoveryProbeEvery: 25 }),
    ).toBe(25);
  });
});
