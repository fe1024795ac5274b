import { InputError } from '@backstage/errors';
import {
  DEFAULT_STATUS_THRESHOLDS,
  RunOutcome,
  SliceStatus,
  SliceStatusState,
  StatusThresholds,
  applyRunOutcome,
  initialSliceStatusState,
  resolveStatusThresholds,
} from './sliceStatus';

const CREATED_AT = 1_767_225_600_000; // 2026-01-01T00:00:00Z
const INTERVAL_MS = 30_000;

/** Feeds runs one interval apart and returns the status after each. */
function statusesAfter(
  outcomes: RunOutcome[],
  thresholds: StatusThresholds = DEFAULT_STATUS_THRESHOLDS,
  start: SliceStatusState = initialSliceStatusState(CREATED_AT),
): SliceStatus[] {
  let state = start;
  return outcomes.map((outcome, index) => {
    state = applyRunOutcome(
      state,
      { outcome, at: CREATED_AT + (index + 1) * INTERVAL_MS },
      thresholds,
    ).state;
    return state.status;
  });
}

/** The state a slice reaches through some runs, for tests that start there. */
function stateAfter(
  outcomes: RunOutcome[],
  thresholds: StatusThresholds = DEFAULT_STATUS_THRESHOLDS,
): SliceStatusState {
  let state = initialSliceStatusState(CREATED_AT);
  outcomes.forEach((outcome, index) => {
    state = applyRunOutcome(
      state,
      { outcome, at: CREATED_AT + (index + 1) * INTERVAL_MS },
      thresholds,
    ).state;
  });
  return state;
}

