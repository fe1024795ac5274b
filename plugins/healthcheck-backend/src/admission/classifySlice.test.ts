import {
  EMPTY_SLICE_HISTORY,
  RecordedRun,
  SliceHistory,
  classifySlice,
  healthyBaselineMs,
  isSliceSuspect,
  isSlowTransportFailure,
  recordRun,
} from './classifySlice';
import { DEFAULT_ADMISSION_OPTIONS } from './options';

const CONFIGURED_TIMEOUT_MS = 5000;
const LIMITS = { runsKept: 20, baselineSamples: 20 };

function passed(durationMs: number): RecordedRun {
  return {
    outcome: 'pass',
    durationMs,
    timeoutMsUsed: CONFIGURED_TIMEOUT_MS,
    fullTimeoutProbe: true,
  };
}

function timedOut(timeoutMsUsed = CONFIGURED_TIMEOUT_MS): RecordedRun {
  return {
    outcome: 'fail',
    durationMs: timeoutMsUsed,
    errorKind: 'timeout',
    timeoutMsUsed,
    fullTimeoutProbe: timeoutMsUsed >= CONFIGURED_TIMEOUT_MS,
  };
}

/** A history from runs listed oldest first, the order they happened. */
function historyOf(...runsOldestFirst: RecordedRun[]): SliceHistory {
  return runsOldestFirst.reduce(
    (history, run) => recordRun(history, run, LIMITS),
    EMPTY_SLICE_HISTORY,
  );
}

describe('isSlowTransportFailure', () => {
  it.each<[string, RecordedRun, boolean]>([
    ['a timeout', timedOut(), true],
    ['a timeout at a shrunk timeout', timedOut(1000), true],
    [
      'a reset after 4.5 s of a 5 s timeout (90%)',
      {
        outcome: 'fail',
        durationMs: 4500,
        errorKind: 'reset',
        timeoutMsUsed: 5000,
      },
      true,
    ],
    [
      'a reset after 4.49 s of a 5 s timeout',
      {
        outcome: 'fail',
        durationMs: 4490,
        errorKind: 'reset',
        timeoutMsUsed: 5000,
      },
      false,
    ],
    [
      'a refusal after 950 ms of a shrunk 1 s timeout',
      {
        outcome: 'fail',
        durationMs: 950,
        errorKind: 'refused',
        timeoutMsUsed: 1000,
      },
      true,
    ],
    [
      'a refusal after 3 ms',
      {
        outcome: 'fail',
        durationMs: 3,
        errorKind: 'refused',
        timeoutMsUsed: 5000,
      },
      false,
    ],
    [
      'a slow TLS failure',
      {
        outcome: 'fail',
        durationMs: 4800,
        errorKind: 'tls',
        timeoutMsUsed: 5000,
      },
      true,
    ],
    [
      'a slow DNS failure',
      {
        outcome: 'fail',
        durationMs: 4800,
        errorKind: 'dns',
        timeoutMsUsed: 5000,
      },
      true,
    ],
    [
      'a slow error of no known kind',
      {
        outcome: 'fail',
        durationMs: 4800,
        errorKind: 'other',
        timeoutMsUsed: 5000,
      },
      true,
    ],
    [
      'a network guard refusal, however long',
      {
        outcome: 'fail',
        durationMs: 4800,
        errorKind: 'guard',
        timeoutMsUsed: 5000,
      },
      false,
    ],
    [
      'a config error, however long',
      {
        outcome: 'fail',
        durationMs: 4800,
        errorKind: 'config',
        timeoutMsUsed: 5000,
      },
      false,
    ],
    [
      'a slow answer that failed a condition (the server answered)',
      { outcome: 'fail', durationMs: 4900, timeoutMsUsed: 5000 },
      false,
    ],
    ['a slow pass', passed(4900), false],
    [
      'a slow degraded run',
      { outcome: 'degraded', durationMs: 4900, timeoutMsUsed: 5000 },
      false,
    ],
  ])('%s: %p', (_name, run, expected) => {
    expect(isSlowTransportFailure(run, 0.9)).toBe(expected);
  });
});

describe('healthyBaselineMs', () => {
  it.each<[number[], number, number | undefined]>([
    [[], 90, undefined],
    [[40], 90, 40],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 90, 90],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 50, 50],
    [[10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 100, 100],
    [[100, 10, 90, 20, 80, 30, 70, 40, 60, 50], 90, 90],
    [[5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 900], 90, 5],
    [[5, 5, 5, 5, 5, 5, 5, 5, 900, 900], 90, 900],
  ])('of %p at p%p is %p', (durations, percentile, expected) => {
    expect(healthyBaselineMs(durations, percentile)).toBe(expected);
  });
});

