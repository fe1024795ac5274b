import {
  HistoryRun,
  timeWeightedUptime,
  toHistoryStatus,
  uptimeRatio,
} from './timeWeightedUptime';

/** 10:00 UTC on 1 December 2026. */
const TEN = Date.UTC(2026, 11, 1, 10);
const minute = 60_000;
/** Epoch ms of 10:00 plus `minutes`. */
const at = (minutes: number) => TEN + minutes * minute;

function run(
  minutes: number,
  status: string,
  outcome: HistoryRun['outcome'] = status === 'unhealthy' ? 'fail' : 'pass',
): HistoryRun {
  return { startedAt: at(minutes), status, outcome, durationMs: 100 };
}

/** A pause marker: status paused, no outcome, no duration. */
function pausedAt(minutes: number): HistoryRun {
  return { startedAt: at(minutes), status: 'paused', outcome: null };
}

describe('timeWeightedUptime', () => {
  describe('a steady slice', () => {
    it('is up for the whole window when every run leaves it healthy', () => {
      const runs = [0, 10, 20, 30, 40, 50].map(m => run(m, 'healthy'));
      expect(timeWeightedUptime({ from: at(0), to: at(60), runs })).toEqual({
        upSeconds: 3600,
        downSeconds: 0,
        unknownSeconds: 0,
        pausedSeconds: 0,
        uptime: 1,
        statusAtStart: undefined,
        statusAtEnd: 'healthy',
      });
    });

    it('counts degraded as up', () => {
      const result = timeWeightedUptime({
        from: at(0),
        to: at(60),
        statusAtStart: 'degraded',
        runs: [run(30, 'degraded', 'degraded')],
      });
      expect(result).toMatchObject({ upSeconds: 3600, uptime: 1 });
    });
  });

  describe('a failure streak', () => {
    it('is down from the run that turned the slice unhealthy to the run that brought it back', () => {
      // The judge needs two failures: the first fail leaves the slice
      // healthy, the second turns it unhealthy; a pass brings it back.
      const runs = [
        run(0, 'healthy'),
        run(10, 'healthy', 'fail'),
        run(20, 'unhealthy'),
        run(30, 'unhealthy'),
        run(40, 'healthy'),
        run(50, 'healthy'),
      ];
      expect(
        timeWeightedUptime({ from: at(0), to: at(60), runs }),
      ).toMatchObject({
        upSeconds: 40 * 60,
        downSeconds: 20 * 60,
        unknownSeconds: 0,
        uptime: 2 / 3,
      });
    });

    it('is down all window long when an unhealthy status carries in and stays', () => {
      expect(
        timeWeightedUptime({
          from: at(0),
          to: at(60),
          statusAtStart: 'unhealthy',
          runs: [run(30, 'unhealthy')],
        }),
      ).toMatchObject({ upSeconds: 0, downSeconds: 3600, uptime: 0 });
    });
  });

  describe('a gap between runs', () => {
    it('counts the time between runs as the status of the run before the gap', () => {
      // Nothing ran from 10:05 to 10:45: those 40 minutes are unhealthy
      // because that is what the 10:05 run said.
      const runs = [run(0, 'healthy'), run(5, 'unhealthy'), run(45, 'healthy')];
      expect(
        timeWeightedUptime({ from: at(0), to: at(60), runs }),
      ).toMatchObject({
        upSeconds: (5 + 15) * 60,
        downSeconds: 40 * 60,
        uptime: 1 / 3,
      });
    });

    it('carries the status from before the window through a window without runs', () => {
      expect(
        timeWeightedUptime({
          from: at(0),
          to: at(60),
          statusAtStart: 'healthy',
          runs: [],
        }),
      ).toMatchObject({
        upSeconds: 3600,
        statusAtStart: 'healthy',
        statusAtEnd: 'healthy',
      });
    });
  });

  describe('a paused interval', () => {
    it('is paused from the marker to the next real run, and paused time is left out of up-time', () => {
      const runs = [
        run(0, 'healthy'),
        run(10, 'unhealthy'),
        pausedAt(20),
        run(50, 'healthy'),
      ];
      const result = timeWeightedUptime({ from: at(0), to: at(60), runs });
      expect(result).toEqual({
        upSeconds: 20 * 60,
        downSeconds: 10 * 60,
        unknownSeconds: 0,
        pausedSeconds: 30 * 60,
        uptime: 2 / 3,
        statusAtStart: undefined,
        statusAtEnd: 'healthy',
      });
    });

    it('has no up-time at all for a slice paused all window long', () => {
      expect(
        timeWeightedUptime({
          from: at(0),
          to: at(60),
          statusAtStart: 'paused',
          runs: [],
        }),
      ).toMatchObject({
        pausedSeconds: 3600,
        upSeconds: 0,
        downSeconds: 0,
        uptime: undefined,
      });
    });
  });

  describe('window boundaries', () => {
    it('counts only the part inside the window of an interval that starts before it', () => {
      // healthy from 9:30, unhealthy from 10:20: the window sees 20
      // minutes of the healthy interval, not 50.
      const runs = [run(-30, 'healthy'), run(20, 'unhealthy')];
      expect(
        timeWeightedUptime({ from: at(0), to: at(60), runs }),
      ).toMatchObject({
        upSeconds: 20 * 60,
        downSeconds: 40 * 60,
        statusAtStart: 'healthy',
      });
    });

    it('lets the latest run before the window win over the given status at the start', () => {
      expect(
        timeWeightedUptime({
          from: at(0),
          to: at(60),
          statusAtStart: 'healthy',
          runs: [run(-1, 'unhealthy')],
        }),
      ).toMatchObject({ downSeconds: 3600, statusAtStart: 'unhealthy' });
    });

    it('counts only the part inside the window of an interval that ends after it, and ignores runs at or after the end', () => {
      const runs = [run(40, 'unhealthy'), run(60, 'healthy'), run(70, 'x')];
      expect(
        timeWeightedUptime({
          from: at(0),
          to: at(60),
          statusAtStart: 'healthy',
          runs,
        }),
      ).toMatchObject({
        upSeconds: 40 * 60,
        downSeconds: 20 * 60,
        statusAtEnd: 'unhealthy',
      });
    });

    it('counts a run exactly at the window start as inside it', () => {
      expect(
        timeWeightedUptime({
          from: at(0),
          to: at(30),
          statusAtStart: 'unhealthy',
          runs: [run(0, 'healthy')],
        }),
      ).toMatchObject({ upSeconds: 1800, downSeconds: 0 });
    });

    it('keeps milliseconds, as fractions of seconds', () => {
      expect(
        timeWeightedUptime({
          from: TEN,
          to: TEN + 1500,
          statusAtStart: 'healthy',
          runs: [
            { startedAt: TEN + 250, status: 'unhealthy', outcome: 'fail' },
          ],
        }),
      ).toMatchObject({ upSeconds: 0.25, downSeconds: 1.25 });
    });
  });

  describe('unknown time', () => {
    it('is unknown before the first known status', () => {
      expect(
        timeWeightedUptime({
          from: at(0),
          to: at(60),
          runs: [run(15, 'healthy')],
        }),
      ).toMatchObject({
        unknownSeconds: 15 * 60,
        upSeconds: 45 * 60,
        uptime: 1,
      });
    });

    it('is unknown while the runs say unknown, and a status it does not know counts as unknown', () => {
      const runs = [
        run(0, 'unknown', 'fail'),
        run(20, 'healthy'),
        run(40, 'exploded'),
      ];
      expect(
        timeWeightedUptime({ from: at(0), to: at(60), runs }),
      ).toMatchObject({
        unknownSeconds: 40 * 60,
        upSeconds: 20 * 60,
        statusAtEnd: 'unknown',
      });
    });
  });

  describe('empty input', () => {
    it('is all unknown with no runs and no earlier status, and has no up-time', () => {
      expect(timeWeightedUptime({ from: at(0), to: at(60), runs: [] })).toEqual(
        {
          upSeconds: 0,
          downSeconds: 0,
          unknownSeconds: 3600,
          pausedSeconds: 0,
          uptime: undefined,
          statusAtStart: undefined,
          statusAtEnd: undefined,
        },
      );
    });

    it('is all zeros for an empty or inverted window', () => {
      for (const [from, to] of [
        [at(10), at(10)],
        [at(10), at(0)],
      ]) {
        expect(
          timeWeightedUptime({
            from,
            to,
            statusAtStart: 'healthy',
            runs: [],
          }),
        ).toMatchObject({
          upSeconds: 0,
          downSeconds: 0,
          unknownSeconds: 0,
          pausedSeconds: 0,
          uptime: undefined,
        });
      }
    });

    it('refuses a window without finite bounds', () => {
      expect(() =>
        timeWeightedUptime({ from: NaN, to: at(0), runs: [] }),
      ).toThrow(TypeError);
    });
  });

  it('orders runs by start time, whatever order they come in', () => {
    const runs = [run(30, 'healthy'), run(0, 'unhealthy')];
    expect(timeWeightedUptime({ from: at(0), to: at(60), runs })).toMatchObject(
      { downSeconds: 1800, upSeconds: 1800 },
    );
  });
});

