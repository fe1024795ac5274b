import { renderInTestApp } from '@backstage/test-utils';
import { screen } from '@testing-library/react';
import { cloneElement, ReactElement } from 'react';
import {
  HourLatencyChart,
  HourStatusTimeline,
  RunLatencyChart,
  RunStatusTimeline,
} from './HistoryCharts';
import { chartHours, chartRuns } from './historyData';

// jsdom has no layout: give the charts a fixed size instead of measuring.
jest.mock('recharts', () => {
  const actual = jest.requireActual('recharts');
  return {
    ...actual,
    ResponsiveContainer: (props: { children: ReactElement }) =>
      cloneElement(props.children, { width: 600, height: 120 } as any),
  };
});

const to = Date.now();
const from = to - 24 * 3_600_000;

describe('history charts', () => {
  it('draws the status timeline and latency of runs, with a legend in words', async () => {
    const { status, latency } = chartRuns(
      [
        {
          sliceId: 's',
          scheduledAt: from + 60_000,
          startedAt: from + 60_000,
          durationMs: 80,
          outcome: 'pass',
          status: 'healthy',
        },
        {
          sliceId: 's',
          scheduledAt: from + 3_600_000,
          startedAt: from + 3_600_000,
          durationMs: 900,
          outcome: 'fail',
          status: 'unhealthy',
        },
      ],
      from,
      to,
    );
    await renderInTestApp(
      <>
        <RunStatusTimeline
          from={from}
          to={to}
          points={status}
          bucketed={false}
        />
        <RunLatencyChart
          from={from}
          to={to}
          points={latency}
          bucketed={false}
        />
      </>,
    );
    const timeline = screen.getByTestId('status-timeline');
    expect(
      timeline.querySelectorAll('.recharts-area-area').length,
    ).toBeGreaterThan(0);
    expect(screen.getByText('Healthy')).toBeInTheDocument();
    expect(screen.getByText('Unhealthy')).toBeInTheDocument();
    const chart = screen.getByTestId('latency-chart');
    expect(chart.querySelector('.recharts-line-curve')).toBeInTheDocument();
  });

  it('draws hourly shares and percentiles', async () => {
    const { status, latency } = chartHours([
      {
        environment: 'production',
        hourStart: from,
        runCount: 120,
        failureCount: 3,
        latencyP50Ms: 80,
        latencyP95Ms: 200,
        latencyP99Ms: 400,
        upSeconds: 3000,
        downSeconds: 600,
        unknownSeconds: 0,
        pausedSeconds: 0,
        uptime: 0.83,
      },
      {
        environment: 'production',
        hourStart: from + 3_600_000,
        runCount: 120,
        failureCount: 0,
        latencyP50Ms: 70,
        latencyP95Ms: 150,
        latencyP99Ms: 300,
        upSeconds: 3600,
        downSeconds: 0,
        unknownSeconds: 0,
        pausedSeconds: 0,
        uptime: 1,
      },
    ]);
    await renderInTestApp(
      <>
        <HourStatusTimeline from={from} to={to} points={status} />
        <HourLatencyChart from={from} to={to} points={latency} />
      </>,
    );
    expect(
      screen
        .getByTestId('status-timeline')
        .querySelectorAll('.recharts-area-area').length,
    ).toBeGreaterThan(0);
    expect(screen.getByText('Down (unhealthy)')).toBeInTheDocument();
    expect(
      screen
        .getByTestId('latency-chart')
        .querySelectorAll('.recharts-line-curve'),
    ).toHaveLength(3);
  });
});
