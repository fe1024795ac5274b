import { HourEntry, RunEntry } from '@vigil/plugin-healthcheck-common';
import {
  describeCellUptime,
  formatCellUptime,
  formatDuration,
  formatUptime,
  urlOfLocation,
} from './format';
import {
  BUCKETS,
  chartHours,
  chartRuns,
  latestFailingRun,
  loadNewestRuns,
  MAX_RAW_POINTS,
  statusChanges,
} from './historyData';

function run(startedAt: number, overrides: Partial<RunEntry> = {}): RunEntry {
  return {
    sliceId: 's',
    scheduledAt: startedAt,
    startedAt,
    durationMs: 100,
    outcome: 'pass',
    status: 'healthy',
    ...overrides,
  };
}

describe('chartRuns', () => {
  const to = Date.now();
  const from = to - 24 * 3_600_000;

  it('draws one point per run when there are few, held until the end', () => {
    const { status, latency, bucketed } = chartRuns(
      [run(from + 2000, { status: 'unhealthy' }), run(from + 1000)],
      from,
      to,
    );
    expect(bucketed).toBe(false);
    expect(status.map(p => p.status)).toEqual([
      'healthy',
      'unhealthy',
      'unhealthy',
    ]);
    expect(status[1]).toMatchObject({ unhealthy: 1, healthy: 0 });
    expect(latency).toHaveLength(2);
  });

  it('buckets many runs: worst status, median and slowest latency', () => {
    const step = (to - from) / (MAX_RAW_POINTS * 4);
    const runs = Array.from({ length: MAX_RAW_POINTS * 4 }, (_, i) =>
      run(from + i * step, {
        durationMs: i === 0 ? 900 : 100,
        status: i === 1 ? 'degraded' : 'healthy',
      }),
    );
    const { status, latency, bucketed } = chartRuns(runs, from, to);
    expect(bucketed).toBe(true);
    expect(status.length).toBeLessThanOrEqual(BUCKETS + 1);
    expect(status[0].status).toBe('degraded');
    expect(latency[0]).toMatchObject({ latencyMs: 100, maxLatencyMs: 900 });
  });
});

describe('latestFailingRun', () => {
  it('lists the failed conditions and the probe error of the newest failing run', () => {
    const failing = latestFailingRun([
      run(3, { outcome: 'pass' }),
      run(2, {
        outcome: 'fail',
        status: 'unhealthy',
        conditions: [
          { condition: 'a', success: false, display: 'A failed' },
          { condition: 'b', success: true, display: 'B passed' },
        ],
      }),
      run(1, {
        outcome: 'fail',
        conditions: [{ condition: 'c', success: false, display: 'old' }],
      }),
    ]);
    expect(failing?.run.startedAt).toBe(2);
    expect(failing?.failures).toEqual(['A failed']);

    expect(
      latestFailingRun([
        run(1, {
          outcome: 'fail',
          error: { kind: 'timeout', message: 'after 2s' },
        }),
      ])?.failures,
    ).toEqual(['timeout: after 2s']);
    expect(latestFailingRun([run(1)])).toBeUndefined();
  });
});

describe('statusChanges', () => {
  it('lists changes newest first', () => {
    expect(
      statusChanges([
        run(1),
        run(2),
        run(3, { status: 'unhealthy' }),
        run(4, { status: 'unhealthy' }),
        run(5),
      ]),
    ).toEqual([
      { at: 5, status: 'healthy' },
      { at: 3, status: 'unhealthy' },
      { at: 1, status: 'healthy' },
    ]);
  });
});

describe('chartHours', () => {
  it('turns seconds into shares of the hour', () => {
    const hour: HourEntry = {
      environment: 'production',
      hourStart: 3_600_000,
      runCount: 10,
      failureCount: 1,
      latencyP95Ms: 200,
      upSeconds: 2700,
      downSeconds: 900,
      unknownSeconds: 0,
      pausedSeconds: 0,
      uptime: 0.75,
    };
    const { status, latency } = chartHours([hour]);
    expect(status[0]).toMatchObject({ up: 0.75, down: 0.25 });
    expect(status).toHaveLength(2);
    expect(latency).toEqual([
      { time: 3_600_000, p50: undefined, p95: 200, p99: undefined },
    ]);
  });
});

describe('format', () => {
  it('never rounds a failing up-time up to 100%', () => {
    expect(formatUptime(0.99999)).toBe('99.99%');
    expect(formatUptime(1)).toBe('100%');
    expect(formatUptime(undefined)).toBe('no data');
    expect(formatDuration(87.4)).toBe('87 ms');
    expect(formatDuration(1240)).toBe('1.24 s');
  });

  it('reads url locations only', () => {
    expect(urlOfLocation('url:https://git.example/a.yaml')).toBe(
      'https://git.example/a.yaml',
    );
    expect(urlOfLocation('file:/tmp/a.yaml')).toBeUndefined();
  });
});

describe('loadNewestRuns', () => {
  it('follows the cursor until the last page', async () => {
    const loadPage = jest.fn(async (cursor: string | undefined) =>
      cursor
        ? { runs: [run(1)] }
        : { runs: [run(3), run(2)], nextCursor: 'next' },
    );
    expect(await loadNewestRuns(loadPage)).toEqual({
      runs: [run(3), run(2), run(1)],
      truncated: false,
    });
    expect(loadPage.mock.calls).toEqual([[undefined], ['next']]);
  });

  it('stops after the last page it may load, and says that runs were left out', async () => {
    const loadPage = jest.fn(async (cursor: string | undefined) => ({
      runs: [run(Number(cursor ?? 0))],
      nextCursor: String(Number(cursor ?? 0) + 1),
    }));
    expect(await loadNewestRuns(loadPage, 2)).toEqual({
      runs: [run(0), run(1)],
      truncated: true,
    });
    expect(loadPage).toHaveBeenCalledTimes(2);
  });
});

describe('cell up-time', () => {
  it('formats a window compactly, an en dash without data', () => {
    expect(formatCellUptime(0.99951)).toBe('99.95%');
    expect(formatCellUptime(1)).toBe('100%');
    expect(formatCellUptime(null)).toBe('–');
    expect(formatCellUptime(undefined)).toBe('–');
  });

  it('says every window in words for the accessible name', () => {
    expect(describeCellUptime({ '24h': 0.5, '7d': 1, '30d': null })).toBe(
      'up-time 50.00% over 24 hours, 100% over 7 days, no data over 30 days',
    );
    expect(describeCellUptime(undefined)).toBe(
      'up-time no data over 24 hours, no data over 7 days, no data over 30 days',
    );
  });
});