describe('timeWeightedUptime with maintenance', () => {
  const span = (fromMinutes: number, toMinutes: number) => ({
    startMs: at(fromMinutes),
    endMs: at(toMinutes),
  });

  it('excludes maintenance like paused time: an outage inside a window costs no up-time', () => {
    // Healthy, down from 20 to 40, healthy again; maintenance 15 to 45.
    const runs = [run(0, 'healthy'), run(20, 'unhealthy'), run(40, 'healthy')];
    expect(
      timeWeightedUptime({
        from: at(0),
        to: at(60),
        runs,
        maintenance: [span(15, 45)],
      }),
    ).toEqual({
      upSeconds: 30 * 60,
      downSeconds: 0,
      unknownSeconds: 0,
      pausedSeconds: 0,
      maintenanceSeconds: 30 * 60,
      uptime: 1,
      statusAtStart: undefined,
      statusAtEnd: 'healthy',
    });
  });

  it('counts a failure that outlasts the window as down from the window end', () => {
    const runs = [run(0, 'healthy'), run(20, 'unhealthy')];
    const summary = timeWeightedUptime({
      from: at(0),
      to: at(60),
      runs,
      maintenance: [span(15, 30)],
    });
    expect(summary).toMatchObject({
      upSeconds: 15 * 60,
      downSeconds: 30 * 60,
      maintenanceSeconds: 15 * 60,
      statusAtEnd: 'unhealthy',
    });
    expect(summary.uptime).toBeCloseTo(1 / 3);
  });

  it('clips spans to the window and never counts time twice with pauses', () => {
    const runs = [run(0, 'healthy'), pausedAt(30), run(50, 'healthy')];
    const summary = timeWeightedUptime({
      from: at(0),
      to: at(60),
      runs,
      maintenance: [span(-30, 10), span(40, 90)],
    });
    expect(summary).toMatchObject({
      upSeconds: 20 * 60,
      pausedSeconds: 10 * 60,
      maintenanceSeconds: 30 * 60,
    });
    expect(
      summary.upSeconds +
        summary.downSeconds +
        summary.unknownSeconds +
        summary.pausedSeconds +
        summary.maintenanceSeconds!,
    ).toBe(3600);
  });
});

describe('toHistoryStatus', () => {
  it('keeps the five statuses and calls anything else unknown', () => {
    for (const status of [
      'healthy',
      'degraded',
      'unhealthy',
      'unknown',
      'paused',
    ]) {
      expect(toHistoryStatus(status)).toBe(status);
    }
    expect(toHistoryStatus(null)).toBe('unknown');
    expect(toHistoryStatus('HEALTHY')).toBe('unknown');
  });
});

describe('uptimeRatio', () => {
  it('is up over up plus down, and undefined without either', () => {
    expect(uptimeRatio(90, 10)).toBe(0.9);
    expect(uptimeRatio(0, 10)).toBe(0);
    expect(uptimeRatio(0, 0)).toBeUndefined();
  });
});
