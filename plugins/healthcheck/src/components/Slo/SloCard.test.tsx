import { renderInTestApp, TestApiProvider } from '@backstage/test-utils';
import { screen, waitFor, within } from '@testing-library/react';
import { ObjectiveStatus } from '@vigil/plugin-healthcheck-common';
import { cloneElement, ReactElement } from 'react';
import { healthcheckApiRef } from '../../api/HealthcheckApi';
import { SloCard } from './SloCard';

// jsdom has no layout: give the chart a fixed size instead of measuring.
jest.mock('recharts', () => {
  const actual = jest.requireActual('recharts');
  return {
    ...actual,
    ResponsiveContainer: (props: { children: ReactElement }) =>
      cloneElement(props.children, { width: 600, height: 140 } as any),
  };
});

const DAY = 86_400_000;
const to = Date.parse('2026-11-30T12:00:00Z');

/** 99.9% over 30 days, 62.5% of the budget spent, burning fast now. */
const availability: ObjectiveStatus = {
  ref: 'servicelevelobjective:default/payments-availability',
  title: 'Payments are up',
  systemRef: 'system:default/payments',
  environment: 'production',
  checkRef: 'healthcheck:default/payments-health',
  indicator: { type: 'availability' },
  window: { type: 'rolling', durationMs: 30 * DAY },
  budgetingMethod: 'Timeslices',
  target: 0.999,
  status: {
    from: new Date(to - 30 * DAY).toISOString(),
    to: new Date(to).toISOString(),
    unit: 'seconds',
    good: 2_590_380,
    bad: 1_620,
    attainment: 1 - 1_620 / 2_592_000,
    errorBudget: {
      total: 2_592,
      spent: 1_620,
      remaining: 972,
      remainingRatio: 0.375,
    },
    burnRates: { '5m': 20, '30m': 18.5, '1h': 16, '6h': 3.2, '3d': 0.8 },
    alerts: [
      { severity: 'page', burnRate: 14.4, longWindow: '1h', shortWindow: '5m' },
    ],
    burnDown: [
      { at: new Date(to - 30 * DAY).toISOString(), remainingRatio: 1 },
      { at: new Date(to - 15 * DAY).toISOString(), remainingRatio: 0.9 },
      { at: new Date(to).toISOString(), remainingRatio: 0.375 },
    ],
  },
};

/** p95 under 300 ms this month, nothing counted yet. */
const latency: ObjectiveStatus = {
  ...availability,
  ref: 'servicelevelobjective:default/payments-fast',
  title: 'Payments are fast',
  checkRef: undefined,
  indicator: { type: 'latency', percentile: 95, thresholdMs: 300 },
  window: { type: 'calendarMonth' },
  target: 0.95,
  status: {
    ...availability.status,
    unit: 'hours',
    good: 0,
    bad: 0,
    attainment: null,
    errorBudget: { total: 0, spent: 0, remaining: 0, remainingRatio: null },
    burnRates: { '5m': null, '30m': null, '1h': null, '6h': null, '3d': null },
    alerts: [],
    burnDown: [],
  },
};

async function renderCard(objectives: ObjectiveStatus[] | Error) {
  const api = {
    listSystemObjectives: jest.fn(async () => {
      if (objectives instanceof Error) throw objectives;
      return objectives;
    }),
  };
  await renderInTestApp(
    <TestApiProvider apis={[[healthcheckApiRef, api as any]]}>
      <SloCard systemRef="system:default/payments" />
    </TestApiProvider>,
  );
  return api;
}

function objectiveItem(title: string) {
  return screen.getByRole('listitem', { name: title });
}

describe('SloCard', () => {
  it('shows each objective: attainment against target, budget left, burn rates, alerts and the burn-down', async () => {
    const api = await renderCard([availability, latency]);
    expect(
      await screen.findByText('Service-level objectives'),
    ).toBeInTheDocument();
    expect(api.listSystemObjectives).toHaveBeenCalledWith(
      'system:default/payments',
    );

    const up = objectiveItem('Payments are up');
    expect(up).toHaveTextContent(
      'availability of payments-health in production, rolling 30 days',
    );
    expect(up).toHaveTextContent('99.93% of 99.9% target');
    expect(up).toHaveTextContent('Meeting the objective');
    expect(up).toHaveTextContent('37% budget left');
    expect(up).toHaveTextContent(
      '37% of the error budget left: 27 min of 43 min spent',
    );
    const rates = within(up).getByRole('table');
    expect(
      within(rates)
        .getAllByRole('columnheader')
        .map(th => th.textContent),
    ).toEqual(['5m', '30m', '1h', '6h', '3d']);
    expect(
      within(rates)
        .getAllByRole('cell')
        .map(td => td.textContent),
    ).toEqual(['20×', '18.5×', '16×', '3.2×', '0.8×']);
    expect(
      within(up).getByRole('list', { name: 'Alerts firing' }),
    ).toHaveTextContent('Page: burning at 14.4× or faster over 1h and 5m');
    expect(
      within(up).getByRole('figure', {
        name: 'Error budget left through the window: from 100% to 37%',
      }),
    ).toBeInTheDocument();
  });

  it('says when an objective has nothing counted yet, and draws no burn-down', async () => {
    await renderCard([latency]);
    const fast = await screen.findByRole('listitem', {
      name: 'Payments are fast',
    });
    expect(fast).toHaveTextContent(
      'p95 latency under 300 ms of every check in production, this calendar month',
    );
    expect(fast).toHaveTextContent('no data of 95% target');
    expect(fast).toHaveTextContent(
      'No error budget yet: nothing counted in the window',
    );
    expect(fast).toHaveTextContent('No burn-rate alert firing');
    expect(
      within(fast)
        .getAllByRole('cell')
        .map(td => td.textContent),
    ).toEqual(['–', '–', '–', '–', '–']);
    expect(within(fast).queryByRole('figure')).toBeNull();
  });

  it('shows nothing for a system without objectives', async () => {
    const api = await renderCard([]);
    await waitFor(() => expect(screen.queryByRole('progressbar')).toBeNull());
    expect(api.listSystemObjectives).toHaveBeenCalled();
    expect(screen.queryByText('Service-level objectives')).toBeNull();
  });

  it('says when the objectives cannot be loaded, with a retry', async () => {
    await renderCard(new Error('backend away'));
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Could not load the service-level objectives: backend away',
    );
    expect(screen.getByRole('button', { name: 'Retry' })).toBeInTheDocument();
  });
});
