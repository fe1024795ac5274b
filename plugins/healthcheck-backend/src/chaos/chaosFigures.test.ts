import { claimKeyAt } from '../scheduler';
import type { Flip, Hit } from './ChaosTargets';
import {
  announceFlips,
  notificationsOfUser,
  probesOf,
  type RunRow,
  type ScenarioTimeline,
  type SentNotification,
  type StoredNotification,
  type SuiteSlice,
  tickFigures,
  tickLabel,
  ticksBetween,
} from './chaosFigures';

const slice: SuiteSlice = {
  id: 'healthcheck:steady:system%3Adefault%2Falpha:production',
  check: 'steady',
  system: 'alpha',
  environment: 'production',
  intervalMs: 2_000,
};
const START = 1_000_000;
const END = START + 20_000;
/** The ten grid ticks of the slice in [START, END). */
const ticks = ticksBetween(slice, START, END);

function hitAt(at: number, instance = 'chaos-a'): Hit {
  return {
    at,
    check: 'steady',
    system: 'alpha',
    environment: 'production',
    instance,
  };
}

/** A completed run of the tick, probed 10 ms after it for 5 ms. */
function runOf(tick: number, claimedBy = 'chaos-a'): RunRow {
  return {
    sliceId: slice.id,
    scheduledAt: tick,
    claimedBy,
    startedAt: tick + 10,
    durationMs: 5,
  };
}

function timeline(overrides: Partial<ScenarioTimeline> = {}): ScenarioTimeline {
  return {
    name: 'test',
    from: START,
    to: END,
    faults: [],
    takeovers: [],
    kills: [],
    ...overrides,
  };
}

function figuresOf(hits: Hit[], runs: RunRow[], scenario = timeline()) {
  return tickFigures({
    timeline: scenario,
    slices: [slice],
    probes: probesOf(hits, [slice], runs),
    runs,
    killCutOffMs: 1_000,
  });
}

describe('tickLabel', () => {
  it('names the check, the environment and the tick in UTC', () => {
    expect(tickLabel(slice, Date.UTC(2026, 0, 1, 12, 0, 4, 79))).toBe(
      'steady alpha/production @12:00:04.079',
    );
  });
});

describe('ticksBetween', () => {
  it('lists the grid points of the slice, one interval apart, from inclusive', () => {
    expect(ticks).toHaveLength(10);
    for (const tick of ticks) {
      expect(claimKeyAt(slice.id, tick, slice.intervalMs)).toBe(tick);
    }
    expect(ticks[1] - ticks[0]).toBe(2_000);
    expect(ticksBetween(slice, ticks[0], ticks[1])).toEqual([ticks[0]]);
  });
});

describe('probesOf', () => {
  it('ties a hit to the run that made it, and a hit no run made to the grid point before it', () => {
    const probes = probesOf(
      [hitAt(ticks[0] + 12), hitAt(ticks[0] + 14), hitAt(ticks[3] + 700)],
      [slice],
      [runOf(ticks[0])],
    );
    expect(probes).toEqual([
      expect.objectContaining({ tick: ticks[0], recorded: true }),
      // One run stands for one hit.
      expect.objectContaining({ tick: ticks[0], recorded: false }),
      expect.objectContaining({ tick: ticks[3], recorded: false }),
    ]);
  });

  it('leaves out hits of slices it was not given', () => {
    expect(
      probesOf([{ ...hitAt(ticks[0]), check: 'churn' }], [slice], []),
    ).toEqual([]);
  });
});

