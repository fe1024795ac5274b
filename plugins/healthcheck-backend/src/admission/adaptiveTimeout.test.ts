import { AdaptiveTimeout, adaptiveTimeout } from './adaptiveTimeout';
import { DEFAULT_ADMISSION_OPTIONS } from './options';

describe('adaptiveTimeout', () => {
  // Defaults: floor 1000 ms, multiplier 3, a full-timeout run every 5th.
  it.each<[string, number, number | undefined, number, AdaptiveTimeout]>([
    [
      'no healthy baseline: the full timeout',
      5000,
      undefined,
      0,
      { timeoutMs: 5000, reason: 'no_baseline', fullTimeout: true },
    ],
    [
      'a fast baseline: shrunk to the floor',
      5000,
      40,
      0,
      { timeoutMs: 1000, reason: 'floor', fullTimeout: false },
    ],
    [
      'a 600 ms baseline: shrunk to three times it',
      5000,
      600,
      0,
      { timeoutMs: 1800, reason: 'baseline', fullTimeout: false },
    ],
    [
      'fractions of a millisecond round up',
      5000,
      400.1,
      0,
      { timeoutMs: 1201, reason: 'baseline', fullTimeout: false },
    ],
    [
      'a baseline three times over the timeout: no shrink',
      5000,
      1700,
      0,
      { timeoutMs: 5000, reason: 'configured', fullTimeout: true },
    ],
    [
      'a configured timeout below the floor is never raised',
      500,
      40,
      0,
      { timeoutMs: 500, reason: 'configured', fullTimeout: true },
    ],
    [
      'three shrunk runs in a row: still shrunk',
      5000,
      40,
      3,
      { timeoutMs: 1000, reason: 'floor', fullTimeout: false },
    ],
    [
      'four shrunk runs in a row: the fifth is the recovery probe',
      5000,
      40,
      4,
      { timeoutMs: 5000, reason: 'recovery_probe', fullTimeout: true },
    ],
    [
      'more shrunk runs than N (the history lacked flags): recovery probe',
      5000,
      40,
      9,
      { timeoutMs: 5000, reason: 'recovery_probe', fullTimeout: true },
    ],
  ])(
    '%s',
    (_name, configuredTimeoutMs, baselineMs, shrunkRunsInARow, expected) => {
      expect(
        adaptiveTimeout(
          { configuredTimeoutMs, baselineMs, shrunkRunsInARow },
          DEFAULT_ADMISSION_OPTIONS,
        ),
      ).toEqual(expected);
    },
  );

  it('with N = 1 never shrinks', () => {
    expect(
      adaptiveTimeout(
        { configuredTimeoutMs: 5000, baselineMs: 40, shrunkRunsInARow: 0 },
        { ...DEFAULT_ADMISSION_OPTIONS, recoveryProbeEvery: 1 },
      ),
    ).toEqual({ timeoutMs: 5000, reason: 'recovery_probe', fullTimeout: true });
  });

  it('follows the floor and multiplier it is given', () => {
    const options = {
      ...DEFAULT_ADMISSION_OPTIONS,
      timeoutFloorMs: 250,
      baselineMultiplier: 2,
    };
    expect(
      adaptiveTimeout(
        { configuredTimeoutMs: 5000, baselineMs: 100, shrunkRunsInARow: 0 },
        options,
      ),
    ).toEqual({ timeoutMs: 250, reason: 'floor', fullTimeout: false });
    expect(
      adaptiveTimeout(
        { configuredTimeoutMs: 5000, baselineMs: 300, shrunkRunsInARow: 0 },
        options,
      ),
    ).toEqual({ timeoutMs: 600, reason: 'baseline', fullTimeout: false });
  });
});