describe('applyRunOutcome', () => {
  describe('with the default thresholds (2 failures down, 1 success up)', () => {
    it.each<[string, RunOutcome[], SliceStatus[]]>([
      ['a first pass makes a new slice healthy', ['pass'], ['healthy']],
      [
        'a first degraded run makes a new slice degraded',
        ['degraded'],
        ['degraded'],
      ],
      ['a first failure leaves a new slice unknown', ['fail'], ['unknown']],
      [
        'two first failures make a new slice unhealthy',
        ['fail', 'fail'],
        ['unknown', 'unhealthy'],
      ],
      [
        'a pass after one failure makes a new slice healthy',
        ['fail', 'pass'],
        ['unknown', 'healthy'],
      ],
      [
        'one lost packet does not take a healthy slice down',
        ['pass', 'fail', 'pass'],
        ['healthy', 'healthy', 'healthy'],
      ],
      [
        'two failures in a row take a healthy slice down',
        ['pass', 'fail', 'fail'],
        ['healthy', 'healthy', 'unhealthy'],
      ],
      [
        'failures that are not in a row never take it down',
        ['pass', 'fail', 'pass', 'fail', 'pass', 'fail'],
        ['healthy', 'healthy', 'healthy', 'healthy', 'healthy', 'healthy'],
      ],
      [
        'a degraded run ends a failure streak',
        ['pass', 'fail', 'degraded', 'fail'],
        ['healthy', 'healthy', 'degraded', 'degraded'],
      ],
      [
        'one pass brings an unhealthy slice back',
        ['fail', 'fail', 'pass'],
        ['unknown', 'unhealthy', 'healthy'],
      ],
      [
        'a degraded run brings an unhealthy slice back as degraded',
        ['fail', 'fail', 'degraded'],
        ['unknown', 'unhealthy', 'degraded'],
      ],
      [
        'more failures keep an unhealthy slice unhealthy',
        ['fail', 'fail', 'fail', 'fail'],
        ['unknown', 'unhealthy', 'unhealthy', 'unhealthy'],
      ],
      [
        'healthy and degraded follow each run at once',
        ['pass', 'degraded', 'pass', 'degraded'],
        ['healthy', 'degraded', 'healthy', 'degraded'],
      ],
      [
        'a degraded slice goes down after two failures too',
        ['degraded', 'fail', 'fail'],
        ['degraded', 'degraded', 'unhealthy'],
      ],
    ])('%s', (_name, outcomes, expected) => {
      expect(statusesAfter(outcomes)).toEqual(expected);
    });
  });

  describe('with thresholds of 3 failures down and 3 successes up', () => {
    const thresholds = { failure: 3, success: 3 };

    it.each<[string, RunOutcome[], SliceStatus[]]>([
      [
        'a new slice stays unknown for two failures and goes down on the third',
        ['fail', 'fail', 'fail'],
        ['unknown', 'unknown', 'unhealthy'],
      ],
      [
        'a healthy slice goes down on the third failure in a row',
        ['pass', 'fail', 'fail', 'fail'],
        ['healthy', 'healthy', 'healthy', 'unhealthy'],
      ],
      [
        'an unhealthy slice needs three runs in a row that do not fail',
        ['fail', 'fail', 'fail', 'pass', 'pass', 'pass'],
        [
          'unknown',
          'unknown',
          'unhealthy',
          'unhealthy',
          'unhealthy',
          'healthy',
        ],
      ],
      [
        'a failure during recovery starts the count again',
        [
          'fail',
          'fail',
          'fail',
          'pass',
          'pass',
          'fail',
          'pass',
          'pass',
          'pass',
        ],
        [
          'unknown',
          'unknown',
          'unhealthy',
          'unhealthy',
          'unhealthy',
          'unhealthy',
          'unhealthy',
          'unhealthy',
          'healthy',
        ],
      ],
      [
        'degraded runs count toward recovery and the last run decides the status',
        ['fail', 'fail', 'fail', 'degraded', 'pass', 'degraded'],
        [
          'unknown',
          'unknown',
          'unhealthy',
          'unhealthy',
          'unhealthy',
          'degraded',
        ],
      ],
      [
        'a first pass still makes a new slice healthy at once',
        ['pass'],
        ['healthy'],
      ],
    ])('%s', (_name, outcomes, expected) => {
      expect(statusesAfter(outcomes, thresholds)).toEqual(expected);
    });
  });

  it('with a failure threshold of 1, a single failure takes a slice down', () => {
    expect(
      statusesAfter(['pass', 'fail', 'pass'], { failure: 1, success: 1 }),
    ).toEqual(['healthy', 'unhealthy', 'healthy']);
  });

  it('counts failures and successes in a row', () => {
    const counts = (outcomes: RunOutcome[]) => {
      const state = stateAfter(outcomes);
      return [state.consecutiveFailures, state.consecutiveSuccesses];
    };
    expect(counts([])).toEqual([0, 0]);
    expect(counts(['fail', 'fail', 'fail'])).toEqual([3, 0]);
    expect(counts(['fail', 'fail', 'pass', 'degraded'])).toEqual([0, 2]);
    expect(counts(['pass', 'pass', 'fail'])).toEqual([1, 0]);
  });

  it('reports the change and moves `since` to the run that made it', () => {
    const healthy = stateAfter(['pass']);
    expect(healthy.since).toBe(CREATED_AT + INTERVAL_MS);

    const firstFailure = applyRunOutcome(healthy, {
      outcome: 'fail',
      at: CREATED_AT + 2 * INTERVAL_MS,
    });
    expect(firstFailure).toEqual({
      state: {
        status: 'healthy',
        consecutiveFailures: 1,
        consecutiveSuccesses: 0,
        since: CREATED_AT + INTERVAL_MS,
        lastOutcome: 'fail',
      },
      changed: false,
      from: 'healthy',
      to: 'healthy',
    });

    const secondFailure = applyRunOutcome(firstFailure.state, {
      outcome: 'fail',
      at: CREATED_AT + 3 * INTERVAL_MS,
    });
    expect(secondFailure).toEqual({
      state: {
        status: 'unhealthy',
        consecutiveFailures: 2,
        consecutiveSuccesses: 0,
        since: CREATED_AT + 3 * INTERVAL_MS,
        lastOutcome: 'fail',
      },
      changed: true,
      from: 'healthy',
      to: 'unhealthy',
    });
  });

  it('keeps `since` at creation while a new slice stays unknown', () => {
    const state = stateAfter(['fail']);
    expect(state).toMatchObject({
      status: 'unknown',
      since: CREATED_AT,
      lastOutcome: 'fail',
    });
  });

  it('does not change the state it was given', () => {
    const state = Object.freeze(stateAfter(['pass']));
    const copy = { ...state };
    applyRunOutcome(state, { outcome: 'fail', at: CREATED_AT + 1 });
    expect(state).toEqual(copy);
  });

  it('keeps the streaks of interleaved slices apart', () => {
    // Two environments of one check, ticking alternately: production fails
    // every run, staging fails every other run. A shared streak would see
    // four failures in a row by the fourth run and take both down.
    let production = initialSliceStatusState(CREATED_AT);
    let staging = initialSliceStatusState(CREATED_AT);
    const timeline: string[] = [];
    const runs: Array<['production' | 'staging', RunOutcome]> = [
      ['production', 'pass'],
      ['staging', 'pass'],
      ['production', 'fail'],
      ['staging', 'fail'],
      ['production', 'fail'],
      ['staging', 'pass'],
      ['production', 'fail'],
      ['staging', 'fail'],
    ];
    runs.forEach(([slice, outcome], index) => {
      const run = { outcome, at: CREATED_AT + index * 1000 };
      if (slice === 'production') {
        production = applyRunOutcome(production, run).state;
      } else {
        staging = applyRunOutcome(staging, run).state;
      }
      timeline.push(`${production.status}/${staging.status}`);
    });
    expect(timeline).toEqual([
      'healthy/unknown',
      'healthy/healthy',
      'healthy/healthy',
      'healthy/healthy',
      'unhealthy/healthy',
      'unhealthy/healthy',
      'unhealthy/healthy',
      'unhealthy/healthy',
    ]);
    expect(production.consecutiveFailures).toBe(3);
    expect(staging.consecutiveFailures).toBe(1);
  });

  it('refuses an outcome it does not know', () => {
    expect(() =>
      applyRunOutcome(initialSliceStatusState(CREATED_AT), {
        outcome: 'paused' as RunOutcome,
        at: CREATED_AT,
      }),
    ).toThrow('Unknown run outcome "paused"');
  });

  it('refuses a run without a time', () => {
    expect(() =>
      applyRunOutcome(initialSliceStatusState(CREATED_AT), {
        outcome: 'pass',
        at: NaN,
      }),
    ).toThrow(TypeError);
  });
});