describe('tickFigures', () => {
  it('finds nothing wrong when every tick is probed once and recorded', () => {
    const figures = figuresOf(
      ticks.map(tick => hitAt(tick + 12)),
      ticks.map(tick => runOf(tick)),
    );
    expect(figures.up).toEqual({ due: 10, probed: 10, missed: [] });
    expect(figures.fault.due).toBe(0);
    expect(figures.runTwice).toEqual([]);
    expect(figures.lost).toEqual([]);
  });

  it('counts the ticks of an outage apart, and each tick it left without a run as lost', () => {
    const outage = { phase: 'outage' as const, from: ticks[5], to: END };
    const hits = ticks.slice(0, 5).map(tick => hitAt(tick + 12));
    const figures = figuresOf(
      hits,
      ticks.slice(0, 5).map(tick => runOf(tick)),
      timeline({ faults: [outage] }),
    );
    expect(figures.up).toMatchObject({ due: 5, probed: 5 });
    expect(figures.fault).toMatchObject({ due: 5, probed: 0 });
    expect(figures.fault.missed[0]).toBe(tickLabel(slice, ticks[5]));
    expect(figures.lost).toHaveLength(5);
    expect(figures.lost[0]).toBe(
      `${tickLabel(
        slice,
        ticks[5],
      )} (outage): no run in the database (never claimed)`,
    );
  });

  it('calls a probe no run stands for lost, even when the tick was probed', () => {
    const figures = figuresOf([hitAt(ticks[2] + 12, 'chaos-b')], []);
    expect(figures.up.probed).toBe(1);
    expect(figures.lost).toContain(
      `${tickLabel(
        slice,
        ticks[2],
      )} (up): no run in the database (never claimed, probed)`,
    );
    expect(figures.lost).toHaveLength(10);
  });

  it('counts a tick probed twice while the database is up, whoever probed it', () => {
    const figures = figuresOf(
      [hitAt(ticks[4] + 12, 'chaos-a'), hitAt(ticks[4] + 40, 'chaos-b')],
      [runOf(ticks[4])],
    );
    expect(figures.runTwice).toEqual([
      `${tickLabel(slice, ticks[4])}: chaos-a, chaos-b`,
    ]);
  });

  it('lets each instance probe a tick once during an outage, not twice', () => {
    const outage = timeline({
      faults: [{ phase: 'outage', from: START, to: END }],
    });
    const onceEach = figuresOf(
      [hitAt(ticks[4] + 12, 'chaos-a'), hitAt(ticks[4] + 40, 'chaos-b')],
      [
        runOf(ticks[4]),
        { ...runOf(ticks[4], 'chaos-b'), startedAt: ticks[4] + 38 },
      ],
      outage,
    );
    expect(onceEach.runTwice).toEqual([]);
    const twiceByOne = figuresOf(
      [hitAt(ticks[4] + 12, 'chaos-a'), hitAt(ticks[4] + 40, 'chaos-a')],
      [runOf(ticks[4])],
      outage,
    );
    expect(twiceByOne.runTwice).toHaveLength(1);
  });

  it('sets takeover windows apart: no target, and their unprobed ticks are not lost', () => {
    const figures = figuresOf(
      ticks.slice(0, 5).map(tick => hitAt(tick + 12)),
      ticks.slice(0, 5).map(tick => runOf(tick)),
      timeline({ takeovers: [{ from: ticks[5], to: END }] }),
    );
    expect(figures.up).toMatchObject({ due: 5, probed: 5 });
    expect(figures.takeover).toMatchObject({ due: 5, probed: 0 });
    expect(figures.lost).toEqual([]);
  });

  describe('around a SIGKILL of chaos-b just after the 7th tick', () => {
    /** Ticks 1-6 probed and recorded by chaos-a; the 7th as given. */
    function figuresAroundKill(
      seventh: { hits?: Hit[]; runs?: RunRow[] },
      killedAt = ticks[6] + 30,
    ) {
      return figuresOf(
        [
          ...ticks.slice(0, 6).map(tick => hitAt(tick + 12)),
          ...(seventh.hits ?? []),
        ],
        [
          ...ticks.slice(0, 6).map(tick => runOf(tick)),
          ...(seventh.runs ?? []),
        ],
        timeline({
          takeovers: [{ from: killedAt, to: END }],
          kills: [{ instance: 'chaos-b', at: killedAt }],
        }),
      );
    }
    const claimedOnly = (tick: number, instance: string): RunRow => ({
      ...runOf(tick, instance),
      startedAt: undefined,
    });

    it('does not count a probe the kill cut off before its run was recorded as lost', () => {
      const figures = figuresAroundKill(
        { hits: [hitAt(ticks[6] + 12, 'chaos-b')] },
        ticks[6] + 500,
      );
      expect(figures.cutOffByKill).toBe(1);
      expect(figures.up).toMatchObject({ due: 6, probed: 6 });
      expect(figures.lost).toEqual([]);
    });

    it('does not count a tick the killed instance had claimed and not probed as lost', () => {
      const figures = figuresAroundKill({
        runs: [claimedOnly(ticks[6], 'chaos-b')],
      });
      expect(figures.cutOffByKill).toBe(1);
      expect(figures.up).toMatchObject({ due: 6, probed: 6 });
      expect(figures.lost).toEqual([]);
    });

    it('does not count a tick nobody had claimed yet as lost', () => {
      const figures = figuresAroundKill({});
      expect(figures.cutOffByKill).toBe(1);
      expect(figures.up).toMatchObject({ due: 6, probed: 6 });
      expect(figures.lost).toEqual([]);
    });

    it('counts as lost a tick claimed by a live instance, or claimed by the killed one long before, and never run', () => {
      const figures = figuresAroundKill({
        runs: [claimedOnly(ticks[6], 'chaos-a')],
      });
      expect(figures.cutOffByKill).toBe(0);
      expect(figures.lost).toEqual([
        expect.stringMatching(
          /@.*\(up\): no run in the database \(claimed by chaos-a, never completed\)/,
        ),
      ]);

      const early = figuresOf(
        [],
        [claimedOnly(ticks[3], 'chaos-b')],
        timeline({ kills: [{ instance: 'chaos-b', at: ticks[6] + 30 }] }),
      );
      expect(early.lost).toContainEqual(
        expect.stringMatching(
          /@.*\(up\): no run in the database \(claimed by chaos-b, never completed\)/,
        ),
      );
      // The 7th tick, unclaimed just before the kill, is cut off.
      expect(early.cutOffByKill).toBe(1);
    });
  });
});

