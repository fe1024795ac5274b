import type { RecordedRun } from './classifySlice';
import {
  classifyEndpoint,
  EMPTY_ENDPOINT_HISTORY,
  EndpointHistory,
  endpointKeyOf,
  recordEndpointRun,
} from './classifyEndpoint';

const SLOW_FRACTION = 0.9;

const passed: RecordedRun = {
  outcome: 'pass',
  durationMs: 4,
  timeoutMsUsed: 5000,
  fullTimeoutProbe: true,
};
const timedOut: RecordedRun = {
  outcome: 'fail',
  durationMs: 5000,
  errorKind: 'timeout',
  timeoutMsUsed: 5000,
  fullTimeoutProbe: true,
};
/** Timed out at a shrunk 1 s: as slow as that run could be. */
const timedOutShrunk: RecordedRun = {
  ...timedOut,
  durationMs: 1000,
  timeoutMsUsed: 1000,
  fullTimeoutProbe: false,
};

function streakOf(slowFailureStreak: number): EndpointHistory {
  return { slowFailureStreak };
}

describe('recordEndpointRun', () => {
  it.each<[string, number, RecordedRun, boolean, number]>([
    ['a timeout starts a streak', 0, timedOut, false, 1],
    ['a timeout extends the streak', 2, timedOut, false, 3],
    [
      'a timeout at a shrunk timeout extends it (judged against the 1 s it had)',
      3,
      timedOutShrunk,
      false,
      4,
    ],
    [
      'a reset after 4.6 s of 5 s extends it',
      1,
      { ...timedOut, errorKind: 'reset', durationMs: 4600 },
      false,
      2,
    ],
    ['a pass clears it', 5, passed, false, 0],
    [
      'a degraded run clears it',
      5,
      { ...passed, outcome: 'degraded' },
      false,
      0,
    ],
    [
      'a quick 503 (a failed condition) clears it: the host answers',
      5,
      { ...passed, outcome: 'fail', durationMs: 3 },
      false,
      0,
    ],
    [
      'a connection refused at once clears it: no slot was held',
      5,
      { ...timedOut, errorKind: 'refused', durationMs: 2 },
      false,
      0,
    ],
    [
      'a guard refusal leaves it: nothing reached the endpoint',
      2,
      { ...timedOut, errorKind: 'guard', durationMs: 0 },
      false,
      2,
    ],
    [
      'a config error leaves it',
      2,
      { ...timedOut, errorKind: 'config', durationMs: 0 },
      false,
      2,
    ],
    [
      'a timeout of a slice already suspect on its own leaves it (a hanging path on a live host)',
      1,
      timedOut,
      true,
      1,
    ],
    [
      'a pass of a slice already suspect on its own still clears it',
      4,
      passed,
      true,
      0,
    ],
  ])('%s', (_name, before, run, sliceAlreadySuspect, after) => {
    expect(
      recordEndpointRun(streakOf(before), run, {
        sliceAlreadySuspect,
        slowFraction: SLOW_FRACTION,
      }),
    ).toEqual(streakOf(after));
  });

  it('makes a downed host suspect after K timeouts of different slices, and a pass of any of them clears it', () => {
    const options = { suspectAfterRuns: 3 };
    const record = (history: EndpointHistory, run: RecordedRun) =>
      recordEndpointRun(history, run, {
        sliceAlreadySuspect: false,
        slowFraction: SLOW_FRACTION,
      });

    // check-1, check-2 and check-3 each time out once, behind the same host.
    let history = EMPTY_ENDPOINT_HISTORY;
    history = record(history, timedOut);
    history = record(history, timedOut);
    expect(classifyEndpoint(history, options)).toEqual({
      suspect: false,
      slowFailureStreak: 2,
    });
    history = record(history, timedOut);
    expect(classifyEndpoint(history, options)).toEqual({
      suspect: true,
      slowFailureStreak: 3,
    });

    history = record(history, passed);
    expect(classifyEndpoint(history, options)).toEqual({
      suspect: false,
      slowFailureStreak: 0,
    });
  });

  it('does not change the history it was given', () => {
    const history = Object.freeze(streakOf(2));
    recordEndpointRun(history, timedOut, {
      sliceAlreadySuspect: false,
      slowFraction: SLOW_FRACTION,
    });
    expect(history).toEqual(streakOf(2));
  });
});

describe('classifyEndpoint', () => {
  it.each<[number, number, boolean]>([
    [0, 3, false],
    [2, 3, false],
    [3, 3, true],
    [7, 3, true],
    [1, 1, true],
  ])('a streak of %i with K = %i is suspect: %s', (streak, k, suspect) => {
    expect(
      classifyEndpoint(streakOf(streak), { suspectAfterRuns: k }).suspect,
    ).toBe(suspect);
  });
});

describe('endpointKeyOf', () => {
  it.each<[string, string]>([
    ['http://127.0.0.1:7010/production/health', 'http://127.0.0.1:7010'],
    ['http://API.example.com/a?b=c', 'http://api.example.com:80'],
    ['http://api.example.com:80/other', 'http://api.example.com:80'],
    ['https://api.example.com/', 'https://api.example.com:443'],
    ['https://api.example.com:8443/', 'https://api.example.com:8443'],
    ['https://user:secret@api.example.com/', 'https://api.example.com:443'],
    ['http://[::1]:8080/health', 'http://[::1]:8080'],
    // Not URLs with a host: the target is its own endpoint.
    ['localhost:5432', 'localhost:5432'],
    ['example.com:443', 'example.com:443'],
    ['127.0.0.1:6379', '127.0.0.1:6379'],
    ['example.com', 'example.com'],
    ['', ''],
  ])('%j is reached at %j', (target, key) => {
    expect(endpointKeyOf(target)).toBe(key);
  });
});