describe('recordRun', () => {
  it('puts the newest run first and keeps only the newest', () => {
    const history = historyOf(passed(1), passed(2), passed(3));
    expect(history.recentRuns.map(run => run.durationMs)).toEqual([3, 2, 1]);

    const trimmed = [passed(1), passed(2), passed(3)].reduce(
      (h, run) => recordRun(h, run, { runsKept: 2, baselineSamples: 2 }),
      EMPTY_SLICE_HISTORY,
    );
    expect(trimmed.recentRuns.map(run => run.durationMs)).toEqual([3, 2]);
    expect(trimmed.healthyDurationsMs).toEqual([3, 2]);
  });

  it('takes healthy durations from passed and degraded runs only', () => {
    const history = historyOf(
      passed(40),
      timedOut(),
      { outcome: 'degraded', durationMs: 700, timeoutMsUsed: 5000 },
      {
        outcome: 'fail',
        durationMs: 12,
        errorKind: 'refused',
        timeoutMsUsed: 5000,
      },
      { outcome: 'fail', durationMs: 30, timeoutMsUsed: 5000 },
    );
    expect(history.healthyDurationsMs).toEqual([700, 40]);
  });

  it('keeps the healthy samples through an outage longer than the run window', () => {
    const outage = Array.from({ length: 50 }, () => timedOut());
    const history = historyOf(passed(40), passed(60), ...outage);
    expect(history.recentRuns).toHaveLength(20);
    expect(history.recentRuns.every(run => run.outcome === 'fail')).toBe(true);
    expect(history.healthyDurationsMs).toEqual([60, 40]);
  });

  it('does not change the history it was given', () => {
    const history = historyOf(passed(40));
    recordRun(history, timedOut(), LIMITS);
    expect(history.recentRuns).toHaveLength(1);
  });
});

describe('classifySlice', () => {
  const options = DEFAULT_ADMISSION_OPTIONS; // K = 3, 90%, p90

  it('calls a slice with no runs not suspect, without a baseline', () => {
    expect(classifySlice(EMPTY_SLICE_HISTORY, options)).toEqual({
      suspect: false,
      slowFailureStreak: 0,
      shrunkRunsInARow: 0,
      baselineMs: undefined,
    });
  });

  it.each<[string, RecordedRun[], boolean, number]>([
    ['two timeouts', [timedOut(), timedOut()], false, 2],
    ['three timeouts', [timedOut(), timedOut(), timedOut()], true, 3],
    [
      'three timeouts then a pass',
      [timedOut(), timedOut(), timedOut(), passed(40)],
      false,
      0,
    ],
    [
      'a pass then three timeouts',
      [passed(40), timedOut(), timedOut(), timedOut()],
      true,
      3,
    ],
    [
      'timeouts broken by a fast refusal',
      [
        timedOut(),
        timedOut(),
        {
          outcome: 'fail',
          durationMs: 4,
          errorKind: 'refused',
          timeoutMsUsed: 5000,
        },
        timedOut(),
      ],
      false,
      1,
    ],
  ])('%s: suspect %p', (_name, runs, suspect, streak) => {
    const classification = classifySlice(historyOf(...runs), options);
    expect(classification.suspect).toBe(suspect);
    expect(classification.slowFailureStreak).toBe(streak);
    // The bulkhead asks isSliceSuspect first, and classifies in full only
    // then: both must agree.
    expect(isSliceSuspect(historyOf(...runs), options)).toBe(suspect);
  });

  it('follows K', () => {
    const history = historyOf(timedOut(), timedOut());
    for (const [suspectAfterRuns, suspect] of [
      [1, true],
      [2, true],
      [3, false],
    ] as const) {
      expect(
        classifySlice(history, { ...options, suspectAfterRuns }).suspect,
      ).toBe(suspect);
      expect(isSliceSuspect(history, { ...options, suspectAfterRuns })).toBe(
        suspect,
      );
    }
  });

  it('keeps a slice suspect while its shrunk runs time out (not the seed rule)', () => {
    // Three full 5 s timeouts make the slice suspect; its next runs get 1 s
    // and time out at 1 s, or fail slowly within it.
    const runs: RecordedRun[] = [
      timedOut(5000),
      timedOut(5000),
      timedOut(5000),
      timedOut(1000),
      {
        outcome: 'fail',
        durationMs: 960,
        errorKind: 'reset',
        timeoutMsUsed: 1000,
        fullTimeoutProbe: false,
      },
      timedOut(1000),
    ];
    const ours = classifySlice(historyOf(...runs), options);
    expect(ours).toMatchObject({ suspect: true, slowFailureStreak: 6 });

    // The seed judged every run against the configured 5 s, so the first
    // shrunk run already looked fast and ended the streak.
    const seedRule = (run: RecordedRun) =>
      run.outcome === 'fail' && run.durationMs >= 0.9 * CONFIGURED_TIMEOUT_MS;
    const seedStreak = [...runs].reverse().findIndex(run => !seedRule(run));
    expect(seedStreak).toBe(0);
  });

  it('counts the shrunk runs since the last full-timeout run', () => {
    expect(
      classifySlice(
        historyOf(timedOut(), timedOut(), timedOut(), timedOut(1000)),
        options,
      ).shrunkRunsInARow,
    ).toBe(1);
    expect(
      classifySlice(
        historyOf(timedOut(1000), timedOut(1000), timedOut(5000)),
        options,
      ).shrunkRunsInARow,
    ).toBe(0);
    const unflagged: RecordedRun = {
      outcome: 'fail',
      durationMs: 1000,
      errorKind: 'timeout',
      timeoutMsUsed: 1000,
    };
    expect(
      classifySlice(historyOf(timedOut(), unflagged, unflagged), options)
        .shrunkRunsInARow,
    ).toBe(2);
  });

  it('takes the baseline from healthy runs only, at p90', () => {
    const history = historyOf(
      ...[10, 20, 30, 40, 50, 60, 70, 80, 90, 100].map(passed),
      timedOut(),
      timedOut(),
      timedOut(),
    );
    expect(classifySlice(history, options).baselineMs).toBe(90);
    expect(
      classifySlice(history, { ...options, baselinePercentile: 50 }).baselineMs,
    ).toBe(50);
  });
});