describe('resolveStatusThresholds', () => {
  it('fills in 2 failures and 1 success by default', () => {
    expect(resolveStatusThresholds()).toEqual({ failure: 2, success: 1 });
    expect(resolveStatusThresholds({ success: 3 })).toEqual({
      failure: 2,
      success: 3,
    });
  });

  it.each([
    [
      { failure: 0 },
      'thresholds.failure must be a whole number of at least 1, got 0',
    ],
    [
      { success: 1.5 },
      'thresholds.success must be a whole number of at least 1, got 1.5',
    ],
    [
      { failure: -2 },
      'thresholds.failure must be a whole number of at least 1, got -2',
    ],
    [
      { failure: '3' },
      'thresholds.failure must be a whole number of at least 1, got "3"',
    ],
    [
      { success: NaN },
      'thresholds.success must be a whole number of at least 1, got NaN',
    ],
  ])('refuses %p', (thresholds, message) => {
    expect(() => resolveStatusThresholds(thresholds)).toThrow(
      new InputError(message),
    );
  });

  it('is applied by applyRunOutcome too', () => {
    expect(() =>
      applyRunOutcome(
        initialSliceStatusState(CREATED_AT),
        { outcome: 'pass', at: CREATED_AT },
        { failure: 0, success: 1 },
      ),
    ).toThrow(InputError);
  });
});