describe('announceFlips', () => {
  const flip = (at: number, failing: boolean): Flip => ({
    at,
    system: 'alpha',
    environment: 'production',
    failing,
  });
  const sent = (
    at: number,
    kind: SentNotification['kind'],
  ): SentNotification => ({
    at,
    kind,
    system: 'alpha',
    environment: 'production',
    instance: 'chaos-a',
  });
  const counts = (result: ReturnType<typeof announceFlips>) =>
    result.flips.map(f => f.notifications);

  it('ties each notification to its flip', () => {
    const result = announceFlips(
      [flip(0, true), flip(10_000, false)],
      [sent(4_000, 'unhealthy'), sent(11_000, 'recovered')],
    );
    expect(counts(result)).toEqual([1, 1]);
    expect(result.spurious).toEqual([]);
  });

  it('finds a round trip nobody announced, and a repeated notification', () => {
    expect(
      counts(announceFlips([flip(0, true), flip(10_000, false)], [])),
    ).toEqual([0, 0]);
    expect(
      counts(
        announceFlips(
          [flip(0, true)],
          [sent(4_000, 'unhealthy'), sent(4_100, 'unhealthy')],
        ),
      ),
    ).toEqual([2]);
  });

  it('accepts announcements that come late, after the next flip, in order', () => {
    const result = announceFlips(
      [flip(0, true), flip(10_000, false)],
      [sent(60_000, 'unhealthy'), sent(60_100, 'recovered')],
    );
    expect(counts(result)).toEqual([1, 1]);
  });

  it('passes over a flip never announced rather than calling the next announcement a repeat', () => {
    const result = announceFlips(
      [flip(0, true), flip(10_000, false), flip(20_000, true)],
      [sent(2_000, 'unhealthy'), sent(22_000, 'unhealthy')],
    );
    expect(counts(result)).toEqual([1, 0, 1]);
  });

  it('calls a notification that fits no flip spurious', () => {
    const result = announceFlips([], [sent(1_000, 'unhealthy')]);
    expect(result.spurious).toHaveLength(1);
  });
});

describe('notificationsOfUser', () => {
  const OWNER = 'user:default/chaos-owner';
  const row = (
    createdAt: number,
    scope: string,
    title: string,
    overrides: Partial<StoredNotification> = {},
  ): StoredNotification => ({
    user: OWNER,
    scope,
    title,
    createdAt,
    ...overrides,
  });
  const failedAt = 'healthcheck:system:default/alpha:production:1000000';
  const recoveredAt = 'healthcheck:system:default/alpha:production:1010000';

  it("reads the owner's notifications oldest first, each from its scope and title", () => {
    expect(
      notificationsOfUser(
        [
          row(1_011_000, recoveredAt, 'alpha in production recovered'),
          row(1_001_000, failedAt, 'alpha in production is unhealthy', {
            updatedAt: 1_030_000,
          }),
          row(
            1_002_000,
            'healthcheck:system:default/bravo:dev:1000500',
            'bravo in dev is unhealthy (upstream)',
            { user: 'user:default/someone-else' },
          ),
        ],
        OWNER,
      ),
    ).toEqual([
      {
        at: 1_001_000,
        system: 'alpha',
        environment: 'production',
        kind: 'unhealthy',
        scope: failedAt,
        updatedAt: 1_030_000,
      },
      {
        at: 1_011_000,
        system: 'alpha',
        environment: 'production',
        kind: 'recovered',
        scope: recoveredAt,
        updatedAt: undefined,
      },
    ]);
  });

  it('counts a second row of one scope as a repeat the owner sees, where a delivery that updated its row is one', () => {
    const flips: Flip[] = [
      {
        at: 999_000,
        system: 'alpha',
        environment: 'production',
        failing: true,
      },
    ];
    const counts = (rows: StoredNotification[]) =>
      announceFlips(flips, notificationsOfUser(rows, OWNER)).flips.map(
        f => f.notifications,
      );
    expect(
      counts([
        row(1_001_000, failedAt, 'alpha in production is unhealthy', {
          updatedAt: 1_040_000,
        }),
      ]),
    ).toEqual([1]);
    const twice = [
      row(1_001_000, failedAt, 'alpha in production is unhealthy'),
      row(1_040_000, failedAt, 'alpha in production is unhealthy'),
    ];
    expect(counts(twice)).toEqual([2]);
    // Which, to tell a second row of one scope from a second transition.
    expect(
      announceFlips(flips, notificationsOfUser(twice, OWNER)).flips[0].by.map(
        n => [n.at, n.scope],
      ),
    ).toEqual([
      [1_001_000, failedAt],
      [1_040_000, failedAt],
    ]);
  });
});
